/** JSON values as persisted (what survives a JSON round trip). */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

export type InlineData = {
  mimeType: string;
  /** base64-encoded bytes */
  data: string;
  displayName?: string;
};

export type FileData = {
  mimeType: string;
  fileUri: string;
  displayName?: string;
};

export type FunctionCall = {
  /** Unique per call; the flow generates one when a vendor sends none. */
  id: string;
  name: string;
  args: Record<string, unknown>;
  /**
   * Set by a provider when the model's argument text was not valid JSON (the raw text); `args` is
   * then `{}` and the flow answers the call with an error response instead of running the tool.
   */
  invalidArgs?: string;
};

/** When a live model takes up a non-blocking call's response (Gemini Live `scheduling`). */
export type FunctionResponseScheduling = 'SILENT' | 'WHEN_IDLE' | 'INTERRUPT';

export type FunctionResponse = {
  id: string;
  name: string;
  response: Record<string, unknown>;
  /** Live sessions: more responses to this call follow (a streaming tool's chunk). */
  willContinue?: boolean;
  /** Live sessions: when the model takes this response up (non-blocking and streaming tools). */
  scheduling?: FunctionResponseScheduling;
};

export type ExecutableCode = {
  language: string;
  code: string;
};

export type CodeExecutionResult = {
  outcome: string;
  output?: string;
};

/** A call of a vendor's server-side tool (e.g. Claude's web_search), run by the vendor, not by us. */
export type ServerToolUse = {
  id: string;
  name: string;
  input: Record<string, unknown>;
};

/** The vendor's result of a server-side tool call, kept verbatim so the turn can be sent back. */
export type ServerToolResult = {
  toolUseId: string;
  /** The vendor's block type, e.g. 'web_search_tool_result'. */
  type: string;
  content: unknown;
};

/** A Part holds exactly one kind of data (text, inline data, a function call, ...). */
export type Part = {
  text?: string;
  /** The text is the model's thought, not its answer. */
  thought?: boolean;
  /** Opaque vendor signature of a thought; must be sent back unchanged. */
  thoughtSignature?: string;
  inlineData?: InlineData;
  fileData?: FileData;
  functionCall?: FunctionCall;
  functionResponse?: FunctionResponse;
  executableCode?: ExecutableCode;
  codeExecutionResult?: CodeExecutionResult;
  serverToolUse?: ServerToolUse;
  serverToolResult?: ServerToolResult;
};

export type Role = 'user' | 'model';

/** A turn: the Gemini REST shape in camelCase, which is also the persisted JSON shape. */
export type Content = {
  role: Role;
  parts: Part[];
};

/** Builds a user message from text (and optionally more parts). */
export function userContent(text: string, ...parts: Part[]): Content {
  return { role: 'user', parts: [{ text }, ...parts] };
}

export function modelContent(text: string): Content {
  return { role: 'model', parts: [{ text }] };
}

/** The concatenated non-thought text of a content, or '' when there is none. */
export function contentText(content: Content | undefined): string {
  if (!content) return '';
  let out = '';
  for (const part of content.parts) if (part.text !== undefined && !part.thought) out += part.text;
  return out;
}

export function functionCallsOf(content: Content | undefined): FunctionCall[] {
  const calls: FunctionCall[] = [];
  if (content) for (const part of content.parts) if (part.functionCall) calls.push(part.functionCall);
  return calls;
}

export function functionResponsesOf(content: Content | undefined): FunctionResponse[] {
  const responses: FunctionResponse[] = [];
  if (content)
    for (const part of content.parts) if (part.functionResponse) responses.push(part.functionResponse);
  return responses;
}
