import {
  type BuiltInToolSpec,
  type Content,
  type LlmRequest,
  type Part,
  providerOptionsFor,
  UnsupportedBuiltInToolError,
} from '@adk/core';

type Step = Record<string, unknown>;

/** Built-in tools the Interactions API runs, by built-in kind. */
export const INTERACTIONS_BUILT_IN_TOOLS: Record<string, string> = {
  googleSearch: 'google_search',
  urlContext: 'url_context',
  codeExecution: 'code_execution',
  fileSearch: 'file_search',
};

function toTool(spec: BuiltInToolSpec): Step {
  const type = INTERACTIONS_BUILT_IN_TOOLS[spec.type];
  if (!type)
    throw new UnsupportedBuiltInToolError(
      'Gemini Interactions',
      spec.type,
      Object.keys(INTERACTIONS_BUILT_IN_TOOLS),
    );
  return { type, ...spec.config };
}

export function toInteractionBody(
  request: LlmRequest,
  settings: { store: boolean; previousInteractionId?: string },
): Step {
  const config = request.config;
  const body: Step = { model: request.model, input: toSteps(request.contents) };
  if (request.systemInstruction) body.system_instruction = request.systemInstruction;
  const tools: Step[] = (request.tools ?? []).map((tool) => {
    const { $schema: _s, ...parameters } = tool.parameters ?? { type: 'object', properties: {} };
    return {
      type: 'function',
      name: tool.name,
      ...(tool.description ? { description: tool.description } : {}),
      parameters,
    };
  });
  for (const spec of request.builtInTools ?? []) tools.push(toTool(spec));
  if (tools.length > 0) body.tools = tools;
  const generation: Step = {};
  if (config.maxOutputTokens !== undefined) generation.max_output_tokens = config.maxOutputTokens;
  if (config.seed !== undefined) generation.seed = config.seed;
  if (config.stopSequences?.length) generation.stop_sequences = config.stopSequences;
  if (config.thinking?.effort) generation.thinking_level = config.thinking.effort;
  if (config.thinking?.includeThoughts !== undefined)
    generation.thinking_summaries = config.thinking.includeThoughts ? 'auto' : 'none';
  const choice = config.toolChoice;
  if (choice !== undefined)
    generation.tool_choice =
      typeof choice === 'object'
        ? { allowed_tools: { mode: 'any', tools: [choice.name] } }
        : choice === 'required'
          ? 'any'
          : choice;
  if (Object.keys(generation).length > 0) body.generation_config = generation;
  if (config.responseSchema) {
    const { $schema: _s, ...schema } = config.responseSchema;
    body.response_format = { type: 'text', mime_type: 'application/json', schema };
  } else if (config.responseMimeType === 'application/json')
    body.response_format = { type: 'text', mime_type: 'application/json' };
  body.store = settings.store;
  if (settings.previousInteractionId) body.previous_interaction_id = settings.previousInteractionId;
  for (const [key, value] of Object.entries(providerOptionsFor(config.providerOptions, 'gemini') ?? {})) {
    const current = body[key];
    body[key] =
      key === 'tools' && Array.isArray(current) && Array.isArray(value) ? [...current, ...value] : value;
  }
  return body;
}

/** Contents → input steps: user turns as `user_input`, model turns as the steps they came from. */
export function toSteps(contents: Content[]): Step[] {
  const steps: Step[] = [];
  for (const content of contents) {
    if (content.role === 'model') steps.push(...modelSteps(content.parts));
    else steps.push(...userSteps(content.parts));
  }
  return steps;
}

function modelSteps(parts: Part[]): Step[] {
  const steps: Step[] = [];
  let output: Step[] | undefined;
  for (const part of parts) {
    if (part.text !== undefined && !part.thought) {
      if (part.text === '') continue;
      if (!output) {
        output = [];
        steps.push({ type: 'model_output', content: output });
      }
      output.push({ type: 'text', text: part.text });
      continue;
    }
    output = undefined;
    if (part.thought) {
      if (!part.thoughtSignature) continue;
      steps.push({
        type: 'thought',
        signature: part.thoughtSignature,
        ...(part.text ? { summary: [{ type: 'text', text: part.text }] } : {}),
      });
    } else if (part.functionCall) {
      const { id, name, args } = part.functionCall;
      steps.push({ type: 'function_call', id, name, arguments: args });
    } else if (part.serverToolResult && isRecord(part.serverToolResult.content)) {
      // Built-in tool steps (google_search_call, google_search_result, …) go back as Gemini sent them.
      steps.push(part.serverToolResult.content);
    }
  }
  return steps;
}

function userSteps(parts: Part[]): Step[] {
  const steps: Step[] = [];
  let content: Step[] | undefined;
  for (const part of parts) {
    if (part.functionResponse) {
      content = undefined;
      const { id, name, response } = part.functionResponse;
      const isError = response.error !== undefined && Object.keys(response).length === 1;
      steps.push({
        type: 'function_result',
        call_id: id,
        name,
        result: response,
        ...(isError ? { is_error: true } : {}),
      });
      continue;
    }
    const converted = toContent(part);
    if (!converted) continue;
    if (!content) {
      content = [];
      steps.push({ type: 'user_input', content });
    }
    content.push(converted);
  }
  return steps;
}

const KINDS = ['image', 'audio', 'video'] as const;

function toContent(part: Part): Step | undefined {
  if (part.thought) return undefined;
  if (part.text !== undefined) return part.text === '' ? undefined : { type: 'text', text: part.text };
  const media = part.inlineData ?? part.fileData;
  if (!media) return undefined;
  const kind = KINDS.find((k) => media.mimeType.startsWith(`${k}/`)) ?? 'document';
  return {
    type: kind,
    mime_type: media.mimeType,
    ...(part.inlineData ? { data: part.inlineData.data } : { uri: part.fileData?.fileUri }),
  };
}

function isRecord(value: unknown): value is Step {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
