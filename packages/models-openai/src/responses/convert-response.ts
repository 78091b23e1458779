import type { FinishReason, LlmResponse, ModelErrorCode, Part, UsageMetadata } from '@adk/core';
import { tryParseJson } from '@adk/core';
import { reasoningSignature } from './convert-request.js';
import { MCP_APPROVAL_TOOL } from './mcp-approval.js';
import type { ResponseObject, ResponsesEvent, ResponsesItem, ResponsesUsage } from './wire.js';

/** One output item while it streams, by `output_index`. */
interface ItemState {
  item: Record<string, unknown>;
  text: string;
  refusal: string;
  args: string;
  summaries: string[];
  /** Annotations of the message's text (url and file citations), offsets into that text. */
  annotations: Record<string, unknown>[];
}

const TERMINAL = new Set(['response.completed', 'response.incomplete', 'response.failed']);

/**
 * Folds a Responses API response, or the events of a streamed one, into one aggregated
 * LlmResponse. Items are tracked by `output_index`; a function call's `call_id` comes from its
 * `output_item.added`/`done` item (argument deltas carry only the item id).
 */
export class ResponsesAccumulator {
  private readonly items = new Map<number, ItemState>();
  private response: ResponseObject | undefined;
  private error: { code: string; message: string } | undefined;
  /** The stream reached a terminal event (or an error event). */
  finished = false;

  get responseId(): string | undefined {
    return this.response?.id;
  }

  get status(): string | undefined {
    return this.response?.status ?? undefined;
  }

  addResponse(response: ResponseObject): void {
    this.response = response;
    (response.output ?? []).forEach((item, index) => {
      const state = this.items.get(index);
      if (state) completeFrom(state, item);
      else this.items.set(index, stateOf(item, true));
    });
    if (response.status === 'failed' && response.error)
      this.error = {
        code: response.error.code ?? 'server_error',
        message: response.error.message ?? 'The response failed.',
      };
    if (response.status && !['queued', 'in_progress'].includes(response.status)) this.finished = true;
  }

  /** Adds a stream event; returns the text or thought delta it carried, if any. */
  addEvent(event: ResponsesEvent): Part | undefined {
    const index = event.output_index;
    switch (event.type) {
      case 'response.output_item.added':
        if (index !== undefined && event.item) this.items.set(index, stateOf(event.item, false));
        return undefined;
      case 'response.output_item.done': {
        if (index === undefined || !event.item) return undefined;
        const state = this.items.get(index);
        if (state) completeFrom(state, event.item);
        else this.items.set(index, stateOf(event.item, true));
        return undefined;
      }
      case 'response.output_text.delta': {
        const state = index === undefined ? undefined : this.items.get(index);
        if (!state || typeof event.delta !== 'string' || event.delta === '') return undefined;
        state.text += event.delta;
        return { text: event.delta };
      }
      case 'response.refusal.delta': {
        const state = index === undefined ? undefined : this.items.get(index);
        if (state && typeof event.delta === 'string') state.refusal += event.delta;
        return undefined;
      }
      case 'response.function_call_arguments.delta': {
        const state = index === undefined ? undefined : this.items.get(index);
        if (state && typeof event.delta === 'string') state.args += event.delta;
        return undefined;
      }
      case 'response.function_call_arguments.done': {
        const state = index === undefined ? undefined : this.items.get(index);
        const args = (event as { arguments?: unknown }).arguments;
        if (state && typeof args === 'string') state.args = args;
        return undefined;
      }
      case 'response.reasoning_summary_text.delta': {
        const state = index === undefined ? undefined : this.items.get(index);
        if (!state || typeof event.delta !== 'string' || event.delta === '') return undefined;
        const at = (event as { summary_index?: number }).summary_index ?? 0;
        state.summaries[at] = (state.summaries[at] ?? '') + event.delta;
        return { text: event.delta, thought: true };
      }
      case 'response.created':
      case 'response.in_progress':
      case 'response.queued':
        if (event.response) this.response = event.response;
        return undefined;
      case 'error': {
        const e = event as { code?: string | null; message?: string | null };
        this.error = { code: e.code ?? 'server_error', message: e.message ?? 'The response failed.' };
        this.finished = true;
        return undefined;
      }
      default:
        if (TERMINAL.has(event.type) && event.response) this.addResponse(event.response);
        return undefined;
    }
  }

  result(): LlmResponse {
    const parts: Part[] = [];
    const citations: Record<string, unknown>[] = [];
    let refusal = '';
    let offset = 0;
    for (const index of [...this.items.keys()].sort((a, b) => a - b)) {
      const state = this.items.get(index) as ItemState;
      refusal += state.refusal;
      parts.push(...partsOf(state));
      if (state.item.type !== 'message') continue;
      for (const a of state.annotations) citations.push(toCitation(a, offset));
      offset += state.text.length;
    }
    const response: LlmResponse = { turnComplete: true };
    if (parts.length > 0) response.content = { role: 'model', parts };
    if (citations.length > 0) response.citationMetadata = { citations };
    const status = this.response?.status ?? undefined;
    const reason = this.response?.incomplete_details?.reason ?? undefined;
    if (this.error) {
      // The vendor's own code, carried as it came.
      response.errorCode = this.error.code as ModelErrorCode;
      response.errorMessage = `OpenAI Responses API: ${this.error.message}`;
      response.finishReason = 'OTHER';
    } else if (refusal) {
      response.finishReason = 'REFUSAL';
      response.errorCode = 'REFUSAL';
      response.errorMessage = `The model refused: ${refusal}`;
    } else if (status === 'incomplete') {
      response.finishReason =
        reason === 'max_output_tokens' ? 'MAX_TOKENS' : reason === 'content_filter' ? 'SAFETY' : 'OTHER';
      if (reason === 'content_filter') {
        response.errorCode = 'SAFETY';
        response.errorMessage =
          'The response was withheld by the content filter (incomplete: content_filter).';
      }
    } else if (status) response.finishReason = 'STOP' satisfies FinishReason;
    const usage = this.response?.usage ? usageOf(this.response.usage) : undefined;
    if (usage) response.usageMetadata = usage;
    if (this.response?.model) response.modelVersion = this.response.model;
    response.customMetadata = {
      ...(this.response?.id ? { responseId: this.response.id } : {}),
      ...(status ? { status } : {}),
      ...(reason ? { incompleteReason: reason } : {}),
    };
    return response;
  }
}

function stateOf(item: ResponsesItem, done: boolean): ItemState {
  const state: ItemState = {
    item: { ...item },
    text: '',
    refusal: '',
    args: '',
    summaries: [],
    annotations: [],
  };
  if (done) completeFrom(state, item);
  else if (typeof item.arguments === 'string') state.args = item.arguments;
  return state;
}

/** The finished item is authoritative: its text, arguments, summaries and encrypted reasoning. */
function completeFrom(state: ItemState, item: ResponsesItem): void {
  state.item = { ...item };
  if (item.type === 'message' && Array.isArray(item.content)) {
    let text = '';
    let refusal = '';
    const annotations: Record<string, unknown>[] = [];
    for (const c of item.content as Record<string, unknown>[]) {
      if (c.type === 'output_text' && typeof c.text === 'string') {
        if (Array.isArray(c.annotations))
          for (const a of c.annotations) if (isRecord(a)) annotations.push({ ...a, base: text.length });
        text += c.text;
      }
      if (c.type === 'refusal' && typeof c.refusal === 'string') refusal += c.refusal;
    }
    state.text = text;
    state.refusal = refusal;
    state.annotations = annotations;
  }
  if (typeof item.arguments === 'string') state.args = item.arguments;
  if (item.type === 'reasoning' && Array.isArray(item.summary))
    state.summaries = (item.summary as Record<string, unknown>[]).map((s) =>
      typeof s.text === 'string' ? s.text : '',
    );
}

function partsOf(state: ItemState): Part[] {
  const item = state.item;
  const id = typeof item.id === 'string' ? item.id : '';
  switch (item.type) {
    case 'message':
      return state.text ? [{ text: state.text }] : [];
    case 'reasoning': {
      const encrypted = typeof item.encrypted_content === 'string' ? item.encrypted_content : undefined;
      const text = state.summaries.filter((s) => s !== '').join('\n\n');
      return [{ text, thought: true, thoughtSignature: reasoningSignature(id, encrypted) }];
    }
    case 'function_call': {
      const raw = state.args.trim();
      const parsed = raw === '' ? {} : tryParseJson(raw);
      const valid = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed);
      return [
        {
          functionCall: {
            id: typeof item.call_id === 'string' ? item.call_id : id,
            name: typeof item.name === 'string' ? item.name : '',
            args: valid ? (parsed as Record<string, unknown>) : {},
            ...(valid ? {} : { invalidArgs: state.args }),
          },
        },
      ];
    }
    case 'mcp_approval_request':
      // Asked of the user through the agent's `mcpApproval` tool (a tool confirmation).
      return [
        {
          functionCall: {
            id,
            name: MCP_APPROVAL_TOOL,
            args: {
              server_label: item.server_label,
              name: item.name,
              ...(typeof item.arguments === 'string' ? { arguments: item.arguments } : {}),
            },
          },
        },
      ];
    default: {
      // A hosted tool's item (web_search_call, file_search_call, code_interpreter_call,
      // image_generation_call, mcp_call, mcp_list_tools…): a server tool use and its result.
      const type = String(item.type);
      const name = type.replace(/_call$/, '');
      const input = hostedInput(item);
      const parts: Part[] = [
        { serverToolUse: { id, name, input } },
        { serverToolResult: { toolUseId: id, type, content: item } },
      ];
      if (type === 'image_generation_call' && typeof item.result === 'string' && item.result)
        parts.push({
          inlineData: {
            mimeType: `image/${typeof item.output_format === 'string' ? item.output_format : 'png'}`,
            data: item.result,
          },
        });
      return parts;
    }
  }
}

/** An annotation as a citation with Gemini's offsets into the response text. */
function toCitation(annotation: Record<string, unknown>, offset: number): Record<string, unknown> {
  const { base, ...source } = annotation;
  const at = offset + (typeof base === 'number' ? base : 0);
  const start =
    typeof source.start_index === 'number'
      ? source.start_index
      : typeof source.index === 'number'
        ? source.index
        : 0;
  const end = typeof source.end_index === 'number' ? source.end_index : start;
  const title = source.title ?? source.filename;
  return {
    startIndex: at + start,
    endIndex: at + end,
    ...(typeof source.url === 'string' ? { uri: source.url } : {}),
    ...(typeof title === 'string' ? { title } : {}),
    source,
  };
}

function hostedInput(item: Record<string, unknown>): Record<string, unknown> {
  if (isRecord(item.action)) return item.action;
  const input: Record<string, unknown> = {};
  for (const key of ['queries', 'code', 'server_label', 'name', 'arguments', 'container_id']) {
    if (item[key] !== undefined) input[key] = item[key];
  }
  return input;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function usageOf(u: ResponsesUsage): UsageMetadata {
  const usage: UsageMetadata = {};
  if (u.input_tokens != null) usage.promptTokenCount = u.input_tokens;
  if (u.output_tokens != null) usage.candidatesTokenCount = u.output_tokens;
  if (u.total_tokens != null) usage.totalTokenCount = u.total_tokens;
  const cached = u.input_tokens_details?.cached_tokens;
  if (cached != null) usage.cachedContentTokenCount = cached;
  const reasoning = u.output_tokens_details?.reasoning_tokens;
  if (reasoning != null) usage.thoughtsTokenCount = reasoning;
  return usage;
}
