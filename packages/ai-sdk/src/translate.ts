import {
  type Event,
  type FunctionCall,
  type FunctionResponse,
  isPlainObject,
  REQUEST_CONFIRMATION,
  RETRACT_METADATA_KEY,
  type UsageMetadata,
} from '@adk/core';
import { originalCallOf } from '@adk/core/internal';
import type { AdkMessageMetadata, FinishReason, JsonValue, UIMessageChunk } from './chunks.js';

/** Options of a translation of one run's events into one assistant message's chunks. */
export interface UIMessageStreamOptions {
  /** `start.messageId`: the assistant message the chunks build (kept when answers continue it). */
  messageId?: string;
  /** Extra metadata sent with `start` and `finish`. */
  messageMetadata?: Record<string, JsonValue>;
  /** Calls the user denied in the message that started this run: their answer is `tool-output-denied`. */
  deniedCallIds?: Iterable<string>;
  /** Leave out partial events (a tail that may have joined mid-answer; the final event has it all). */
  ignorePartials?: boolean;
}

/** Framework questions that are not model calls: they do not open a step. */
const PAUSE_CALLS = new Set([REQUEST_CONFIRMATION, 'adk_request_credential', 'adk_request_input']);

/** A tool result that is only `{ error }` is a failed call (ADK's FunctionTool wraps failures so). */
export function toolErrorText(response: Record<string, unknown>): string | undefined {
  const keys = Object.keys(response);
  return keys.length === 1 && typeof response.error === 'string' ? response.error : undefined;
}

/** The hint of an `adk_request_confirmation` call. */
export function confirmationHint(call: FunctionCall): string | undefined {
  const confirmation = call.args.toolConfirmation as Record<string, unknown> | undefined;
  return typeof confirmation?.hint === 'string' ? confirmation.hint : undefined;
}

function finishReasonOf(reason: string | undefined): FinishReason | undefined {
  switch (reason) {
    case undefined:
    case 'STOP':
      return undefined;
    case 'MAX_TOKENS':
      return 'length';
    case 'SAFETY':
    case 'RECITATION':
    case 'BLOCKLIST':
    case 'PROHIBITED_CONTENT':
    case 'SPII':
      return 'content-filter';
    default:
      return 'other';
  }
}

/** A state delta as a data part's payload: `temp:` keys never leave the invocation. */
export function visibleDelta(delta: Record<string, unknown>): Record<string, unknown> | undefined {
  let out: Record<string, unknown> | undefined;
  for (const [key, value] of Object.entries(delta)) {
    if (key.startsWith('temp:')) continue;
    out ??= {};
    out[key] = value;
  }
  return out;
}

interface OpenBlock {
  id: string;
  kind: 'text' | 'reasoning';
  sent: string;
}

/**
 * Translates one run's events, in order, into the chunks of one assistant message (pure: no I/O).
 * Chunk order follows the protocol: `start`, then steps (`start-step` … `finish-step`, one per
 * model call, tool results inside the step of their call), text and reasoning as start/delta/end,
 * every tool chunk after its part exists, and `finish` last.
 */
export class UIMessageStreamTranslator {
  private started = false;
  private finished = false;
  private stepOpen = false;
  /** The open step's model call has given its final (non-partial) event. */
  private modelCallDone = false;
  private readonly blocks: { text?: OpenBlock; reasoning?: OpenBlock } = {};
  private counter = 0;
  private readonly tools = new Set<string>();
  private readonly pendingCalls = new Set<string>();
  private readonly denied: Set<string>;
  private author: string | undefined;
  private readonly authors: string[] = [];
  private invocationId: string | undefined;
  private readonly usage = { inputTokens: 0, outputTokens: 0, totalTokens: 0, reasoningTokens: 0 };
  private sawUsage = false;
  private failed = false;
  private aborted = false;
  private modelFinish: FinishReason | undefined;

  constructor(private readonly options: UIMessageStreamOptions = {}) {
    this.denied = new Set(options.deniedCallIds ?? []);
  }

  /** The `start` chunk (sent by `push` if not asked for first). */
  start(): UIMessageChunk[] {
    if (this.started) return [];
    this.started = true;
    return [
      {
        type: 'start',
        ...(this.options.messageId ? { messageId: this.options.messageId } : {}),
        ...(this.options.messageMetadata ? { messageMetadata: { ...this.options.messageMetadata } } : {}),
      },
    ];
  }

  /** The chunks for one event. */
  push(event: Event): UIMessageChunk[] {
    const out = this.start();
    if (this.finished) return out;
    if (event.author === 'user') return out;
    if (event.partial && this.options.ignorePartials) return out;
    this.invocationId ??= event.invocationId;
    this.noteAuthor(event.author, out);
    const parts = event.content?.parts ?? [];
    const calls = parts.flatMap((p) => (p.functionCall ? [p.functionCall] : []));
    const responses = parts.flatMap((p) => (p.functionResponse ? [p.functionResponse] : []));
    const isModelCall =
      event.content?.role === 'model' &&
      (parts.some((p) => p.text !== undefined) || calls.some((c) => !PAUSE_CALLS.has(c.name)));
    if (isModelCall) {
      if (this.stepOpen && this.modelCallDone) this.closeStep(out);
      this.openStep(out);
    } else if (responses.length > 0) {
      this.openStep(out);
    }
    if (event.partial) {
      for (const part of parts) {
        if (part.text === undefined || part.text === '') continue;
        this.delta(part.thought ? 'reasoning' : 'text', part.text, event.author, out);
      }
      return out;
    }
    if (event.customMetadata?.[RETRACT_METADATA_KEY] === true) this.retract(event, out);
    if (isModelCall) this.modelCallDone = true;
    if (event.usageMetadata) this.addUsage(event.usageMetadata);
    const reason = finishReasonOf(event.finishReason);
    if (reason) this.modelFinish = reason;

    // Final text and thoughts: what the partials have not sent yet.
    const reasoning = parts
      .filter((p) => p.thought && p.text)
      .map((p) => p.text ?? '')
      .join('');
    const text = parts
      .filter((p) => !p.thought && p.text)
      .map((p) => p.text ?? '')
      .join('');
    if (reasoning) this.complete('reasoning', reasoning, event.author, out);
    else this.end('reasoning', out);
    if (text) this.complete('text', text, event.author, out);
    else this.end('text', out);

    for (const part of parts) {
      if (part.inlineData?.data && part.inlineData.mimeType)
        out.push({
          type: 'file',
          mediaType: part.inlineData.mimeType,
          url: `data:${part.inlineData.mimeType};base64,${part.inlineData.data}`,
        });
      else if (part.fileData?.fileUri)
        out.push({
          type: 'file',
          mediaType: part.fileData.mimeType ?? 'application/octet-stream',
          url: part.fileData.fileUri,
        });
    }
    for (const call of calls) this.call(call, event, out);
    for (const response of responses) this.response(response, out);

    const delta = visibleDelta(event.actions.stateDelta);
    if (delta) out.push({ type: 'data-state', data: delta });
    if (event.nodeInfo && (event.output !== undefined || event.actions.route !== undefined))
      out.push({
        type: 'data-node',
        id: event.nodeInfo.path,
        data: {
          path: event.nodeInfo.path,
          ...(event.output !== undefined ? { output: event.output } : {}),
          ...(event.actions.route !== undefined ? { route: event.actions.route } : {}),
        },
      });
    if (event.actions.transferToAgent)
      out.push({ type: 'data-transfer', data: { from: event.author, to: event.actions.transferToAgent } });
    if (event.errorCode || event.errorMessage) {
      this.endBlocks(out);
      if (event.interrupted || event.errorCode === 'CANCELLED') {
        this.aborted = true;
        out.push({ type: 'abort', reason: event.errorMessage ?? 'cancelled' });
      } else {
        this.failed = true;
        out.push({
          type: 'error',
          errorText: `${event.errorCode ?? 'ERROR'}: ${event.errorMessage ?? 'the run failed'}`,
        });
      }
    }
    return out;
  }

  /** A failure outside the events (the run could not go on): an `error` chunk, then `finish`. */
  fail(message: string): UIMessageChunk[] {
    const out = this.start();
    if (this.finished) return out;
    this.endBlocks(out);
    this.failed = true;
    out.push({ type: 'error', errorText: message });
    return [...out, ...this.finish()];
  }

  /** Ends open parts and the step, then `finish` (with usage and the reason the message ended). */
  finish(): UIMessageChunk[] {
    const out = this.start();
    if (this.finished) return out;
    this.finished = true;
    if (this.stepOpen) this.closeStep(out);
    const finishReason: FinishReason = this.failed
      ? 'error'
      : this.aborted
        ? 'other'
        : this.pendingCalls.size > 0
          ? 'tool-calls'
          : (this.modelFinish ?? 'stop');
    out.push({ type: 'finish', finishReason, messageMetadata: this.metadata() });
    return out;
  }

  /** Calls left waiting for the client (approvals, client-side tools, questions). */
  get pending(): ReadonlySet<string> {
    return this.pendingCalls;
  }

  private metadata(): AdkMessageMetadata {
    const usage: NonNullable<AdkMessageMetadata['usage']> = {};
    if (this.sawUsage) {
      usage.inputTokens = this.usage.inputTokens;
      usage.outputTokens = this.usage.outputTokens;
      usage.totalTokens = this.usage.totalTokens;
      if (this.usage.reasoningTokens) usage.reasoningTokens = this.usage.reasoningTokens;
    }
    return {
      ...(this.options.messageMetadata ?? {}),
      ...(this.author ? { author: this.author, authors: [...this.authors] } : {}),
      ...(this.invocationId && !this.options.messageMetadata?.invocationId
        ? { invocationId: this.invocationId }
        : {}),
      ...(this.sawUsage ? { usage } : {}),
    };
  }

  private addUsage(u: UsageMetadata): void {
    this.sawUsage = true;
    this.usage.inputTokens += u.promptTokenCount ?? 0;
    this.usage.outputTokens += (u.candidatesTokenCount ?? 0) + (u.thoughtsTokenCount ?? 0);
    this.usage.totalTokens += u.totalTokenCount ?? 0;
    this.usage.reasoningTokens += u.thoughtsTokenCount ?? 0;
  }

  private noteAuthor(author: string, out: UIMessageChunk[]): void {
    if (author === this.author) return;
    this.author = author;
    if (!this.authors.includes(author)) this.authors.push(author);
    // A change of speaker is told as it happens (metadata merges into the message's).
    out.push({ type: 'message-metadata', messageMetadata: { author, authors: [...this.authors] } });
  }

  /**
   * Withdraws the streamed text of this model call (an output guardrail rewrote or stopped it):
   * the text part ends and a `data-adk-retract` part right after it names it; the rewritten text,
   * if any, follows as a new text part. A client drops the text part before a `data-adk-retract`.
   */
  private retract(event: Event, out: UIMessageChunk[]): void {
    const open = this.blocks.text;
    if (!open) return;
    this.end('text', out);
    const records = event.customMetadata?.adkGuardrails;
    const record = Array.isArray(records) && isPlainObject(records[0]) ? records[0] : undefined;
    out.push({
      type: 'data-adk-retract',
      data: {
        textId: open.id,
        ...(typeof record?.guardrail === 'string' ? { guardrail: record.guardrail } : {}),
        ...(typeof record?.reason === 'string' ? { reason: record.reason } : {}),
      },
    });
  }

  private openStep(out: UIMessageChunk[]): void {
    if (this.stepOpen) return;
    this.stepOpen = true;
    this.modelCallDone = false;
    out.push({ type: 'start-step' });
  }

  private closeStep(out: UIMessageChunk[]): void {
    this.endBlocks(out);
    this.stepOpen = false;
    this.modelCallDone = false;
    out.push({ type: 'finish-step' });
  }

  private endBlocks(out: UIMessageChunk[]): void {
    this.end('reasoning', out);
    this.end('text', out);
  }

  private open(kind: 'text' | 'reasoning', author: string, out: UIMessageChunk[]): OpenBlock {
    const existing = this.blocks[kind];
    if (existing) return existing;
    // Text and reasoning alternate: one open block at a time keeps the parts in spoken order.
    this.end(kind === 'text' ? 'reasoning' : 'text', out);
    const block: OpenBlock = { id: `${kind === 'text' ? 't' : 'r'}${this.counter++}`, kind, sent: '' };
    this.blocks[kind] = block;
    out.push({
      type: kind === 'text' ? 'text-start' : 'reasoning-start',
      id: block.id,
      providerMetadata: { adk: { author } },
    });
    return block;
  }

  private delta(kind: 'text' | 'reasoning', text: string, author: string, out: UIMessageChunk[]): void {
    const block = this.open(kind, author, out);
    block.sent += text;
    out.push({ type: kind === 'text' ? 'text-delta' : 'reasoning-delta', id: block.id, delta: text });
  }

  /** The final text of a block: sends what the partials left out, then ends it. */
  private complete(kind: 'text' | 'reasoning', full: string, author: string, out: UIMessageChunk[]): void {
    const block = this.blocks[kind];
    if (!block) {
      this.delta(kind, full, author, out);
    } else if (full.startsWith(block.sent) && full.length > block.sent.length) {
      this.delta(kind, full.slice(block.sent.length), author, out);
    }
    this.end(kind, out);
  }

  private end(kind: 'text' | 'reasoning', out: UIMessageChunk[]): void {
    const block = this.blocks[kind];
    if (!block) return;
    this.blocks[kind] = undefined;
    out.push({ type: kind === 'text' ? 'text-end' : 'reasoning-end', id: block.id });
  }

  private call(call: FunctionCall, event: Event, out: UIMessageChunk[]): void {
    const longRunning = event.longRunningToolIds?.includes(call.id) ?? false;
    if (call.name === REQUEST_CONFIRMATION) {
      const original = originalCallOf(call);
      if (!original) return;
      if (!this.tools.has(original.id)) {
        // Joined after the call was made (a continued message): the part is made again first.
        this.tools.add(original.id);
        out.push({
          type: 'tool-input-available',
          toolCallId: original.id,
          toolName: original.name,
          input: original.args,
          providerMetadata: { adk: { author: event.author } },
        });
      }
      this.pendingCalls.add(original.id);
      const hint = confirmationHint(call);
      out.push({
        type: 'tool-approval-request',
        approvalId: call.id,
        toolCallId: original.id,
        ...(hint ? { reason: hint } : {}),
      });
      return;
    }
    this.tools.add(call.id);
    if (longRunning) this.pendingCalls.add(call.id);
    out.push({
      type: 'tool-input-available',
      toolCallId: call.id,
      toolName: call.name,
      input: call.args,
      providerMetadata: { adk: { author: event.author } },
    });
  }

  private response(response: FunctionResponse, out: UIMessageChunk[]): void {
    if (response.name === REQUEST_CONFIRMATION) return;
    this.pendingCalls.delete(response.id);
    if (this.denied.has(response.id)) {
      out.push({ type: 'tool-output-denied', toolCallId: response.id });
      return;
    }
    const errorText = toolErrorText(response.response);
    out.push(
      errorText !== undefined
        ? { type: 'tool-output-error', toolCallId: response.id, errorText }
        : { type: 'tool-output-available', toolCallId: response.id, output: response.response },
    );
  }
}

/**
 * The UI message stream of a run: its events (e.g. `runner.run(…)`) as the chunks of one assistant
 * message, ending with `finish`. A failure of the iterable becomes an `error` chunk, never a throw.
 */
export async function* toUIMessageStream(
  events: AsyncIterable<Event> | Iterable<Event>,
  options: UIMessageStreamOptions = {},
): AsyncGenerator<UIMessageChunk, void, undefined> {
  const translator = new UIMessageStreamTranslator(options);
  yield* translator.start();
  try {
    for await (const event of events) yield* translator.push(event);
  } catch (error) {
    yield* translator.fail(error instanceof Error ? `${error.name}: ${error.message}` : String(error));
    return;
  }
  yield* translator.finish();
}
