import type {
  CodeExecutionResult,
  ExecutableCode,
  FileData,
  FunctionCall,
  FunctionResponse,
  InlineData,
  Part,
  ServerToolResult,
  ServerToolUse,
} from './content.js';
import {
  type Event,
  type EventErrorCode,
  eventFunctionCalls,
  eventFunctionResponses,
  isFinalResponse,
} from './event.js';

// `Part` and `Event` keep the Gemini wire shape (a bag of optional fields, the persisted JSON).
// These guards and views narrow them without changing it.

export type TextPart = Part & { text: string };
export type FunctionCallPart = Part & { functionCall: FunctionCall };
export type FunctionResponsePart = Part & { functionResponse: FunctionResponse };
export type InlineDataPart = Part & { inlineData: InlineData };
export type FileDataPart = Part & { fileData: FileData };

export const isTextPart = (part: Part): part is TextPart => part.text !== undefined && part.thought !== true;
/** A thought: text the model marked as its reasoning, not its answer. */
export const isThoughtPart = (part: Part): part is TextPart =>
  part.text !== undefined && part.thought === true;
export const isFunctionCallPart = (part: Part): part is FunctionCallPart => part.functionCall !== undefined;
export const isFunctionResponsePart = (part: Part): part is FunctionResponsePart =>
  part.functionResponse !== undefined;
export const isInlineDataPart = (part: Part): part is InlineDataPart => part.inlineData !== undefined;
export const isFileDataPart = (part: Part): part is FileDataPart => part.fileData !== undefined;

/**
 * A part as a discriminated union on `kind`, for `switch`. `part` is the part itself (the wire
 * shape, with `thoughtSignature` and any other field it carries).
 */
export type PartView =
  | { kind: 'text'; text: string; part: Part }
  | { kind: 'thought'; text: string; part: Part }
  | { kind: 'functionCall'; functionCall: FunctionCall; part: Part }
  | { kind: 'functionResponse'; functionResponse: FunctionResponse; part: Part }
  | { kind: 'inlineData'; inlineData: InlineData; part: Part }
  | { kind: 'fileData'; fileData: FileData; part: Part }
  | { kind: 'executableCode'; executableCode: ExecutableCode; part: Part }
  | { kind: 'codeExecutionResult'; codeExecutionResult: CodeExecutionResult; part: Part }
  | { kind: 'serverToolUse'; serverToolUse: ServerToolUse; part: Part }
  | { kind: 'serverToolResult'; serverToolResult: ServerToolResult; part: Part }
  /** A part with none of the known fields (e.g. only a `thoughtSignature`). */
  | { kind: 'empty'; part: Part };

export type PartKind = PartView['kind'];

/** The part's kind and its payload, for exhaustive `switch (view.kind)`. */
export function viewPart(part: Part): PartView {
  if (part.functionCall) return { kind: 'functionCall', functionCall: part.functionCall, part };
  if (part.functionResponse)
    return { kind: 'functionResponse', functionResponse: part.functionResponse, part };
  if (part.text !== undefined)
    return part.thought
      ? { kind: 'thought', text: part.text, part }
      : { kind: 'text', text: part.text, part };
  if (part.inlineData) return { kind: 'inlineData', inlineData: part.inlineData, part };
  if (part.fileData) return { kind: 'fileData', fileData: part.fileData, part };
  if (part.executableCode) return { kind: 'executableCode', executableCode: part.executableCode, part };
  if (part.codeExecutionResult)
    return { kind: 'codeExecutionResult', codeExecutionResult: part.codeExecutionResult, part };
  if (part.serverToolUse) return { kind: 'serverToolUse', serverToolUse: part.serverToolUse, part };
  if (part.serverToolResult)
    return { kind: 'serverToolResult', serverToolResult: part.serverToolResult, part };
  return { kind: 'empty', part };
}

/** The kind of a part: `viewPart(part).kind`. */
export const partKind = (part: Part): PartKind => viewPart(part).kind;

export type ErrorEvent = Event & { errorCode: EventErrorCode; errorMessage?: string };
export type PartialEvent = Event & { partial: true };

export const isErrorEvent = (event: Event): event is ErrorEvent => event.errorCode !== undefined;
export const isPartialEvent = (event: Event): event is PartialEvent => event.partial === true;

/**
 * An event as a discriminated union on `kind`: `error`, `partial` (a streaming chunk),
 * `functionCalls` (the model asks for tools), `functionResponses` (tool results), `final` (a final
 * response: text, or an agent's last word), or `other` (state-only, transfer, escalation…).
 */
export type EventView =
  | { kind: 'error'; errorCode: EventErrorCode; errorMessage: string; event: Event }
  | { kind: 'partial'; text: string; event: Event }
  | { kind: 'functionCalls'; functionCalls: FunctionCall[]; event: Event }
  | { kind: 'functionResponses'; functionResponses: FunctionResponse[]; event: Event }
  | { kind: 'final'; text: string; event: Event }
  | { kind: 'other'; event: Event };

export type EventKind = EventView['kind'];

export function viewEvent(event: Event): EventView {
  if (event.errorCode !== undefined)
    return {
      kind: 'error',
      errorCode: event.errorCode,
      errorMessage: event.errorMessage ?? event.errorCode,
      event,
    };
  const text = (event.content?.parts ?? [])
    .filter(isTextPart)
    .map((p) => p.text)
    .join('');
  if (event.partial) return { kind: 'partial', text, event };
  const calls = eventFunctionCalls(event);
  if (calls.length > 0) return { kind: 'functionCalls', functionCalls: calls, event };
  const responses = eventFunctionResponses(event);
  if (responses.length > 0) return { kind: 'functionResponses', functionResponses: responses, event };
  if (event.content && isFinalResponse(event)) return { kind: 'final', text, event };
  return { kind: 'other', event };
}
