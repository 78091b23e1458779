import {
  type BuiltInToolSpec,
  type Content,
  type GenerateConfig,
  type LlmRequest,
  type Part,
  providerOptionsFor,
  UnsupportedBuiltInToolError,
} from '@adk/core';
import { toGeminiParameters, toGeminiSchema } from './schema.js';

/** Ids we generated ourselves (core's `newFunctionCallId`) mean nothing to Gemini; only vendor ids go back. */
function vendorId(id: string): string | undefined {
  return id.startsWith('adk-') ? undefined : id;
}

export function toGeminiPart(part: Part): Record<string, unknown> | undefined {
  const out: Record<string, unknown> = {};
  if (part.text !== undefined) {
    out.text = part.text;
    if (part.thought) out.thought = true;
  } else if (part.inlineData) {
    out.inlineData = { mimeType: part.inlineData.mimeType, data: part.inlineData.data };
  } else if (part.fileData) {
    out.fileData = { mimeType: part.fileData.mimeType, fileUri: part.fileData.fileUri };
  } else if (part.functionCall) {
    const { id, name, args } = part.functionCall;
    const vid = vendorId(id);
    out.functionCall = { ...(vid ? { id: vid } : {}), name, args };
  } else if (part.functionResponse) {
    const { id, name, response } = part.functionResponse;
    const vid = vendorId(id);
    out.functionResponse = { ...(vid ? { id: vid } : {}), name, response };
  } else if (part.executableCode) {
    out.executableCode = part.executableCode;
  } else if (part.codeExecutionResult) {
    out.codeExecutionResult = part.codeExecutionResult;
  } else if (part.thoughtSignature === undefined) {
    return undefined;
  }
  // Signatures go back on the very part they came on (text, thought or function call).
  if (part.thoughtSignature !== undefined) out.thoughtSignature = part.thoughtSignature;
  return out;
}

export function toGeminiContents(contents: Content[]): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const content of contents) {
    const parts = content.parts.map(toGeminiPart).filter((p) => p !== undefined);
    if (parts.length === 0) continue;
    out.push({ role: content.role, parts });
  }
  return out;
}

export function toGenerationConfig(config: GenerateConfig): Record<string, unknown> | undefined {
  const g: Record<string, unknown> = {};
  if (config.temperature !== undefined) g.temperature = config.temperature;
  if (config.topP !== undefined) g.topP = config.topP;
  if (config.topK !== undefined) g.topK = config.topK;
  if (config.maxOutputTokens !== undefined) g.maxOutputTokens = config.maxOutputTokens;
  if (config.stopSequences?.length) g.stopSequences = config.stopSequences;
  if (config.presencePenalty !== undefined) g.presencePenalty = config.presencePenalty;
  if (config.frequencyPenalty !== undefined) g.frequencyPenalty = config.frequencyPenalty;
  if (config.seed !== undefined) g.seed = config.seed;
  if (config.responseSchema) {
    g.responseMimeType = config.responseMimeType ?? 'application/json';
    g.responseSchema = toGeminiSchema(config.responseSchema);
  } else if (config.responseMimeType) g.responseMimeType = config.responseMimeType;
  const thinking = config.thinking;
  if (thinking) {
    const t: Record<string, unknown> = {};
    if (thinking.includeThoughts !== undefined) t.includeThoughts = thinking.includeThoughts;
    if (thinking.budgetTokens !== undefined) t.thinkingBudget = thinking.budgetTokens;
    if (thinking.effort !== undefined) t.thinkingLevel = thinking.effort;
    if (Object.keys(t).length > 0) g.thinkingConfig = t;
  }
  return Object.keys(g).length > 0 ? g : undefined;
}

export function toGeminiRequestBody(
  request: LlmRequest,
  extra: { safetySettings?: unknown[]; labels?: boolean; streamFunctionCallArguments?: boolean },
): Record<string, unknown> {
  const body: Record<string, unknown> = { contents: toGeminiContents(request.contents) };
  if (request.systemInstruction) body.systemInstruction = { parts: [{ text: request.systemInstruction }] };
  const tools: Record<string, unknown>[] = [];
  if (request.tools?.length) {
    tools.push({
      functionDeclarations: request.tools.map((tool) => {
        const parameters = toGeminiParameters(tool.parameters);
        return {
          name: tool.name,
          ...(tool.description ? { description: tool.description } : {}),
          ...(parameters ? { parameters } : {}),
        };
      }),
    });
  }
  for (const builtIn of request.builtInTools ?? []) tools.push(toGeminiBuiltIn(builtIn));
  if (tools.length > 0) body.tools = tools;
  const choice = request.config.toolChoice;
  const functionCallingConfig: Record<string, unknown> = {};
  if (choice !== undefined) {
    Object.assign(
      functionCallingConfig,
      typeof choice === 'object'
        ? { mode: 'ANY', allowedFunctionNames: [choice.name] }
        : { mode: choice === 'required' ? 'ANY' : choice === 'none' ? 'NONE' : 'AUTO' },
    );
  }
  if (extra.streamFunctionCallArguments && request.tools?.length)
    functionCallingConfig.streamFunctionCallArguments = true;
  if (Object.keys(functionCallingConfig).length > 0) body.toolConfig = { functionCallingConfig };
  const generationConfig = toGenerationConfig(request.config);
  if (generationConfig) body.generationConfig = generationConfig;
  if (extra.safetySettings?.length) body.safetySettings = extra.safetySettings;
  if (extra.labels && request.config.labels && Object.keys(request.config.labels).length > 0)
    body.labels = request.config.labels;
  return mergeProviderOptions(body, providerOptionsFor(request.config.providerOptions, 'gemini'));
}

/** The built-in tools Gemini declares (as tool entries next to functionDeclarations). */
export const GEMINI_BUILT_IN_TOOLS = ['googleSearch', 'urlContext', 'codeExecution'] as const;

function toGeminiBuiltIn(spec: BuiltInToolSpec): Record<string, unknown> {
  if (!(GEMINI_BUILT_IN_TOOLS as readonly string[]).includes(spec.type))
    throw new UnsupportedBuiltInToolError('Gemini', spec.type, GEMINI_BUILT_IN_TOOLS);
  return { [spec.type]: spec.config ?? {} };
}

/**
 * Vendor fields from `providerOptions.gemini`; objects (e.g. generationConfig) are merged one level deep
 * and `tools` entries are added to ours (never replace the function declarations).
 */
function mergeProviderOptions(
  body: Record<string, unknown>,
  options: Record<string, unknown> | undefined,
): Record<string, unknown> {
  if (!options) return body;
  for (const [key, value] of Object.entries(options)) {
    const current = body[key];
    if (Array.isArray(current) && Array.isArray(value)) body[key] = [...current, ...value];
    else body[key] = isRecord(current) && isRecord(value) ? { ...current, ...value } : value;
  }
  return body;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
