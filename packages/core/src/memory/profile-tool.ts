/**
 * What an agent with a profile needs when it is built: the `update_profile` tool's name and
 * declaration. Applying an update (`profile.ts`) is imported by the tool's first call, so an agent
 * without a profile, or one that has not updated it yet, does not load it.
 */
import type { BaseTool } from '../tools/base-tool.js';
import { FunctionTool } from '../tools/function-tool.js';
import type { ProfileOptions } from './profile.js';

/** Name of the tool an agent with `memory.profile.update: 'tool'` gets. */
export const UPDATE_PROFILE_TOOL_NAME = 'update_profile';

/** The full state key of the profile (`user:profile` by default). */
export function profileStateKey(options: ProfileOptions): string {
  const name = options.stateKey ?? 'profile';
  return options.scope === 'session' ? name : `user:${name}`;
}

/** A `## ` heading of a Markdown profile. */
export const PROFILE_HEADING = /^##\s+(.+?)\s*$/;

/** The `## ` section names of a Markdown template, in order. */
export function templateSections(template: string): string[] {
  return template
    .split('\n')
    .map((l) => PROFILE_HEADING.exec(l)?.[1])
    .filter((s): s is string => s !== undefined);
}

/** The `update_profile` tool: applies one update as a state delta on its response event. */
export function updateProfileTool(options: ProfileOptions): BaseTool {
  const key = profileStateKey(options);
  const template = options.template !== undefined;
  const parameters = template
    ? {
        type: 'object',
        properties: {
          section: { type: 'string', enum: templateSections(options.template ?? '') },
          content: { type: 'string', description: 'The new body of that section (Markdown).' },
        },
        required: ['section', 'content'],
      }
    : {
        type: 'object',
        properties: {
          patch: {
            type: 'object',
            description: 'RFC 7386 merge-patch of the profile: members to set; null deletes a member.',
          },
        },
        required: ['patch'],
      };
  return new FunctionTool({
    name: UPDATE_PROFILE_TOOL_NAME,
    description: template
      ? 'Replaces one section of the user profile.'
      : 'Updates the user profile with a JSON merge-patch (only the members that change).',
    parameters,
    execute: async (args, context) => {
      const { currentProfile, ProfileUpdateError, updatedProfile } = await loadProfile();
      const current = currentProfile(options, { [key]: context.state.get(key) });
      try {
        const next = updatedProfile(
          options,
          current,
          args as { patch?: unknown; section?: string; content?: string },
        );
        context.state.set(key, next);
        return { status: 'updated' };
      } catch (error) {
        if (error instanceof ProfileUpdateError) return { status: 'error', error: error.message };
        throw error;
      }
    },
  });
}

let profile: Promise<typeof import('./profile.js')> | undefined;
/** Profiles (reading, patching, the instruction), imported once on first use. */
export const loadProfile = () => (profile ??= import('./profile.js'));
