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

/** Schema prose and formatting, which lenient comparison leaves out (either spelling). */
const SCHEMA_PROSE = new Set([
  'title',
  'default',
  'description',
  'example',
  '$schema',
  '$id',
  '$defs',
  'definitions',
  'additionalProperties',
  'additional_properties',
  'propertyOrdering',
  'property_ordering',
]);

/** genai `Schema` fields as dumped (snake_case) and their JSON Schema names. */
const GENAI_KEYWORDS: Record<string, string> = {
  any_of: 'anyOf',
  max_length: 'maxLength',
  min_length: 'minLength',
  max_items: 'maxItems',
  min_items: 'minItems',
  max_properties: 'maxProperties',
  min_properties: 'minProperties',
};

/** Keywords whose value is a map of names to schemas (the names are kept). */
const SCHEMA_MAPS = new Set(['properties', 'patternProperties']);

/** How deep `$ref`s are followed (a recursive schema stays a `$ref` below this). */
const MAX_REF_DEPTH = 16;

/** The schema a local `$ref` (`#/$defs/X`, `#/definitions/X`, any `#/…` path) points to in `root`. */
function resolveRef(ref: string, root: unknown): unknown {
  if (!ref.startsWith('#/')) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (!isPlainObject(node)) return undefined;
    node = node[key];
  }
  return node;
}

/**
 * A parameter schema in one canonical shape, whichever form it was recorded in (lenient
 * comparison): our JSON Schema (`parameters_json_schema`) or genai's `Schema` (`parameters`: upper-case
 * types, `nullable`, snake_case keywords). Prose and formatting are left out; local `$ref`s are
 * replaced by what they point to; `type: [T, "null"]` and `anyOf: [T, {type: null}]` become `T`
 * with `nullable: true`; type names are lower-case; `required` is sorted; `nullable: false` and
 * an object's empty `properties` are dropped.
 */
export function normalizeSchema(schema: unknown, root: unknown = schema, depth = 0): unknown {
  if (Array.isArray(schema)) return schema.map((s) => normalizeSchema(s, root, depth));
  if (!isPlainObject(schema)) return schema;
  if (typeof schema.$ref === 'string' && depth < MAX_REF_DEPTH) {
    const target = resolveRef(schema.$ref, root);
    if (isPlainObject(target)) {
      const { $ref: _r, ...rest } = schema;
      return normalizeSchema({ ...target, ...rest }, root, depth + 1);
    }
  }
  const out: Record<string, unknown> = {};
  for (const [rawKey, value] of Object.entries(schema)) {
    if (SCHEMA_PROSE.has(rawKey)) continue;
    const key = GENAI_KEYWORDS[rawKey] ?? rawKey;
    if (key === 'type') {
      const types = (Array.isArray(value) ? value : [value]).map((t) =>
        typeof t === 'string' && SCHEMA_TYPES.has(t) ? t.toLowerCase() : t,
      );
      const named = types.filter((t) => t !== 'null');
      if (named.length < types.length && named.length > 0) out.nullable = true;
      out.type = named.length === 1 ? named[0] : named.length === 0 ? 'null' : named.sort();
    } else if (key === 'nullable') {
      if (value === true) out.nullable = true;
    } else if (key === 'required' && Array.isArray(value)) {
      if (value.length > 0) out.required = [...value].sort();
    } else if (SCHEMA_MAPS.has(key) && isPlainObject(value)) {
      const map: Record<string, unknown> = {};
      for (const [name, sub] of Object.entries(value)) map[name] = normalizeSchema(sub, root, depth);
      out[key] = map;
    } else out[key] = normalizeSchema(value, root, depth);
  }
  const anyOf = out.anyOf;
  if (Array.isArray(anyOf)) {
    const others = anyOf.filter((s) => !(isPlainObject(s) && s.type === 'null'));
    if (others.length === 1 && others.length < anyOf.length && isPlainObject(others[0])) {
      delete out.anyOf;
      Object.assign(out, others[0], { nullable: true });
    }
  }
  if (out.type === 'object' && isPlainObject(out.properties) && Object.keys(out.properties).length === 0)
    delete out.properties;
  return out;
}

function normalizeDeclarations(request: Record<string, unknown>): void {
  const config = request.config;
  if (!isPlainObject(config) || !Array.isArray(config.tools)) return;
  for (const tool of config.tools) {
    if (!isPlainObject(tool) || !Array.isArray(tool.function_declarations)) continue;
    tool.function_declarations = tool.function_declarations.map((d: unknown) => {
      if (!isPlainObject(d)) return d;
      // genai's `parameters` and our `parameters_json_schema` are one shape here; a `response`
      // schema (1.x declared one, in either form) is not compared.
      const {
        parameters,
        parameters_json_schema: jsonSchema,
        response: _r,
        response_json_schema: _rj,
        ...rest
      } = d;
      const schema = jsonSchema ?? parameters;
      const out: Record<string, unknown> = { ...rest };
      if (typeof out.description === 'string') out.description = out.description.trim();
      if (out.name === 'transfer_to_agent') delete out.description;
      if (schema !== undefined) out.parameters = normalizeSchema(schema);
      return out;
    });
  }
}

const FOR_CONTEXT = 'For context:';
const QUOTE_BEGIN = '<<<BEGIN_QUOTED_AGENT_CONTENT>>>';
const QUOTE_END = '<<<END_QUOTED_AGENT_CONTENT>>>';

/** One relayed part without its quote markers: `[a] said:\n<<<BEGIN…>>>\nX\n<<<END…>>>` → `[a] said: X`. */
function unquoted(text: string): string {
  return text
    .split(QUOTE_BEGIN)
    .map((piece, i) => (i === 0 ? piece.replace(/\s+$/, '') : piece.replace(/^\s*\n?/, ' ')))
    .join('')
    .split(QUOTE_END)
    .map((piece, i, all) => (i < all.length - 1 ? piece.replace(/\n?$/, '') : piece))
    .join('')
    .trim();
}

/**
 * Another agent's turns relayed as a user content (`For context:` first), fenced as adk-python 2.x
 * sends them (a preamble, then each part between quote markers) or unfenced as 1.x did, reduced
 * to one shape: `For context:`, then each part as `[author] said: …` (or called / returned) with
 * the quote markers stripped.
 */
function normalizeRelayedTurns(request: Record<string, unknown>): void {
  if (!Array.isArray(request.contents)) return;
  for (const content of request.contents) {
    if (!isPlainObject(content) || content.role !== 'user' || !Array.isArray(content.parts)) continue;
    const [first, ...rest] = content.parts;
    if (!isPlainObject(first) || typeof first.text !== 'string' || !first.text.startsWith(FOR_CONTEXT))
      continue;
    content.parts = [
      { text: FOR_CONTEXT },
      ...rest.map((part: unknown) =>
        isPlainObject(part) && typeof part.text === 'string' ? { ...part, text: unquoted(part.text) } : part,
      ),
    ];
  }
}

/**
 * A request ready for comparison: volatile fields out (`live_connect_config`, `config.http_options`,
 * `config.labels`), nulls and empty defaults out; `lenient` also ignores what ADK's own replay
 * ignores across languages and releases — tool descriptions' surrounding whitespace,
 * `transfer_to_agent`'s description, the form and prose of parameter schemas (see
 * `normalizeSchema`), and the fencing of relayed `For context:` turns.
 */
export function comparableRequest(request: unknown, mode: RequestComparison): unknown {
  if (!isPlainObject(request)) return request;
  const out = withoutVolatile(pruneDefaults(structuredClone(request)) as Record<string, unknown>);
  if (mode === 'lenient') {
    normalizeDeclarations(out);
    normalizeRelayedTurns(out);
  }
  return out;
}
