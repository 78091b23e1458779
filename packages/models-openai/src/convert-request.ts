import {
  type Content,
  type LlmRequest,
  type Part,
  providerOptionsFor,
  UnsupportedBuiltInToolError,
  ValidationError,
} from '@adk/core';
import { toStrictSchema } from './schema.js';

export interface OpenAIRequestSettings {
  strictTools: boolean;
  strictJsonSchema: boolean;
  maxTokensField: 'max_tokens' | 'max_completion_tokens';
  systemRole: 'system' | 'developer';
}

type Message = Record<string, unknown> & { role: string };

export function toOpenAIRequestBody(
  request: LlmRequest,
  settings: OpenAIRequestSettings,
): Record<string, unknown> {
  const config = request.config;
  const messages: Message[] = [];
  if (request.systemInstruction)
    messages.push({ role: settings.systemRole, content: request.systemInstruction });
  messages.push(...toOpenAIMessages(request.contents));
  const body: Record<string, unknown> = { model: request.model, messages };
  // Chat Completions has no vendor-run tools (web search and friends live in other OpenAI APIs).
  const builtIn = request.builtInTools?.[0];
  if (builtIn) throw new UnsupportedBuiltInToolError('OpenAI Chat Completions', builtIn.type, []);
  if (request.tools?.length) {
    body.tools = request.tools.map((tool) => {
      const { $schema: _s, ...parameters } = tool.parameters ?? { type: 'object', properties: {} };
      return {
        type: 'function',
        function: {
          name: tool.name,
          ...(tool.description ? { description: tool.description } : {}),
          parameters: settings.strictTools ? toStrictSchema(parameters) : parameters,
          ...(settings.strictTools ? { strict: true } : {}),
        },
      };
    });
  }
  const choice = config.toolChoice;
  if (choice !== undefined)
    body.tool_choice =
      typeof choice === 'object' ? { type: 'function', function: { name: choice.name } } : choice;
  if (config.temperature !== undefined) body.temperature = config.temperature;
  if (config.topP !== undefined) body.top_p = config.topP;
  if (config.maxOutputTokens !== undefined) body[settings.maxTokensField] = config.maxOutputTokens;
  if (config.stopSequences?.length) body.stop = config.stopSequences;
  if (config.presencePenalty !== undefined) body.presence_penalty = config.presencePenalty;
  if (config.frequencyPenalty !== undefined) body.frequency_penalty = config.frequencyPenalty;
  if (config.seed !== undefined) body.seed = config.seed;
  if (config.responseSchema) {
    const { $schema: _s, ...schema } = config.responseSchema;
    body.response_format = {
      type: 'json_schema',
      json_schema: {
        name: 'response',
        schema: settings.strictJsonSchema ? toStrictSchema(schema) : schema,
        ...(settings.strictJsonSchema ? { strict: true } : {}),
      },
    };
  } else if (config.responseMimeType === 'application/json') body.response_format = { type: 'json_object' };
  if (config.thinking?.effort) body.reasoning_effort = config.thinking.effort;
  for (const [key, value] of Object.entries(providerOptionsFor(config.providerOptions, 'openai') ?? {}))
    body[key] = value;
  return body;
}

/**
 * Contents → Chat Completions messages: model → assistant (text + `tool_calls`), function
 * responses → `role: tool` messages with `tool_call_id`, placed before the user's other parts.
 * Every tool call is answered (a missing answer becomes an error message); a tool message without
 * its call becomes user text, since the API rejects it. Thoughts are not sent back.
 */
export function toOpenAIMessages(contents: Content[]): Message[] {
  const raw: Message[] = [];
  for (const content of contents) {
    if (content.role === 'model') {
      const text = content.parts
        .filter((p) => p.text !== undefined && !p.thought)
        .map((p) => p.text)
        .join('');
      const calls = content.parts
        .filter((p) => p.functionCall)
        .map((p) => {
          const call = p.functionCall as NonNullable<Part['functionCall']>;
          return {
            id: call.id,
            type: 'function',
            function: { name: call.name, arguments: JSON.stringify(call.args) },
          };
        });
      if (!text && calls.length === 0) continue;
      raw.push({ role: 'assistant', content: text || null, ...(calls.length ? { tool_calls: calls } : {}) });
      continue;
    }
    const userParts: Record<string, unknown>[] = [];
    for (const part of content.parts) {
      if (part.functionResponse) {
        raw.push({
          role: 'tool',
          tool_call_id: part.functionResponse.id,
          content: JSON.stringify(part.functionResponse.response),
        });
      } else {
        const converted = toUserPart(part);
        if (converted) userParts.push(converted);
      }
    }
    if (userParts.length === 0) continue;
    const onlyText = userParts.every((p) => p.type === 'text');
    raw.push({
      role: 'user',
      content: onlyText ? userParts.map((p) => p.text as string).join('\n') : userParts,
    });
  }

  // Pair tool calls with their answers.
  const out: Message[] = [];
  let pending = new Set<string>();
  const flush = () => {
    for (const id of pending)
      out.push({
        role: 'tool',
        tool_call_id: id,
        content: JSON.stringify({ error: 'No result: the call was not completed.' }),
      });
    pending = new Set();
  };
  for (const message of raw) {
    if (message.role === 'tool') {
      const id = message.tool_call_id as string;
      if (pending.has(id)) {
        pending.delete(id);
        out.push(message);
      } else
        out.push({ role: 'user', content: `Result of an earlier tool call: ${message.content as string}` });
      continue;
    }
    flush();
    out.push(message);
    if (message.role === 'assistant' && Array.isArray(message.tool_calls))
      pending = new Set((message.tool_calls as { id: string }[]).map((c) => c.id));
  }
  flush();
  return out;
}

const AUDIO_FORMATS: Record<string, string> = {
  'audio/wav': 'wav',
  'audio/x-wav': 'wav',
  'audio/mpeg': 'mp3',
  'audio/mp3': 'mp3',
};

function toUserPart(part: Part): Record<string, unknown> | undefined {
  if (part.thought) return undefined;
  if (part.text !== undefined) return part.text === '' ? undefined : { type: 'text', text: part.text };
  if (part.inlineData) {
    const { mimeType, data } = part.inlineData;
    if (mimeType.startsWith('image/'))
      return { type: 'image_url', image_url: { url: `data:${mimeType};base64,${data}` } };
    const audio = AUDIO_FORMATS[mimeType];
    if (audio) return { type: 'input_audio', input_audio: { data, format: audio } };
    if (mimeType === 'application/pdf')
      return {
        type: 'file',
        file: {
          filename: part.inlineData.displayName ?? 'document.pdf',
          file_data: `data:${mimeType};base64,${data}`,
        },
      };
    throw new ValidationError(`OpenAI chat does not accept inline data of type ${mimeType}`);
  }
  if (part.fileData) {
    if (part.fileData.mimeType.startsWith('image/'))
      return { type: 'image_url', image_url: { url: part.fileData.fileUri } };
    throw new ValidationError(`OpenAI chat accepts file URLs only for images, got ${part.fileData.mimeType}`);
  }
  if (part.executableCode) return { type: 'text', text: part.executableCode.code };
  if (part.codeExecutionResult) return { type: 'text', text: part.codeExecutionResult.output ?? '' };
  return undefined;
}
