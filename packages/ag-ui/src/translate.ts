import {
  type Event,
  type FunctionCall,
  isPlainObject,
  REQUEST_CONFIRMATION,
  REQUEST_CREDENTIAL,
  REQUEST_INPUT,
  RETRACT_METADATA_KEY,
  type UsageMetadata,
} from '@adk/core';
import { originalCallOf } from '@adk/core/internal';
import type { Interrupt, Message, TokenUsage } from '@ag-ui/core';
import type { AgUiEvent, JsonPatchOperation } from './events.js';

/** Options of the translation of one run's events into one AG-UI run. */
export interface AgUiEventsOptions {
  threadId: string;
  runId: string;
  /** The client's `protocolVersion`: 1.0-only fields are sent only when it is 1.0 or later. */
  protocolVersion?: string | undefined;
  /** The state the run starts from (sent as STATE_SNAPSHOT; deltas are patches against it). */
  state?: Record<string, unknown>;
  /** Names of the client's own tools: their open calls end the run as `pendingToolCallIds`. */
  frontendTools?: Iterable<string>;
  /** Results to announce first (answers the previous run's interrupts gave). */
  results?: { toolCallId: string; content: unknown }[];
  /**
   * The client's messages as its input sent them (`RunAgentInput.messages`). A retraction sends
   * them, with this run's messages, as the MESSAGES_SNAPSHOT that withdraws the retracted text.
   */
  messages?: readonly Message[];
}

/** The CUSTOM event that names a withdrawn text message (sent before the MESSAGES_SNAPSHOT). */
export const RETRACT_EVENT = 'adk.retract';

/** Whether a `major.minor[.patch]` version is at least 1.0. */
export function speaks1(version: string | undefined): boolean {
  if (!version) return false;
  const major = Number(version.split('.')[0]);
  return Number.isFinite(major) && major >= 1;
}

/** A JSON pointer token (RFC 6901). */
function pointer(key: string): string {
  return `/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
}

/** State as the client sees it: `temp:` keys never leave the invocation. */
export function visibleState(state: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(state)) if (!key.startsWith('temp:')) out[key] = value;
  return out;
}

/** A state delta as RFC 6902 operations against `current` (which it updates). */
export function statePatch(
  current: Record<string, unknown>,
  delta: Record<string, unknown>,
): JsonPatchOperation[] {
  const ops: JsonPatchOperation[] = [];
  for (const [key, value] of Object.entries(delta)) {
    if (key.startsWith('temp:')) continue;
    if (value === null || value === undefined) {
      // `null` is the state model's unset.
      if (key in current) {
        ops.push({ op: 'remove', path: pointer(key) });
        delete current[key];
      }
      continue;
    }
    ops.push({ op: key in current ? 'replace' : 'add', path: pointer(key), value });
    current[key] = value;
  }
  return ops;
}

export function jsonText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value ?? null);
}

function usageOf(u: UsageMetadata, model: string | undefined): TokenUsage {
  const input = u.promptTokenCount ?? 0;
  const output = (u.candidatesTokenCount ?? 0) + (u.thoughtsTokenCount ?? 0);
  return {
    ...(model ? { model } : {}),
    inputTokens: input,
    outputTokens: output,
    totalTokens: input + output,
    ...(u.thoughtsTokenCount ? { reasoningTokens: u.thoughtsTokenCount } : {}),
    ...(u.cachedContentTokenCount ? { cachedInputTokens: u.cachedContentTokenCount } : {}),
  };
}

/**
 * Translates one run's ADK events into an AG-UI run (pure). RUN_STARTED and STATE_SNAPSHOT come
 * first; a STEP per agent turn; text and reasoning as start/content/end; every call as
 * TOOL_CALL_START/ARGS/END under the assistant message of its model turn, and its result as
 * TOOL_CALL_RESULT; state deltas as STATE_DELTA patches; the run ends with RUN_FINISHED (its
 * outcome an interrupt when the run paused for an answer) or RUN_ERROR.
 */
export class AgUiTranslator {
  private started = false;
  private ended = false;
  private step: string | undefined;
  private text: { id: string; sent: string } | undefined;
  private reasoning: { id: string; sent: string } | undefined;
  /** The assistant message of the current model turn (tool calls hang under it). */
  private turnMessageId: string | undefined;
  private turnDone = true;
  /** The turn's message id has named a text message already (a second text gets its own id). */
  private turnTextUsed = false;
  private counter = 0;
  private readonly state: Record<string, unknown>;
  private readonly frontend: Set<string>;
  private readonly interrupts = new Map<string, Interrupt>();
  private readonly pendingFrontend: string[] = [];
  private readonly usage: TokenUsage[] = [];
  private readonly toolNames = new Map<string, string>();
  private failed = false;
  /** How the last event said the run ends, when it was an error event (told at `finish`). */
  private ending: { cancelled: true } | { cancelled: false; message: string; code?: string } | undefined;
  /** This run's messages as the client builds them from the events (for a MESSAGES_SNAPSHOT). */
  private readonly mirror: Message[] = [];
  private readonly mirrored = new Map<string, Message>();

  constructor(private readonly options: AgUiEventsOptions) {
    this.state = visibleState(options.state ?? {});
    this.frontend = new Set(options.frontendTools ?? []);
  }

  start(): AgUiEvent[] {
    if (this.started) return [];
    this.started = true;
    const out: AgUiEvent[] = [
      {
        type: 'RUN_STARTED',
        threadId: this.options.threadId,
        runId: this.options.runId,
        ...(speaks1(this.options.protocolVersion) ? { protocolVersion: '1.0' } : {}),
      },
      { type: 'STATE_SNAPSHOT', snapshot: { ...this.state } },
    ];
    for (const result of this.options.results ?? [])
      out.push({
        type: 'TOOL_CALL_RESULT',
        messageId: this.nextId('result'),
        toolCallId: result.toolCallId,
        content: jsonText(result.content),
        role: 'tool',
      });
    for (const e of out) this.remember(e);
    return out;
  }

  push(event: Event): AgUiEvent[] {
    const out = this.translate(event);
    for (const e of out) this.remember(e);
    return out;
  }

  private translate(event: Event): AgUiEvent[] {
    const out = this.start();
    if (this.ended || event.author === 'user') return out;
    this.ending = undefined;
    if (event.customMetadata?.[RETRACT_METADATA_KEY] === true) this.retract(event, out);
    if (event.author !== this.step) {
      this.closeBlocks(out);
      if (this.step) out.push({ type: 'STEP_FINISHED', stepName: this.step });
      this.step = event.author;
      this.turnDone = true;
      out.push({ type: 'STEP_STARTED', stepName: event.author });
    }
    const parts = event.content?.parts ?? [];
    if (event.content?.role === 'model' && parts.some((p) => p.text !== undefined || p.functionCall)) {
      // A new model turn starts after the previous one's final event.
      if (this.turnDone) {
        this.closeBlocks(out);
        this.turnMessageId = this.nextId('msg');
        this.turnTextUsed = false;
        this.turnDone = false;
      }
    }
    if (event.partial) {
      for (const part of parts) {
        if (!part.text) continue;
        if (part.thought) this.reasoningDelta(part.text, out);
        else this.textDelta(part.text, event.author, out);
      }
      return out;
    }
    if (event.content?.role === 'model') {
      const reasoning = parts
        .filter((p) => p.thought && p.text)
        .map((p) => p.text ?? '')
        .join('');
      const text = parts
        .filter((p) => !p.thought && p.text)
        .map((p) => p.text ?? '')
        .join('');
      if (reasoning) this.completeReasoning(reasoning, out);
      else this.closeReasoning(out);
      if (text) this.completeText(text, event.author, out);
      else this.closeText(out);
      this.turnDone = true;
    }
    for (const part of parts) {
      if (part.functionCall) this.call(part.functionCall, event, out);
      else if (part.functionResponse) {
        const r = part.functionResponse;
        if (r.name === REQUEST_CONFIRMATION) continue;
        this.interrupts.delete(r.id);
        out.push({
          type: 'TOOL_CALL_RESULT',
          messageId: `${event.id}-${r.id}`,
          toolCallId: r.id,
          content: jsonText(r.response),
          role: 'tool',
        });
      }
    }
    if (event.usageMetadata) this.usage.push(usageOf(event.usageMetadata, undefined));
    const ops = statePatch(this.state, event.actions.stateDelta);
    if (ops.length > 0) out.push({ type: 'STATE_DELTA', delta: ops });
    if (event.nodeInfo && event.output !== undefined)
      out.push({
        type: 'CUSTOM',
        name: 'adk.node_output',
        value: { path: event.nodeInfo.path, output: event.output },
      });
    if (event.errorCode || event.errorMessage) {
      // Only the run's last event ends it as a failure or a cancellation: a run survives an error
      // event that something follows (a failed tool whose error the model is told, a retried call).
      if (event.interrupted || event.errorCode === 'CANCELLED') this.ending = { cancelled: true };
      else
        this.ending = {
          cancelled: false,
          message: event.errorMessage ?? 'The run failed',
          ...(event.errorCode ? { code: event.errorCode } : {}),
        };
    }
    return out;
  }

  /**
   * Withdraws the text streamed so far in this model turn (an output guardrail rewrote or stopped
   * it): the text message ends, a CUSTOM `adk.retract` names it, and a MESSAGES_SNAPSHOT without it
   * replaces the client's messages (every AG-UI client applies it). A rewritten text follows as a
   * new message.
   */
  private retract(event: Event, out: AgUiEvent[]): void {
    const open = this.text;
    if (!open) return;
    this.closeText(out);
    const message = this.mirrored.get(open.id);
    if (message?.role === 'assistant' && message.toolCalls?.length) delete message.content;
    else if (message) {
      this.mirror.splice(this.mirror.indexOf(message), 1);
      this.mirrored.delete(open.id);
    }
    const records = event.customMetadata?.adkGuardrails;
    const record = Array.isArray(records) && isPlainObject(records[0]) ? records[0] : undefined;
    out.push({
      type: 'CUSTOM',
      name: RETRACT_EVENT,
      value: {
        messageId: open.id,
        ...(typeof record?.guardrail === 'string' ? { guardrail: record.guardrail } : {}),
        ...(typeof record?.reason === 'string' ? { reason: record.reason } : {}),
      },
    });
    out.push({
      type: 'MESSAGES_SNAPSHOT',
      messages: structuredClone([...(this.options.messages ?? []), ...this.mirror]),
    });
  }

  /** Applies a sent event to the mirror of the client's messages. */
  private remember(e: AgUiEvent): void {
    const find = (id: string) => this.mirrored.get(id);
    const add = (m: Message) => {
      this.mirror.push(m);
      this.mirrored.set(m.id, m);
      return m;
    };
    switch (e.type) {
      case 'TEXT_MESSAGE_START':
        if (!find(e.messageId))
          add({ id: e.messageId, role: 'assistant', content: '', ...(e.name ? { name: e.name } : {}) });
        return;
      case 'TEXT_MESSAGE_CONTENT': {
        const m = find(e.messageId);
        if (m?.role === 'assistant') m.content = `${m.content ?? ''}${e.delta}`;
        return;
      }
      case 'TOOL_CALL_START': {
        const found = e.parentMessageId ? find(e.parentMessageId) : undefined;
        const parent: Extract<Message, { role: 'assistant' }> =
          found?.role === 'assistant' ? found : { id: e.parentMessageId ?? e.toolCallId, role: 'assistant' };
        if (parent !== found) add(parent);
        parent.toolCalls = [
          ...(parent.toolCalls ?? []),
          { id: e.toolCallId, type: 'function', function: { name: e.toolCallName, arguments: '' } },
        ];
        return;
      }
      case 'TOOL_CALL_ARGS':
        for (const m of this.mirror)
          if (m.role === 'assistant')
            for (const c of m.toolCalls ?? []) if (c.id === e.toolCallId) c.function.arguments += e.delta;
        return;
      case 'TOOL_CALL_RESULT':
        if (!find(e.messageId))
          add({ id: e.messageId, role: 'tool', toolCallId: e.toolCallId, content: e.content });
        return;
      default:
        return;
    }
  }

  /** Ends the run with RUN_ERROR (nothing follows it). */
  fail(message: string, code?: string): AgUiEvent[] {
    const out = this.start();
    if (this.ended) return out;
    this.closeBlocks(out);
    if (this.step) out.push({ type: 'STEP_FINISHED', stepName: this.step });
    this.step = undefined;
    this.ended = true;
    out.push({ type: 'RUN_ERROR', message, ...(code ? { code } : {}) });
    return out;
  }

  /**
   * Ends the run: RUN_ERROR when its last event was an error; a cancelled run as RUN_FINISHED with
   * outcome `cancelled` (1.0 clients) or RUN_ERROR code `CANCELLED` (0.x have no such outcome);
   * else RUN_FINISHED, its outcome the interrupts when it waits for answers, else success.
   */
  finish(): AgUiEvent[] {
    const ending = this.ending;
    if (ending && !ending.cancelled) {
      this.failed = true;
      return this.fail(ending.message, ending.code);
    }
    if (ending?.cancelled && !speaks1(this.options.protocolVersion))
      return this.fail('The run was cancelled', 'CANCELLED');
    const out = this.start();
    if (this.ended) return out;
    this.closeBlocks(out);
    if (this.step) out.push({ type: 'STEP_FINISHED', stepName: this.step });
    this.step = undefined;
    this.ended = true;
    const interrupts = [...this.interrupts.values()];
    out.push({
      type: 'RUN_FINISHED',
      threadId: this.options.threadId,
      runId: this.options.runId,
      outcome: ending?.cancelled
        ? { type: 'cancelled' }
        : interrupts.length > 0
          ? { type: 'interrupt', interrupts }
          : {
              type: 'success',
              // A 1.0 field (0.x clients refuse it; they read pending calls from the stream).
              ...(this.pendingFrontend.length > 0 && speaks1(this.options.protocolVersion)
                ? { pendingToolCallIds: [...this.pendingFrontend] }
                : {}),
            },
      ...(this.usage.length > 0 ? { usage: this.usage } : {}),
    });
    return out;
  }

  get hasFailed(): boolean {
    return this.failed;
  }

  private nextId(kind: string): string {
    return `${this.options.runId}-${kind}-${this.counter++}`;
  }

  private call(call: FunctionCall, event: Event, out: AgUiEvent[]): void {
    const longRunning = event.longRunningToolIds?.includes(call.id) ?? false;
    if (call.name === REQUEST_CONFIRMATION) {
      const original = originalCallOf(call);
      if (!original) return;
      const confirmation = call.args.toolConfirmation;
      const hint =
        isPlainObject(confirmation) && typeof confirmation.hint === 'string' ? confirmation.hint : undefined;
      this.interrupts.set(call.id, {
        id: call.id,
        reason: 'tool_approval',
        toolCallId: original.id,
        ...(hint ? { message: hint } : {}),
        metadata: { adk: { toolName: original.name, args: original.args } },
        responseSchema: {
          type: 'object',
          properties: { confirmed: { type: 'boolean' }, payload: {} },
          required: ['confirmed'],
        },
      });
      return;
    }
    this.toolNames.set(call.id, call.name);
    out.push({
      type: 'TOOL_CALL_START',
      toolCallId: call.id,
      toolCallName: call.name,
      ...(this.turnMessageId ? { parentMessageId: this.turnMessageId } : {}),
    });
    out.push({ type: 'TOOL_CALL_ARGS', toolCallId: call.id, delta: JSON.stringify(call.args ?? {}) });
    out.push({ type: 'TOOL_CALL_END', toolCallId: call.id });
    if (!longRunning) return;
    if (this.frontend.has(call.name)) {
      this.pendingFrontend.push(call.id);
      return;
    }
    if (call.name === REQUEST_INPUT) {
      const message = typeof call.args.message === 'string' ? call.args.message : undefined;
      const schema = call.args.responseSchema ?? call.args.response_schema;
      this.interrupts.set(call.id, {
        id: call.id,
        reason: 'input_required',
        toolCallId: call.id,
        ...(message ? { message } : {}),
        ...(isPlainObject(schema) ? { responseSchema: schema } : {}),
        ...(call.args.payload !== undefined ? { metadata: { adk: { payload: call.args.payload } } } : {}),
      });
      return;
    }
    this.interrupts.set(call.id, {
      id: call.id,
      reason: call.name === REQUEST_CREDENTIAL ? 'auth_required' : 'long_running_tool',
      toolCallId: call.id,
      metadata: { adk: { toolName: call.name } },
    });
  }

  private textDelta(delta: string, author: string, out: AgUiEvent[]): void {
    this.closeReasoning(out);
    if (!this.text) {
      const id = !this.turnTextUsed && this.turnMessageId ? this.turnMessageId : this.nextId('msg');
      this.turnMessageId = id;
      this.turnTextUsed = true;
      this.text = { id, sent: '' };
      out.push({ type: 'TEXT_MESSAGE_START', messageId: id, role: 'assistant', name: author });
    }
    this.text.sent += delta;
    out.push({ type: 'TEXT_MESSAGE_CONTENT', messageId: this.text.id, delta });
  }

  private completeText(full: string, author: string, out: AgUiEvent[]): void {
    const sent = this.text?.sent ?? '';
    if (!this.text) this.textDelta(full, author, out);
    else if (full.startsWith(sent) && full.length > sent.length)
      this.textDelta(full.slice(sent.length), author, out);
    this.closeText(out);
  }

  private closeText(out: AgUiEvent[]): void {
    if (!this.text) return;
    out.push({ type: 'TEXT_MESSAGE_END', messageId: this.text.id });
    this.text = undefined;
  }

  private reasoningDelta(delta: string, out: AgUiEvent[]): void {
    this.closeText(out);
    if (!this.reasoning) {
      const id = this.nextId('reasoning');
      this.reasoning = { id, sent: '' };
      out.push({ type: 'REASONING_START', messageId: id });
      out.push({ type: 'REASONING_MESSAGE_START', messageId: id, role: 'reasoning' });
    }
    this.reasoning.sent += delta;
    out.push({ type: 'REASONING_MESSAGE_CONTENT', messageId: this.reasoning.id, delta });
  }

  private completeReasoning(full: string, out: AgUiEvent[]): void {
    const sent = this.reasoning?.sent ?? '';
    if (!this.reasoning) this.reasoningDelta(full, out);
    else if (full.startsWith(sent) && full.length > sent.length)
      this.reasoningDelta(full.slice(sent.length), out);
    this.closeReasoning(out);
  }

  private closeReasoning(out: AgUiEvent[]): void {
    if (!this.reasoning) return;
    out.push({ type: 'REASONING_MESSAGE_END', messageId: this.reasoning.id });
    out.push({ type: 'REASONING_END', messageId: this.reasoning.id });
    this.reasoning = undefined;
  }

  private closeBlocks(out: AgUiEvent[]): void {
    this.closeReasoning(out);
    this.closeText(out);
  }
}

/**
 * An ADK run's events (e.g. `runner.run(…)`) as an AG-UI run: RUN_STARTED … RUN_FINISHED, or
 * RUN_ERROR when the run fails (a failure of the iterable too; nothing is thrown).
 */
export async function* toAgUiEvents(
  events: AsyncIterable<Event> | Iterable<Event>,
  options: AgUiEventsOptions,
): AsyncGenerator<AgUiEvent, void, undefined> {
  const translator = new AgUiTranslator(options);
  yield* translator.start();
  try {
    for await (const event of events) yield* translator.push(event);
  } catch (error) {
    yield* translator.fail(error instanceof Error ? error.message : String(error), 'RUN_FAILED');
    return;
  }
  yield* translator.finish();
}
