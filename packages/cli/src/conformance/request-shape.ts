import type { Content, GenerateConfig, LlmRequest, LlmResponse } from '@adk/core';
import { isPlainObject, pruneDefaults, toCamel, toSnake } from './wire.js';

/** How model requests are compared during replay. */
export type RequestComparison = 'strict' | 'lenient';

/** Vendor-run tools as ADK's `types.Tool` fields. */
const BUILT_IN_TOOL_FIELDS: Record<string, string> = {
  googleSearch: 'google_search',
  googleSearchRetrieval: 'google_search_retrieval',
  urlContext: 'url_context',
  codeExecution: 'code_execution',
  googleMaps: 'google_maps',
  enterpriseWebSearch: 'enterprise_web_search',
};

/** Function call ids ADK generates on the client (and leaves out of the next request). */
const CLIENT_CALL_ID = /^adk-/;

function withoutClientCallIds(contents: Content[]): unknown[] {
  return contents.map((content) => ({
    ...content,
    parts: content.parts.map((part) => {
      if (part.functionCall && CLIENT_CALL_ID.test(part.functionCall.id)) {
        const { id: _id, ...call } = part.functionCall;
        return { ...part, functionCall: call };
      }
      if (part.functionResponse && CLIENT_CALL_ID.test(part.functionResponse.id)) {
        const { id: _id, ...response } = part.functionResponse;
        return { ...part, functionResponse: response };
      }
      return part;
    }),
  }));
}

function adkConfig(request: LlmRequest): Record<string, unknown> {
  const c: GenerateConfig = request.config ?? {};
  const config: Record<string, unknown> = {};
  if (request.systemInstruction) config.system_instruction = request.systemInstruction;
  const plain = {
    temperature: c.temperature,
    top_p: c.topP,
    top_k: c.topK,
    max_output_tokens: c.maxOutputTokens,
    stop_sequences: c.stopSequences,
    presence_penalty: c.presencePenalty,
    frequency_penalty: c.frequencyPenalty,
    seed: c.seed,
    response_mime_type: c.responseMimeType,
    response_json_schema: c.responseSchema,
    labels: c.labels,
  };
  for (const [key, value] of Object.entries(plain)) if (value !== undefined) config[key] = value;
  if (c.thinking) {
    const thinking: Record<string, unknown> = {};
    if (c.thinking.includeThoughts !== undefined) thinking.include_thoughts = c.thinking.includeThoughts;
    if (c.thinking.budgetTokens !== undefined) thinking.thinking_budget = c.thinking.budgetTokens;
    if (c.thinking.effort !== undefined) thinking.thinking_level = c.thinking.effort.toUpperCase();
    config.thinking_config = thinking;
  }
  if (c.toolChoice !== undefined) {
    const choice = c.toolChoice;
    config.tool_config = {
      function_calling_config:
        typeof choice === 'object'
          ? { mode: 'ANY', allowed_function_names: [choice.name] }
          : { mode: choice === 'required' ? 'ANY' : choice.toUpperCase() },
    };
  }
  const tools: Record<string, unknown>[] = [];
  if (request.tools && request.tools.length > 0) {
    tools.push({
      function_declarations: request.tools.map((d) => ({
        name: d.name,
        ...(d.description ? { description: d.description } : {}),
        ...(d.parameters ? { parameters_json_schema: structuredClone(d.parameters) } : {}),
        ...(d.response ? { response_json_schema: structuredClone(d.response) } : {}),
        ...(d.behavior ? { behavior: d.behavior } : {}),
      })),
    });
  }
  for (const builtIn of request.builtInTools ?? []) {
    const field =
      BUILT_IN_TOOL_FIELDS[builtIn.type] ?? builtIn.type.replace(/[A-Z]/g, (x) => `_${x.toLowerCase()}`);
    tools.push({ [field]: structuredClone(builtIn.config ?? {}) });
  }
  if (tools.length > 0) config.tools = tools;
  return config;
}

/**
 * Our model request in adk-python's `LlmRequest` shape (snake_case): `model`, `contents` (client
 * function-call ids left out, as ADK leaves them out), and `config` with `system_instruction`, the
 * generation settings, `tools[].function_declarations` (JSON Schema as `parameters_json_schema`)
 * and the vendor-run tools. Fields with no ADK counterpart (`providerOptions`, `live`, the
 * separate `staticInstruction`, which `system_instruction` already starts with) are left out.
 */
export function toAdkRequest(request: LlmRequest): Record<string, unknown> {
  const out: Record<string, unknown> = { model: request.model };
  if (request.contents.length > 0) out.contents = toSnake(withoutClientCallIds(request.contents));
  const config = adkConfig(request);
  if (Object.keys(config).length > 0) out.config = config;
  return out;
}

/** Our model response in adk-python's `LlmResponse` shape. */
export function toAdkResponse(response: LlmResponse): Record<string, unknown> {
  return pruneDefaults(toSnake(structuredClone(response))) as Record<string, unknown>;
}

/** A recorded `LlmResponse` as ours. */
export function fromAdkResponse(response: Record<string, unknown>): LlmResponse {
  return toCamel(response) as LlmResponse;
}

/** Fields that differ between runs whatever the runtime does (ADK leaves them out too). */
function withoutVolatile(request: Record<string, unknown>): Record<string, unknown> {
  const { live_connect_config: _l, ...rest } = request;
  if (isPlainObject(rest.config)) {
    const { http_options: _h, labels: _b, ...config } = rest.config;
    rest.config = config;
    if (Object.keys(config).length === 0) delete rest.config;
  }
  return rest;
}

const SCHEMA_TYPES = new Set(['STRING', 'NUMBER', 'OBJECT', 'ARRAY', 'INTEGER', 'BOOLEAN', 'NULL']);

/** A JSON Schema without its prose and formatting (lenient comparison). */
function normalizeSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(normalizeSchema);
  if (!isPlainObject(schema)) return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (['title', 'default', 'description', '$schema', 'additionalProperties'].includes(key)) continue;
    if (key === 'type' && typeof value === 'string' && SCHEMA_TYPES.has(value))
      out[key] = value.toLowerCase();
    else out[key] = normalizeSchema(value);
  }
  const anyOf = out.anyOf;
  if (Array.isArray(anyOf)) {
    const others = anyOf.filter((s) => !(isPlainObject(s) && s.type === 'null'));
    if (others.length === 1 && others.length < anyOf.length && isPlainObject(others[0])) {
      delete out.anyOf;
      Object.assign(out, others[0], { nullable: true });
    }
  }
  return out;
}

function normalizeDeclarations(request: Record<string, unknown>): void {
  const config = request.config;
  if (!isPlainObject(config) || !Array.isArray(config.tools)) return;
  for (const tool of config.tools) {
    if (!isPlainObject(tool) || !Array.isArray(tool.function_declarations)) continue;
    tool.function_declarations = tool.function_declarations.map((d: unknown) => {
      if (!isPlainObject(d)) return d;
      const { parameters, response: _r, response_json_schema: _rj, ...rest } = d;
      const schema = rest.parameters_json_schema ?? parameters;
      const out: Record<string, unknown> = { ...rest };
      if (typeof out.description === 'string') out.description = out.description.trim();
      if (out.name === 'transfer_to_agent') delete out.description;
      if (schema !== undefined) out.parameters_json_schema = normalizeSchema(schema);
      return out;
    });
  }
}

/**
 * A request ready for comparison: volatile fields out (`live_connect_config`, `config.http_options`,
 * `config.labels`), nulls and empty defaults out; `lenient` also ignores what ADK's own replay
 * ignores across languages — tool descriptions' surrounding whitespace, `transfer_to_agent`'s
 * description, and the prose and formatting of parameter schemas.
 */
export function comparableRequest(request: unknown, mode: RequestComparison): unknown {
  if (!isPlainObject(request)) return request;
  const out = withoutVolatile(pruneDefaults(structuredClone(request)) as Record<string, unknown>);
  if (mode === 'lenient') normalizeDeclarations(out);
  return out;
}
