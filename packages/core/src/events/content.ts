import { z } from 'zod';

/** JSON values as persisted (what survives a JSON round trip). */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

export const jsonValueSchema: z.ZodType<JsonValue> = z.lazy(() =>
  z.union([
    z.string(),
    z.number(),
    z.boolean(),
    z.null(),
    z.array(jsonValueSchema),
    z.record(z.string(), jsonValueSchema),
  ]),
);

export const inlineDataSchema = z.object({
  mimeType: z.string(),
  /** base64-encoded bytes */
  data: z.string(),
  displayName: z.string().optional(),
});
export const fileDataSchema = z.object({
  mimeType: z.string(),
  fileUri: z.string(),
  displayName: z.string().optional(),
});
export const functionCallSchema = z.object({
  id: z.string(),
  name: z.string(),
  args: z.record(z.string(), z.unknown()),
  /**
   * Set by a provider when the model's argument text was not valid JSON (the raw text); `args` is
   * then `{}` and the flow answers the call with an error response instead of running the tool.
   */
  invalidArgs: z.string().optional(),
});
export const functionResponseSchema = z.object({
  id: z.string(),
  name: z.string(),
  response: z.record(z.string(), z.unknown()),
});
export const executableCodeSchema = z.object({ language: z.string(), code: z.string() });
export const codeExecutionResultSchema = z.object({ outcome: z.string(), output: z.string().optional() });

/** A Part holds exactly one kind of data (text, inline data, a function call, ...). */
export const partSchema = z.object({
  text: z.string().optional(),
  thought: z.boolean().optional(),
  thoughtSignature: z.string().optional(),
  inlineData: inlineDataSchema.optional(),
  fileData: fileDataSchema.optional(),
  functionCall: functionCallSchema.optional(),
  functionResponse: functionResponseSchema.optional(),
  executableCode: executableCodeSchema.optional(),
  codeExecutionResult: codeExecutionResultSchema.optional(),
});

export const roleSchema = z.enum(['user', 'model']);
export const contentSchema = z.object({
  role: roleSchema,
  parts: z.array(partSchema),
});

export type InlineData = z.infer<typeof inlineDataSchema>;
export type FileData = z.infer<typeof fileDataSchema>;
export type FunctionCall = z.infer<typeof functionCallSchema>;
export type FunctionResponse = z.infer<typeof functionResponseSchema>;
export type ExecutableCode = z.infer<typeof executableCodeSchema>;
export type CodeExecutionResult = z.infer<typeof codeExecutionResultSchema>;
export type Part = z.infer<typeof partSchema>;
export type Role = z.infer<typeof roleSchema>;
export type Content = z.infer<typeof contentSchema>;

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
