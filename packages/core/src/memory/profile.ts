import type { z } from 'zod';
import { contentText } from '../events/content.js';
import { createEvent, type Event } from '../events/event.js';
import type { Llm, LlmRequest } from '../models/llm.js';
import type { Session, SessionService } from '../sessions/session.js';
import { visibleEvents } from '../sessions/visible-events.js';
import type { MemoryJobHandler } from './jobs.js';
import {
  PROFILE_HEADING as HEADING,
  profileStateKey,
  templateSections,
  UPDATE_PROFILE_TOOL_NAME,
} from './profile-tool.js';

export {
  profileStateKey,
  templateSections,
  UPDATE_PROFILE_TOOL_NAME,
  updateProfileTool,
} from './profile-tool.js';

/** A JSON object (a profile of a schema, and its merge-patches). */
export type ProfileObject = { [key: string]: unknown };

/**
 * Working memory: a profile the agent keeps, injected into its system instruction.
 * Give `schema` (a JSON object profile, updated by RFC 7386 merge-patches) or `template` (a Markdown
 * document of `## Section` headings, updated one section at a time).
 */
export interface ProfileOptions {
  schema?: z.ZodType<ProfileObject>;
  template?: string;
  /** `'user'` (default: shared by the user's sessions, a `user:` state key) or `'session'`. */
  scope?: 'user' | 'session';
  /** State key without its scope prefix (default `profile`). */
  stateKey?: string;
  /**
   * `'tool'`: the agent gets `update_profile`, which returns at once. `'background'`: the agent has no
   * tool; a `'profile'` job ({@link profileJobHandler}) updates it after the turn.
   * Default `'tool'` (docs/decisions/0038-profile-patches.md).
   */
  update?: 'tool' | 'background';
}

function isObject(value: unknown): value is ProfileObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** RFC 7386 JSON Merge Patch: `null` deletes a member, objects merge, anything else replaces. */
export function applyMergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return patch;
  const out: ProfileObject = isObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key];
    else out[key] = applyMergePatch(out[key], value);
  }
  return out;
}

/**
 * Replaces the body of one `## section` of a Markdown profile (the rest is kept byte for byte).
 * Throws when the section is not in the document.
 */
export function replaceSection(document: string, section: string, body: string): string {
  const lines = document.split('\n');
  const start = lines.findIndex((l) => HEADING.exec(l)?.[1] === section);
  if (start < 0) throw new Error(`The profile has no section "${section}"`);
  let end = lines.length;
  for (let i = start + 1; i < lines.length; i++) {
    if (HEADING.test(lines[i] as string)) {
      end = i;
      break;
    }
  }
  const trimmed = body.trim();
  const replacement = trimmed ? [trimmed, ''] : [''];
  return [...lines.slice(0, start + 1), ...replacement, ...lines.slice(end)].join('\n');
}

/** The current profile: the state value, else the template (or `{}` for a schema). */
export function currentProfile(
  options: ProfileOptions,
  state: Record<string, unknown>,
): ProfileObject | string {
  const value = state[profileStateKey(options)];
  if (options.template !== undefined) return typeof value === 'string' ? value : options.template;
  return isObject(value) ? value : {};
}

/** The profile as the system instruction shows it (always present, so its position never moves). */
export function profileInstruction(options: ProfileOptions, state: Record<string, unknown>): string {
  const profile = currentProfile(options, state);
  const body = typeof profile === 'string' ? profile.trim() : JSON.stringify(profile, null, 2);
  const how =
    options.update === 'background'
      ? 'It is kept up to date for you after each turn.'
      : `Keep it up to date with the ${UPDATE_PROFILE_TOOL_NAME} tool when you learn something lasting about the user.`;
  return `<user_profile>\n${body}\n</user_profile>\nThis is what you know about the user. ${how}`;
}

/** A typed failure of a profile update (a bad patch, an unknown section, a schema violation). */
export class ProfileUpdateError extends Error {
  readonly code = 'PROFILE_UPDATE_INVALID';
}

/** Applies one update (a merge-patch object, or `{ section, content }` for a template) to a profile. */
export function updatedProfile(
  options: ProfileOptions,
  current: ProfileObject | string,
  update: { patch?: unknown; section?: string; content?: string },
): ProfileObject | string {
  if (options.template !== undefined) {
    if (typeof update.section !== 'string' || typeof update.content !== 'string')
      throw new ProfileUpdateError('A Markdown profile is updated with { section, content }');
    if (!templateSections(options.template).includes(update.section))
      throw new ProfileUpdateError(
        `Unknown section "${update.section}"; sections: ${templateSections(options.template).join(', ')}`,
      );
    return replaceSection(String(current), update.section, update.content);
  }
  if (!isObject(update.patch)) throw new ProfileUpdateError('A merge-patch must be a JSON object');
  const next = applyMergePatch(current, update.patch);
  if (options.schema) {
    const parsed = options.schema.safeParse(next);
    if (!parsed.success)
      throw new ProfileUpdateError(
        `The patched profile does not match its schema: ${parsed.error.issues.map((i) => `${i.path.join('.') || '$'}: ${i.message}`).join('; ')}`,
      );
    return parsed.data;
  }
  return next as ProfileObject;
}

/** A `'profile'` job: update the profile from one finished turn. */
export interface ProfileJob {
  kind: 'profile';
  appName: string;
  userId: string;
  sessionId: string;
  /** The turn's last event (the job is idempotent by it). */
  eventId: string;
}

export interface ProfileJobContext {
  sessionService: SessionService;
  signal?: AbortSignal;
}

const PROFILE_JOB_AUTHOR = 'memory:profile';

/**
 * The background `'profile'` job handler: ONE model call reads the current profile and the turn and
 * answers with a merge-patch (or `{ section, content }` updates for a template) as JSON; the result is
 * appended as an ordinary state-delta event (rewindable). `{}` / `[]` means no change: nothing is
 * written. Running it again for the same event writes nothing (idempotent by event id).
 */
export function profileJobHandler(
  options: ProfileOptions,
  model: Llm,
): (job: ProfileJob, context: ProfileJobContext) => Promise<void> {
  const key = profileStateKey(options);
  return async (job, context) => {
    const session = await context.sessionService.getSession({
      appName: job.appName,
      userId: job.userId,
      sessionId: job.sessionId,
    });
    if (!session) return;
    if (session.events.some((e) => e.customMetadata?.profileJobFor === job.eventId)) return;
    const turn = lastTurn(session, job.eventId);
    if (turn.length === 0) return;
    const current = currentProfile(options, session.state);
    const request: LlmRequest = {
      model: model.model,
      systemInstruction:
        options.template !== undefined
          ? 'You maintain a Markdown user profile. Answer with a JSON array of {"section","content"} for the sections the conversation changes (the new body of each), or [] when nothing changes.'
          : 'You maintain a JSON user profile. Answer with one RFC 7386 JSON merge-patch object holding only what the conversation changes (null deletes a member), or {} when nothing changes.',
      contents: [
        {
          role: 'user',
          parts: [
            {
              text: `Current profile:\n${typeof current === 'string' ? current : JSON.stringify(current)}\n\nConversation:\n${turn.map((e) => `${e.author}: ${contentText(e.content)}`).join('\n')}`,
            },
          ],
        },
      ],
      config: { responseMimeType: 'application/json' },
    };
    let text = '';
    for await (const r of model.generate(request, context.signal ? { signal: context.signal } : {}))
      if (!r.partial) text += contentText(r.content);
    const answer = JSON.parse(stripFences(text)) as unknown;
    const apply = (profile: ProfileObject | string) => {
      let next = profile;
      if (options.template !== undefined) {
        const updates = Array.isArray(answer) ? answer : [answer];
        for (const u of updates)
          next = updatedProfile(options, next, u as { section?: string; content?: string });
      } else {
        next = updatedProfile(options, next, { patch: answer });
      }
      return next;
    };
    if (JSON.stringify(apply(current)) === JSON.stringify(current)) return;
    // The model ran without the lock; the write takes the session's run lock (when the store has
    // one), so it never lands in the middle of a run, and applies the update to the profile as it
    // is now (a run or another job may have changed it meanwhile).
    const sessionKey = { appName: job.appName, userId: job.userId, sessionId: job.sessionId };
    const lock = await context.sessionService.acquireRunLock?.(sessionKey, {
      wait: true,
      ...(context.signal ? { signal: context.signal } : {}),
    });
    try {
      const latest = await context.sessionService.getSession(sessionKey);
      if (!latest || latest.events.some((e) => e.customMetadata?.profileJobFor === job.eventId)) return;
      const now = currentProfile(options, latest.state);
      const next = apply(now);
      if (JSON.stringify(next) === JSON.stringify(now)) return;
      await context.sessionService.appendEvent(
        latest,
        createEvent({
          invocationId: `profile-${job.eventId}`,
          author: PROFILE_JOB_AUTHOR,
          actions: { stateDelta: { [key]: next } },
          customMetadata: { profileJobFor: job.eventId },
        }),
      );
    } finally {
      await lock?.release();
    }
  };
}

function stripFences(text: string): string {
  const m = /^\s*```(?:json)?\s*([\s\S]*?)\s*```\s*$/.exec(text);
  return (m ? m[1] : text)?.trim() ?? '';
}

/** The events of the invocation that ends with `eventId` (the user's message and the answers). */
function lastTurn(session: Session, eventId: string): Event[] {
  const events = visibleEvents(session.events);
  const end = events.findIndex((e) => e.id === eventId);
  if (end < 0) return [];
  const invocationId = events[end]?.invocationId;
  return events
    .slice(0, end + 1)
    .filter((e) => e.invocationId === invocationId && contentText(e.content).trim());
}

/**
 * {@link profileJobHandler} as a {@link MemoryJobWorker} handler for kind `'profile'`. A Runner
 * registers it, and enqueues one job per committed turn, for an agent with `update: 'background'`;
 * a worker of your own registers it itself (or with `useAgentMemoryJobs`).
 */
export function profileMemoryJobHandler(
  options: ProfileOptions,
  services: { model: Llm; sessionService: SessionService },
): MemoryJobHandler {
  const handle = profileJobHandler(options, services.model);
  return async (jobs, context) => {
    for (const job of jobs) {
      const eventId = job.eventIds.at(-1);
      if (!job.sessionId || !eventId) continue;
      await handle(
        { kind: 'profile', appName: job.appName, userId: job.userId, sessionId: job.sessionId, eventId },
        { sessionService: services.sessionService, signal: context.signal },
      );
    }
  };
}
