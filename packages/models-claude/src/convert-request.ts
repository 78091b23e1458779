import {
  type BuiltInToolSpec,
  type Content,
  type FunctionResponse,
  type JsonSchema,
  type LlmRequest,
  type Part,
  providerOptionsFor,
  type ThinkingConfig,
  UnsupportedBuiltInToolError,
  ValidationError,
} from '@adk/core';
import { type ClaudeEffort, type ClaudeModelProfile, claudeModelProfile } from './models.js';

/** Thought parts carrying this signature prefix hold Claude `redacted_thinking` data. */
export const REDACTED_THINKING_PREFIX = 'anthropic-redacted:';
/** The tool used to get JSON of a response schema (Claude has no JSON mode). */
export const JSON_TOOL_NAME = 'json_response';

export interface CacheControlOptions {
  /** Cache lifetime; '1h' needs the extended-cache-ttl beta on some accounts. Default '5m'. */
  ttl?: '5m' | '1h';
}

/** Claude's context editing (`context_management`, beta `context-management-2025-06-27`). */
export interface ClaudeContextEditing {
  /**
   * `clear_tool_uses_20250919`: once the prompt passes `trigger` input tokens, the oldest tool
   * results are replaced by a placeholder, keeping the newest `keep` tool uses.
   */
  clearToolUses?:
    | true
    | {
        trigger?: number;
        keep?: number;
        clearAtLeast?: number;
        excludeTools?: string[];
        clearToolInputs?: boolean;
      };
  /** `clear_thinking_20251015`: thinking blocks of earlier turns are cleared, keeping the newest `keepTurns`. */
  clearThinking?: true | { keepTurns?: number | 'all' };
}

/** The beta flag context editing needs. */
export const CONTEXT_MANAGEMENT_BETA = 'context-management-2025-06-27';

export interface ClaudeRequestSettings {
  maxTokens: number;
  /** What the model accepts (default: looked up from the model name). */
  profile?: ClaudeModelProfile;
  /** Documents (PDF, text) are sent with `citations: {enabled: true}`. */
  citations?: boolean;
  contextEditing?: ClaudeContextEditing;
  /** Adds `cache_control` breakpoints on the system prompt, the last tool and the last message. */
  cache?: boolean | CacheControlOptions;
}

type Block = Record<string, unknown>;
interface Message {
  role: 'user' | 'assistant';
  content: Block[];
}

export function toClaudeRequestBody(
  request: LlmRequest,
  settings: ClaudeRequestSettings,
): Record<string, unknown> {
  const config = request.config;
  const profile = settings.profile ?? claudeModelProfile(request.model);
  const structured = Boolean(config.responseSchema) && profile.structuredOutputs;
  const cacheControl = settings.cache
    ? {
        type: 'ephemeral',
        ...(typeof settings.cache === 'object' && settings.cache.ttl ? { ttl: settings.cache.ttl } : {}),
      }
    : undefined;
  const body: Record<string, unknown> = { model: request.model, max_tokens: settings.maxTokens };

  let system = request.systemInstruction ?? '';
  const tools: Block[] = (request.tools ?? []).map((tool) => ({
    name: tool.name,
    ...(tool.description ? { description: tool.description } : {}),
    input_schema: toClaudeInputSchema(tool.parameters),
  }));
  let toolChoice: Block | undefined;
  const choice = config.toolChoice;
  if (choice !== undefined) {
    toolChoice =
      typeof choice === 'object'
        ? { type: 'tool', name: choice.name }
        : { type: choice === 'required' ? 'any' : choice };
  }
  const outputConfig: Record<string, unknown> = {};
  if (structured && config.responseSchema) {
    // GA structured outputs: the answer is JSON text of the schema, with or without tools.
    outputConfig.format = { type: 'json_schema', schema: toClaudeOutputSchema(config.responseSchema) };
  } else if (config.responseSchema && tools.length === 0) {
    // Older models have no JSON mode: with a schema and no other tools, force a tool whose input is the answer.
    tools.push({
      name: JSON_TOOL_NAME,
      description: 'Respond with a JSON object of this shape.',
      input_schema: toClaudeInputSchema(config.responseSchema),
    });
    toolChoice = { type: 'tool', name: JSON_TOOL_NAME };
  } else if (config.responseSchema || config.responseMimeType === 'application/json') {
    const shape = config.responseSchema
      ? ` matching this JSON Schema: ${JSON.stringify(config.responseSchema)}`
      : '';
    system = `${system}${system ? '\n\n' : ''}Respond only with a JSON value${shape}.`;
  }

  const staticText = request.staticInstruction;
  if (staticText && system.startsWith(staticText)) {
    // The agent's static instruction is its own block with a cache breakpoint: the prefix Claude
    // caches is then stable however the rest of the system prompt changes.
    const rest = system.slice(staticText.length).replace(/^\n\n/, '');
    body.system = [
      { type: 'text', text: staticText, cache_control: cacheControl ?? { type: 'ephemeral' } },
      ...(rest
        ? [{ type: 'text', text: rest, ...(cacheControl ? { cache_control: cacheControl } : {}) }]
        : []),
    ];
  } else if (system)
    body.system = cacheControl ? [{ type: 'text', text: system, cache_control: cacheControl }] : system;
  body.messages = toClaudeMessages(request.contents, settings.citations === true);
  if (cacheControl) {
    const lastMessage = (body.messages as Message[]).at(-1);
    const lastBlock = lastMessage?.content.at(-1);
    if (lastBlock) lastBlock.cache_control = cacheControl;
    const lastTool = tools.at(-1);
    if (lastTool) lastTool.cache_control = cacheControl;
  }
  for (const builtIn of request.builtInTools ?? []) tools.push(toClaudeServerTool(builtIn));
  if (tools.length > 0) body.tools = tools;
  if (toolChoice) body.tool_choice = toolChoice;
  const { thinking, effort } = thinkingFields(config.thinking, profile);
  if (thinking) body.thinking = thinking;
  // Claude requires max_tokens above the thinking budget.
  if (thinking?.type === 'enabled' && settings.maxTokens <= (thinking.budget_tokens as number))
    body.max_tokens = (thinking.budget_tokens as number) + 4096;
  if (effort) outputConfig.effort = effort;
  if (Object.keys(outputConfig).length > 0) body.output_config = outputConfig;
  Object.assign(
    body,
    samplingFields(config, profile, thinking !== undefined && thinking.type !== 'disabled'),
  );
  if (config.stopSequences?.length) body.stop_sequences = config.stopSequences;
  if (settings.contextEditing) body.context_management = toContextManagement(settings.contextEditing);
  for (const [key, value] of Object.entries(providerOptionsFor(config.providerOptions, 'anthropic') ?? {})) {
    // Extra tools are added to ours, never replacing the function tools; output_config is merged.
    const current = body[key];
    if (key === 'tools' && Array.isArray(current) && Array.isArray(value)) body[key] = [...current, ...value];
    else if (key === 'output_config' && isRecord(current) && isRecord(value))
      body[key] = { ...current, ...value };
    else body[key] = value;
  }
  return body;
}

const EFFORT_ORDER: readonly ClaudeEffort[] = ['low', 'medium', 'high', 'xhigh', 'max'];
/** Token budgets for an effort level on models that only take budgets. */
const EFFORT_BUDGETS: Record<NonNullable<ThinkingConfig['effort']>, number> = {
  minimal: 1024,
  low: 2048,
  medium: 8192,
  high: 16384,
};

/**
 * `thinking` and `output_config.effort` as the model takes them: adaptive-only models get
 * `{type: 'adaptive'}` (a budget, or asking for thoughts, turns thinking on; a zero budget leaves it
 * off, since they refuse `disabled`); budget models get `enabled`/`disabled`, an effort level
 * becoming a budget; effort goes to `output_config` only where the model accepts it.
 */
export function thinkingFields(
  config: ThinkingConfig | undefined,
  profile: ClaudeModelProfile,
): { thinking?: Block; effort?: ClaudeEffort } {
  if (!config) return {};
  const out: { thinking?: Block; effort?: ClaudeEffort } = {};
  if (config.effort && profile.effort.length > 0) {
    const wanted: ClaudeEffort = config.effort === 'minimal' ? 'low' : config.effort;
    // The highest level the model accepts that is not above the one asked for.
    const at = EFFORT_ORDER.indexOf(wanted);
    out.effort = [...profile.effort].reverse().find((level) => EFFORT_ORDER.indexOf(level) <= at) ?? 'low';
  }
  const budget = config.budgetTokens;
  if (budget === 0) {
    if (profile.budgetThinking) out.thinking = { type: 'disabled' };
    return out;
  }
  const wants =
    (budget !== undefined && budget > 0) || config.effort !== undefined || config.includeThoughts === true;
  if (!wants) return out;
  if (
    profile.budgetThinking &&
    budget !== undefined &&
    budget > 0 &&
    !(profile.adaptiveThinking && config.effort)
  )
    out.thinking = { type: 'enabled', budget_tokens: budget };
  else if (profile.adaptiveThinking) out.thinking = { type: 'adaptive' };
  else if (profile.budgetThinking)
    out.thinking = { type: 'enabled', budget_tokens: EFFORT_BUDGETS[config.effort ?? 'medium'] };
  return out;
}

/**
 * Sampling parameters the model takes: none on models that refuse them; temperature or top_p (not
 * both) where only one is allowed; with thinking on, no top_k, temperature only at 1 and top_p only
 * from 0.95, as Claude requires.
 */
function samplingFields(
  config: LlmRequest['config'],
  profile: ClaudeModelProfile,
  thinking: boolean,
): Record<string, unknown> {
  if (profile.sampling === 'none') return {};
  const out: Record<string, unknown> = {};
  if (config.temperature !== undefined && (!thinking || config.temperature === 1))
    out.temperature = config.temperature;
  if (config.topP !== undefined && (!thinking || config.topP >= 0.95)) out.top_p = config.topP;
  if (config.topK !== undefined && !thinking) out.top_k = config.topK;
  if (profile.sampling === 'one' && out.temperature !== undefined && out.top_p !== undefined)
    delete out.top_p;
  return out;
}

/** The `context_management` request field for the given edits. */
export function toContextManagement(editing: ClaudeContextEditing): Block {
  const edits: Block[] = [];
  // Claude requires clear_thinking first.
  if (editing.clearThinking) {
    const keep = editing.clearThinking === true ? undefined : editing.clearThinking.keepTurns;
    edits.push({
      type: 'clear_thinking_20251015',
      ...(keep === 'all'
        ? { keep: 'all' }
        : keep !== undefined
          ? { keep: { type: 'thinking_turns', value: keep } }
          : {}),
    });
  }
  if (editing.clearToolUses) {
    const o = editing.clearToolUses === true ? {} : editing.clearToolUses;
    edits.push({
      type: 'clear_tool_uses_20250919',
      ...(o.trigger !== undefined ? { trigger: { type: 'input_tokens', value: o.trigger } } : {}),
      ...(o.keep !== undefined ? { keep: { type: 'tool_uses', value: o.keep } } : {}),
      ...(o.clearAtLeast !== undefined
        ? { clear_at_least: { type: 'input_tokens', value: o.clearAtLeast } }
        : {}),
      ...(o.excludeTools?.length ? { exclude_tools: o.excludeTools } : {}),
      ...(o.clearToolInputs !== undefined ? { clear_tool_inputs: o.clearToolInputs } : {}),
    });
  }
  return { edits };
}

/**
 * A response schema as structured outputs take it: no `$schema`, and every object closed
 * (`additionalProperties: false`), which Claude requires.
 */
export function toClaudeOutputSchema(schema: JsonSchema): JsonSchema {
  const { $schema: _ignored, ...rest } = schema;
  return closeObjects(rest) as JsonSchema;
}

function closeObjects(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(closeObjects);
  if (!isRecord(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) out[key] = closeObjects(child);
  if ((out.type === 'object' || out.properties !== undefined) && out.additionalProperties === undefined)
    out.additionalProperties = false;
  return out;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Claude's server tools by built-in kind: the versioned `type` (GA, no beta header) and the
 * `name` Claude requires. A built-in's `config.version` picks another dated version.
 */
export const CLAUDE_SERVER_TOOLS: Record<string, { type: string; name: string }> = {
  webSearch: { type: 'web_search_20250305', name: 'web_search' },
  webFetch: { type: 'web_fetch_20250910', name: 'web_fetch' },
  codeExecution: { type: 'code_execution_20250825', name: 'code_execution' },
};

function toClaudeServerTool(spec: BuiltInToolSpec): Block {
  const known = CLAUDE_SERVER_TOOLS[spec.type];
  if (!known) throw new UnsupportedBuiltInToolError('Claude', spec.type, Object.keys(CLAUDE_SERVER_TOOLS));
  const { version, ...config } = spec.config ?? {};
  const type = typeof version === 'string' ? `${known.name}_${version}` : known.type;
  return { type, name: known.name, ...config };
}

/** Claude wants an object schema; `$schema` is dropped. */
export function toClaudeInputSchema(schema: JsonSchema | undefined): JsonSchema {
  if (!schema) return { type: 'object', properties: {} };
  const { $schema: _ignored, ...rest } = schema;
  return rest.type === 'object' ? rest : { type: 'object', properties: {}, ...rest };
}

/**
 * Contents → Claude messages: model → assistant; same-role turns merged (Claude requires
 * alternation); every tool_use answered by a tool_result in the next user message (a missing result
 * becomes an error result, a result without its call becomes text); tool_results first.
 */
export function toClaudeMessages(contents: Content[], citations = false): Message[] {
  const messages: Message[] = [];
  for (const content of contents) {
    const role = content.role === 'model' ? 'assistant' : 'user';
    const blocks = content.parts.flatMap((part) => toBlocks(part, role, citations));
    if (blocks.length === 0) continue;
    const last = messages.at(-1);
    if (last && last.role === role) last.content.push(...blocks);
    else messages.push({ role, content: blocks });
  }

  const out: Message[] = [];
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i] as Message;
    if (message.role === 'user') {
      const previous = out.at(-1);
      const callIds = new Set(
        previous?.role === 'assistant'
          ? previous.content.filter((b) => b.type === 'tool_use').map((b) => b.id as string)
          : [],
      );
      const results: Block[] = [];
      const others: Block[] = [];
      for (const block of message.content) {
        if (block.type !== 'tool_result') others.push(block);
        else if (callIds.has(block.tool_use_id as string)) results.push(block);
        else
          others.push({
            type: 'text',
            text: `Result of an earlier tool call: ${stringifyResult(block.content)}`,
          });
      }
      const answered = new Set(results.map((b) => b.tool_use_id));
      for (const id of callIds) {
        if (!answered.has(id)) results.push(missingResult(id));
      }
      out.push({ role: 'user', content: [...results, ...others] });
      continue;
    }
    const previous = out.at(-1);
    const pending =
      previous?.role === 'assistant' ? previous.content.filter((b) => b.type === 'tool_use') : [];
    if (pending.length > 0)
      out.push({ role: 'user', content: pending.map((b) => missingResult(b.id as string)) });
    out.push(message);
  }
  const last = out.at(-1);
  // A trailing assistant turn with calls but no results: answer them so the request is valid.
  if (last?.role === 'assistant') {
    const pending = last.content.filter((b) => b.type === 'tool_use');
    if (pending.length > 0)
      out.push({ role: 'user', content: pending.map((b) => missingResult(b.id as string)) });
  }
  return out;
}

function missingResult(id: string): Block {
  return {
    type: 'tool_result',
    tool_use_id: id,
    content: 'No result: the call was not completed.',
    is_error: true,
  };
}

function toBlocks(part: Part, role: 'user' | 'assistant', citations: boolean): Block[] {
  const cite = citations ? { citations: { enabled: true } } : {};
  if (part.thought) {
    // Only signed thinking can go back; Claude rejects unsigned or foreign thoughts.
    if (role !== 'assistant' || !part.thoughtSignature) return [];
    if (part.thoughtSignature.startsWith(REDACTED_THINKING_PREFIX))
      return [
        { type: 'redacted_thinking', data: part.thoughtSignature.slice(REDACTED_THINKING_PREFIX.length) },
      ];
    return [{ type: 'thinking', thinking: part.text ?? '', signature: part.thoughtSignature }];
  }
  if (part.text !== undefined) return part.text === '' ? [] : [{ type: 'text', text: part.text }];
  if (part.functionCall) {
    const { id, name, args } = part.functionCall;
    return [{ type: 'tool_use', id, name, input: args }];
  }
  if (part.functionResponse) return [toolResult(part.functionResponse)];
  // Server tool turns go back as Claude sent them (only in assistant turns, where they belong).
  if (part.serverToolUse) {
    if (role !== 'assistant') return [];
    const { id, name, input } = part.serverToolUse;
    return [{ type: 'server_tool_use', id, name, input }];
  }
  if (part.serverToolResult) {
    if (role !== 'assistant') return [];
    const { toolUseId, type, content } = part.serverToolResult;
    return [{ type, tool_use_id: toolUseId, content }];
  }
  if (part.inlineData) {
    const { mimeType, data } = part.inlineData;
    if (mimeType.startsWith('image/'))
      return [{ type: 'image', source: { type: 'base64', media_type: mimeType, data } }];
    if (mimeType === 'application/pdf')
      return [{ type: 'document', source: { type: 'base64', media_type: mimeType, data }, ...cite }];
    if (mimeType.startsWith('text/'))
      return [
        {
          type: 'document',
          source: {
            type: 'text',
            media_type: 'text/plain',
            data: Buffer.from(data, 'base64').toString('utf8'),
          },
          ...cite,
        },
      ];
    throw new ValidationError(`Claude does not accept inline data of type ${mimeType}`);
  }
  if (part.fileData) {
    const { mimeType, fileUri } = part.fileData;
    if (!/^https?:\/\//.test(fileUri))
      throw new ValidationError(`Claude accepts file data only as an http(s) URL, got ${fileUri}`);
    if (mimeType.startsWith('image/')) return [{ type: 'image', source: { type: 'url', url: fileUri } }];
    return [{ type: 'document', source: { type: 'url', url: fileUri }, ...cite }];
  }
  if (part.executableCode)
    return [
      { type: 'text', text: `\`\`\`${part.executableCode.language}\n${part.executableCode.code}\n\`\`\`` },
    ];
  if (part.codeExecutionResult)
    return [
      {
        type: 'text',
        text: `Code execution ${part.codeExecutionResult.outcome}: ${part.codeExecutionResult.output ?? ''}`,
      },
    ];
  return [];
}

function toolResult(response: FunctionResponse): Block {
  const payload = response.response;
  const isError = payload.error !== undefined && Object.keys(payload).length === 1;
  return {
    type: 'tool_result',
    tool_use_id: response.id,
    content: JSON.stringify(payload),
    ...(isError ? { is_error: true } : {}),
  };
}

function stringifyResult(content: unknown): string {
  return typeof content === 'string' ? content : JSON.stringify(content);
}
