import { type Content, eventSchemas, isPlainObject, lazyZod, type Part } from '@adk/core';
import type { ZodType } from 'zod';

/** ADK's request models accept snake_case and camelCase field names (pydantic populate_by_name). */
const camel = (key: string): string => key.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

/** Renames the top-level snake_case keys of a request body; values are left as they are. */
export function camelKeys(value: unknown): unknown {
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k.includes('_') ? camel(k) : k] = v;
  return out;
}

const PART_KEYS = new Set([
  'inlineData',
  'fileData',
  'functionCall',
  'functionResponse',
  'executableCode',
  'codeExecutionResult',
]);

/**
 * A Content in either spelling (genai accepts `inline_data`, `function_response`, …) in ours;
 * user data (`args`, `response`) is not touched. A missing role means the user.
 */
export function camelContent(value: unknown): unknown {
  if (!isPlainObject(value)) return value;
  const content = camelKeys(value) as Record<string, unknown>;
  content.role ??= 'user';
  if (Array.isArray(content.parts)) {
    content.parts = content.parts.map((part) => {
      if (!isPlainObject(part)) return part;
      const p = camelKeys(part) as Record<string, unknown>;
      for (const key of PART_KEYS) if (isPlainObject(p[key])) p[key] = camelKeys(p[key]);
      for (const key of Object.keys(p)) if (p[key] === null) delete p[key];
      return p;
    });
  }
  return content;
}

const ID_MAX = 256;

/** The request bodies of the api_server routes, built on first use. */
export const requestSchemas = lazyZod((z) => {
  const { content, part, jsonValue } = eventSchemas();
  const id = z
    .string()
    .min(1)
    .max(ID_MAX)
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what we reject
    .regex(/^[^\u0000-\u001f\u007f]*$/, 'must not contain control characters');
  const state = z.record(z.string(), jsonValue).transform((s) => s as Record<string, unknown>);
  const nullish = <T extends ZodType>(t: T) => t.nullish().transform((v) => v ?? undefined);
  const multitaskStrategy = z.enum(['reject', 'enqueue', 'interrupt']);
  const runAgent = z.object({
    appName: nullish(id),
    userId: id,
    sessionId: id,
    newMessage: nullish(content.transform((c) => c as Content)),
    streaming: nullish(z.boolean()),
    stateDelta: nullish(state),
    invocationId: nullish(id),
    functionCallEventId: nullish(z.string()),
    customMetadata: nullish(z.record(z.string(), jsonValue)),
    multitaskStrategy: nullish(multitaskStrategy),
  });
  return {
    id,
    runAgent,
    /** `POST …/sessions/{session}/runs`: the body of `/run`; the path names app, user and session. */
    startRun: runAgent.extend({ userId: nullish(id), sessionId: nullish(id) }),
    createSession: z.object({
      sessionId: nullish(id),
      state: nullish(state),
      events: nullish(z.array(z.record(z.string(), z.unknown()))),
    }),
    state: nullish(state),
    updateSession: z.object({ stateDelta: state }),
    saveArtifact: z.object({
      filename: z.string().min(1),
      artifact: part.transform((p) => p as Part),
      customMetadata: nullish(z.record(z.string(), jsonValue)),
    }),
    updateMemory: z.object({ sessionId: id }),
  };
});
