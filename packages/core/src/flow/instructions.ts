import type { ReadonlyContext } from '../agents/callback-context.js';
import { ValidationError } from '../errors/errors.js';
import { contentText } from '../events/content.js';

/** An instruction: a template string, or a function of the context (not templated). */
export type InstructionProvider = string | ((context: ReadonlyContext) => string | Promise<string>);

// {name}, {name?}, {app:name}, {user:name?}, {temp:name}, {artifact.file.txt}
const PLACEHOLDER = /\{(artifact\.[^{}\s?]+|(?:(?:app|user|temp):)?[A-Za-z_][A-Za-z0-9_]*)(\?)?\}/g;

function stringify(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined) return '';
  if (typeof value === 'object' && value !== null) return JSON.stringify(value);
  return String(value);
}

/**
 * Substitutes state and artifact references in an instruction template. A missing `{key}` is an
 * error; `{key?}` becomes empty. Braces that are not a valid reference are left as they are.
 */
export async function injectState(template: string, context: ReadonlyContext): Promise<string> {
  // Most instructions reference nothing: no regex iterator and array per step for them.
  if (!template.includes('{')) return template;
  const matches = [...template.matchAll(PLACEHOLDER)];
  if (matches.length === 0) return template;
  let out = '';
  let last = 0;
  for (const match of matches) {
    const [whole, ref = '', optional] = match;
    out += template.slice(last, match.index);
    last = (match.index ?? 0) + whole.length;
    if (ref.startsWith('artifact.')) {
      const filename = ref.slice('artifact.'.length);
      const ctx = context.invocationContext;
      const part = ctx.artifactService
        ? await ctx.artifactService.loadArtifact({
            appName: ctx.appName,
            userId: ctx.userId,
            sessionId: ctx.session.id,
            filename,
          })
        : undefined;
      if (!part) {
        if (optional) continue;
        throw new ValidationError(`The instruction references artifact "${filename}", which does not exist`);
      }
      out += part.text ?? contentText({ role: 'user', parts: [part] });
      continue;
    }
    const value = context.readState(ref);
    if (value === undefined) {
      if (optional) continue;
      throw new ValidationError(
        `The instruction references state key "${ref}", which is not set (write {${ref}?} to make it optional)`,
      );
    }
    out += stringify(value);
  }
  return out + template.slice(last);
}

export async function resolveInstruction(
  provider: InstructionProvider | undefined,
  context: ReadonlyContext,
): Promise<string | undefined> {
  if (provider === undefined) return undefined;
  if (typeof provider === 'function') return provider(context);
  return injectState(provider, context);
}
