import type { Part as AdkPart, Content } from '@adk/core';
import { z } from 'zod';
import type { A2aJson, A2aMetadata, Part } from '../protocol/types.js';

/**
 * Metadata key on A2A data parts that says which ADK part they carry (`function_call`,
 * `function_response`, `executable_code`, `code_execution_result`). The same convention as ADK
 * Python's A2A bridge, so ADK agents in either language understand each other.
 */
export const ADK_TYPE_KEY = 'adk_type';
/** Metadata flag on a `function_call` data part: the call is long-running (the task waits on it). */
export const ADK_LONG_RUNNING_KEY = 'adk_is_long_running';
/** Metadata flag on a text part: the text is the model's thought, not its answer. */
export const ADK_THOUGHT_KEY = 'adk_thought';

/** The function call ADK uses to ask the user for credentials; maps to `auth-required`. */
export { REQUEST_CREDENTIAL } from '@adk/core';

/** Turns any value into JSON (dropping what JSON cannot hold), for A2A data parts. */
export function toA2aJson(value: unknown): A2aJson {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'bigint') return value.toString();
  if (Array.isArray(value)) return value.map((v) => (v === undefined ? null : toA2aJson(v)));
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'object') {
    const out: { [key: string]: A2aJson } = {};
    for (const [k, v] of Object.entries(value)) {
      if (v !== undefined && typeof v !== 'function' && typeof v !== 'symbol') out[k] = toA2aJson(v);
    }
    return out;
  }
  return null;
}

function toA2aObject(value: Record<string, unknown>): { [key: string]: A2aJson } {
  const json = toA2aJson(value);
  return typeof json === 'object' && json !== null && !Array.isArray(json) ? json : {};
}

const adkMeta = (type: string, extra: A2aMetadata = {}): A2aMetadata => ({ [ADK_TYPE_KEY]: type, ...extra });

/** One ADK part as an A2A part (undefined for parts A2A cannot carry). */
export function adkPartToA2a(
  part: AdkPart,
  longRunningIds: ReadonlySet<string> = new Set(),
): Part | undefined {
  if (part.text !== undefined) {
    return part.thought ? { text: part.text, metadata: { [ADK_THOUGHT_KEY]: true } } : { text: part.text };
  }
  if (part.inlineData) {
    return {
      raw: part.inlineData.data,
      mediaType: part.inlineData.mimeType,
      ...(part.inlineData.displayName ? { filename: part.inlineData.displayName } : {}),
    };
  }
  if (part.fileData) {
    return {
      url: part.fileData.fileUri,
      mediaType: part.fileData.mimeType,
      ...(part.fileData.displayName ? { filename: part.fileData.displayName } : {}),
    };
  }
  if (part.functionCall) {
    const { id, name, args } = part.functionCall;
    return {
      data: { id, name, args: toA2aObject(args) },
      metadata: adkMeta('function_call', longRunningIds.has(id) ? { [ADK_LONG_RUNNING_KEY]: true } : {}),
    };
  }
  if (part.functionResponse) {
    const { id, name, response } = part.functionResponse;
    return { data: { id, name, response: toA2aObject(response) }, metadata: adkMeta('function_response') };
  }
  if (part.executableCode) {
    return { data: toA2aObject(part.executableCode), metadata: adkMeta('executable_code') };
  }
  if (part.codeExecutionResult) {
    return { data: toA2aObject(part.codeExecutionResult), metadata: adkMeta('code_execution_result') };
  }
  return undefined;
}

export function adkContentToA2aParts(
  content: Content | undefined,
  longRunningIds?: ReadonlySet<string>,
): Part[] {
  const out: Part[] = [];
  for (const part of content?.parts ?? []) {
    const converted = adkPartToA2a(part, longRunningIds);
    if (converted) out.push(converted);
  }
  return out;
}

const record = z.record(z.string(), z.unknown());
const functionCallData = z.object({ id: z.string(), name: z.string(), args: record.default({}) });
const functionResponseData = z.object({ id: z.string(), name: z.string(), response: record.default({}) });
const executableCodeData = z.object({ language: z.string(), code: z.string() });
const codeExecutionResultData = z.object({ outcome: z.string(), output: z.string().optional() });

/** The ADK type a data part declares in its metadata, if any. */
export function adkTypeOf(part: Part): string | undefined {
  const type = part.metadata?.[ADK_TYPE_KEY];
  return typeof type === 'string' ? type : undefined;
}

/** Whether an A2A part is a long-running ADK function call. */
export function isLongRunningCallPart(part: Part): boolean {
  return adkTypeOf(part) === 'function_call' && part.metadata?.[ADK_LONG_RUNNING_KEY] === true;
}

/** The ADK function call an A2A data part carries, if it is one (validated). */
export function functionCallOfPart(part: Part) {
  if (adkTypeOf(part) !== 'function_call') return undefined;
  const parsed = functionCallData.safeParse(part.data);
  return parsed.success ? parsed.data : undefined;
}

/** One A2A part as an ADK part. Untyped data parts become JSON text, which every model reads. */
export function a2aPartToAdk(part: Part): AdkPart {
  if (part.text !== undefined) {
    return part.metadata?.[ADK_THOUGHT_KEY] === true
      ? { text: part.text, thought: true }
      : { text: part.text };
  }
  if (part.raw !== undefined) {
    return {
      inlineData: {
        mimeType: part.mediaType ?? 'application/octet-stream',
        data: part.raw,
        ...(part.filename ? { displayName: part.filename } : {}),
      },
    };
  }
  if (part.url !== undefined) {
    return {
      fileData: {
        mimeType: part.mediaType ?? 'application/octet-stream',
        fileUri: part.url,
        ...(part.filename ? { displayName: part.filename } : {}),
      },
    };
  }
  const type = adkTypeOf(part);
  if (type === 'function_call') {
    const parsed = functionCallData.safeParse(part.data);
    if (parsed.success) return { functionCall: parsed.data };
  } else if (type === 'function_response') {
    const parsed = functionResponseData.safeParse(part.data);
    if (parsed.success) return { functionResponse: parsed.data };
  } else if (type === 'executable_code') {
    const parsed = executableCodeData.safeParse(part.data);
    if (parsed.success) return { executableCode: parsed.data };
  } else if (type === 'code_execution_result') {
    const parsed = codeExecutionResultData.safeParse(part.data);
    if (parsed.success) return { codeExecutionResult: parsed.data };
  }
  return { text: JSON.stringify(part.data ?? null) };
}

export function a2aPartsToAdk(parts: Part[]): AdkPart[] {
  return parts.map(a2aPartToAdk);
}

/** The concatenated text of A2A parts (thoughts excluded). */
export function a2aText(parts: Part[] | undefined): string {
  let out = '';
  for (const p of parts ?? [])
    if (p.text !== undefined && p.metadata?.[ADK_THOUGHT_KEY] !== true) out += p.text;
  return out;
}
