import {
  type Content,
  isProviderOptionsNamespace,
  type LlmRequest,
  type Part,
  UnsupportedBuiltInToolError,
} from '@adk/core';
import type {
  JSONObject,
  JSONSchema7,
  LanguageModelV4CallOptions,
  LanguageModelV4Message,
  LanguageModelV4Prompt,
  SharedV4ProviderOptions,
} from '@ai-sdk/provider';

/** Thought signatures that carry an AI SDK part's `providerMetadata`: `ai-sdk:<JSON>`. */
export const METADATA_SIGNATURE_PREFIX = 'ai-sdk:';

export function metadataSignature(metadata: Record<string, unknown> | undefined): string | undefined {
  if (!metadata || Object.keys(metadata).length === 0) return undefined;
  return `${METADATA_SIGNATURE_PREFIX}${JSON.stringify(metadata)}`;
}

/** The provider options a part goes back with: the metadata it came with, namespace for namespace. */
function optionsOf(part: Part): { providerOptions?: SharedV4ProviderOptions } {
  const signature = part.thoughtSignature;
  if (!signature?.startsWith(METADATA_SIGNATURE_PREFIX)) return {};
  try {
    const parsed = JSON.parse(signature.slice(METADATA_SIGNATURE_PREFIX.length)) as unknown;
    return isRecord(parsed) ? { providerOptions: parsed as SharedV4ProviderOptions } : {};
  } catch {
    return {};
  }
}

type ReasoningLevel = NonNullable<LanguageModelV4CallOptions['reasoning']>;

/** An ADK request as AI SDK call options (the language model specification v4). */
export function toCallOptions(request: LlmRequest, signal?: AbortSignal): LanguageModelV4CallOptions {
  const config = request.config;
  const first = request.builtInTools?.[0];
  if (first) throw new UnsupportedBuiltInToolError('AI SDK adapter', first.type, []);
  const options: LanguageModelV4CallOptions = { prompt: toPrompt(request) };
  if (request.tools?.length)
    options.tools = request.tools.map((tool) => {
      const { $schema: _s, ...schema } = tool.parameters ?? { type: 'object', properties: {} };
      return {
        type: 'function' as const,
        name: tool.name,
        ...(tool.description ? { description: tool.description } : {}),
        inputSchema: schema as JSONSchema7,
      };
    });
  const choice = config.toolChoice;
  if (choice !== undefined)
    options.toolChoice =
      typeof choice === 'object' ? { type: 'tool', toolName: choice.name } : { type: choice };
  if (config.responseSchema) {
    const { $schema: _s, ...schema } = config.responseSchema;
    options.responseFormat = { type: 'json', schema: schema as JSONSchema7, name: 'response' };
  } else if (config.responseMimeType === 'application/json') options.responseFormat = { type: 'json' };
  if (config.maxOutputTokens !== undefined) options.maxOutputTokens = config.maxOutputTokens;
  if (config.temperature !== undefined) options.temperature = config.temperature;
  if (config.topP !== undefined) options.topP = config.topP;
  if (config.topK !== undefined) options.topK = config.topK;
  if (config.stopSequences?.length) options.stopSequences = config.stopSequences;
  if (config.presencePenalty !== undefined) options.presencePenalty = config.presencePenalty;
  if (config.frequencyPenalty !== undefined) options.frequencyPenalty = config.frequencyPenalty;
  if (config.seed !== undefined) options.seed = config.seed;
  const thinking = config.thinking;
  if (thinking?.budgetTokens === 0) options.reasoning = 'none';
  else if (thinking?.effort) options.reasoning = thinking.effort satisfies ReasoningLevel;
  // Namespaces map one to one (`anthropic`, `openai`, `google`, `mistral`…); flat fields have no
  // AI SDK counterpart.
  const providerOptions: SharedV4ProviderOptions = {};
  for (const [key, value] of Object.entries(config.providerOptions ?? {}))
    if (isProviderOptionsNamespace(key) && isRecord(value)) providerOptions[key] = value as JSONObject;
  if (Object.keys(providerOptions).length > 0) options.providerOptions = providerOptions;
  if (signal) options.abortSignal = signal;
  return options;
}

function toPrompt(request: LlmRequest): LanguageModelV4Prompt {
  const prompt: LanguageModelV4Prompt = [];
  if (request.systemInstruction) prompt.push({ role: 'system', content: request.systemInstruction });
  const names = new Map<string, string>();
  for (const content of request.contents) {
    if (content.role === 'model') {
      const message = assistantMessage(content, names);
      if (message) prompt.push(message);
    } else prompt.push(...userMessages(content));
  }
  return prompt;
}

function assistantMessage(content: Content, names: Map<string, string>): LanguageModelV4Message | undefined {
  const parts: Extract<LanguageModelV4Message, { role: 'assistant' }>['content'] = [];
  for (const part of content.parts) {
    if (part.functionCall) {
      const { id, name, args } = part.functionCall;
      names.set(id, name);
      parts.push({ type: 'tool-call', toolCallId: id, toolName: name, input: args, ...optionsOf(part) });
    } else if (part.text !== undefined && part.thought) {
      parts.push({ type: 'reasoning', text: part.text, ...optionsOf(part) });
    } else if (part.text !== undefined && part.text !== '') {
      parts.push({ type: 'text', text: part.text, ...optionsOf(part) });
    }
  }
  return parts.length > 0 ? { role: 'assistant', content: parts } : undefined;
}

function userMessages(content: Content): LanguageModelV4Message[] {
  const messages: LanguageModelV4Message[] = [];
  const results: Extract<LanguageModelV4Message, { role: 'tool' }>['content'] = [];
  const parts: Extract<LanguageModelV4Message, { role: 'user' }>['content'] = [];
  for (const part of content.parts) {
    if (part.functionResponse) {
      const { id, name, response } = part.functionResponse;
      results.push({
        type: 'tool-result',
        toolCallId: id,
        toolName: name,
        output: { type: 'json', value: response as JSONObject },
      });
    } else if (part.text !== undefined && !part.thought) {
      if (part.text !== '') parts.push({ type: 'text', text: part.text });
    } else if (part.inlineData) {
      parts.push({
        type: 'file',
        mediaType: part.inlineData.mimeType,
        data: { type: 'data', data: part.inlineData.data },
        ...(part.inlineData.displayName ? { filename: part.inlineData.displayName } : {}),
      });
    } else if (part.fileData) {
      parts.push({
        type: 'file',
        mediaType: part.fileData.mimeType,
        data: { type: 'url', url: new URL(part.fileData.fileUri) },
      });
    }
  }
  if (results.length > 0) messages.push({ role: 'tool', content: results });
  if (parts.length > 0) messages.push({ role: 'user', content: parts });
  return messages;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
