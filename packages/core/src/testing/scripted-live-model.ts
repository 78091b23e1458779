import { AdkError, CancelledError } from '../errors/errors.js';
import { LiveConnectionClosedError } from '../errors/live-errors.js';
import type { Content, InlineData } from '../events/content.js';
import type { Llm, LlmRequest, LlmResponse } from '../models/llm.js';
import type { ConnectOptions, LlmConnection } from '../models/llm-connection.js';

/** Something the flow sent on a scripted connection, in order. */
export type LiveSent =
  | { kind: 'content'; content: Content }
  | { kind: 'realtime'; blob: InlineData }
  | { kind: 'activityStart' }
  | { kind: 'activityEnd' };

/**
 * One step of a scripted connection:
 * - an `LlmResponse`: received by the flow;
 * - `{ waitFor }`: wait until the flow has sent something matching (`'content'`,
 *   `'functionResponse'`, `'realtime'`, `'activityStart'`, `'activityEnd'` or a predicate) that no
 *   earlier `waitFor` took;
 * - `{ delayMs }`: pause;
 * - `{ close: code, reason? }`: the connection drops (`receive()` throws `LiveConnectionClosedError`);
 * - `{ end: true }`: the server ends the session normally (`receive()` ends).
 * After the last step the connection stays open until the flow closes it.
 */
export type LiveScriptStep =
  | LlmResponse
  | { waitFor: LiveSentMatcher }
  | { delayMs: number }
  | { close: number; reason?: string }
  | { end: true };

export type LiveSentMatcher =
  | 'content'
  | 'functionResponse'
  | 'realtime'
  | 'activityStart'
  | 'activityEnd'
  | ((sent: LiveSent) => boolean);

/**
 * A scripted connection: its steps, or a function producing its responses (it may await
 * `connection.nextSent(…)`), or an Error that `connect()` throws.
 */
export type LiveConnectionScript =
  | LiveScriptStep[]
  | ((connection: ScriptedLiveConnection) => AsyncIterable<LlmResponse>)
  | Error;

export interface ScriptedLiveModelOptions {
  model?: string;
  /** One script per `connect()` call, in order (several cover reconnects and transfers). */
  connections: LiveConnectionScript[];
}

function matches(matcher: LiveSentMatcher, sent: LiveSent): boolean {
  if (typeof matcher === 'function') return matcher(sent);
  if (matcher === 'functionResponse')
    return sent.kind === 'content' && sent.content.parts.some((p) => p.functionResponse);
  return sent.kind === matcher;
}

function isStep<K extends string>(
  step: LiveScriptStep,
  key: K,
): step is Extract<LiveScriptStep, Record<K, unknown>> {
  return typeof step === 'object' && step !== null && key in step;
}

/** One connection of a ScriptedLiveModel; records what the flow sent. */
export class ScriptedLiveConnection implements LlmConnection {
  /** The request `connect()` was called with (a deep copy). */
  readonly request: LlmRequest;
  readonly options: { resumptionHandle?: string };
  /** The history the flow sent (`sendHistory`), if it did. */
  history: Content[] | undefined;
  /** Everything sent after connecting, in order. */
  readonly sent: LiveSent[] = [];
  closed = false;
  private readonly taken = new Set<number>();
  private waiters: (() => void)[] = [];
  private readonly script: Exclude<LiveConnectionScript, Error>;

  constructor(request: LlmRequest, options: ConnectOptions, script: Exclude<LiveConnectionScript, Error>) {
    this.request = structuredClone(request);
    this.options = options.resumptionHandle ? { resumptionHandle: options.resumptionHandle } : {};
    this.script = script;
  }

  /** The contents sent with `sendContent`. */
  get sentContents(): Content[] {
    const out: Content[] = [];
    for (const s of this.sent) if (s.kind === 'content') out.push(s.content);
    return out;
  }

  async sendHistory(history: Content[]): Promise<void> {
    this.assertOpen();
    this.history = structuredClone(history);
  }
  async sendContent(content: Content): Promise<void> {
    this.record({ kind: 'content', content: structuredClone(content) });
  }
  async sendRealtime(blob: InlineData): Promise<void> {
    this.record({ kind: 'realtime', blob: { ...blob } });
  }
  async sendActivityStart(): Promise<void> {
    this.record({ kind: 'activityStart' });
  }
  async sendActivityEnd(): Promise<void> {
    this.record({ kind: 'activityEnd' });
  }
  async close(): Promise<void> {
    this.closed = true;
    this.poke();
  }

  /** Waits until something matching was sent that no earlier wait took; resolves with it. */
  async nextSent(matcher: LiveSentMatcher = 'content'): Promise<LiveSent> {
    for (;;) {
      for (let i = 0; i < this.sent.length; i++) {
        const s = this.sent[i] as LiveSent;
        if (this.taken.has(i) || !matches(matcher, s)) continue;
        this.taken.add(i);
        return s;
      }
      if (this.closed) throw new CancelledError('The scripted connection was closed');
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
      });
    }
  }

  async *receive(): AsyncGenerator<LlmResponse, void, undefined> {
    if (typeof this.script === 'function') {
      try {
        for await (const response of this.script(this)) {
          if (this.closed) return;
          yield response;
        }
      } catch (error) {
        if (this.closed && error instanceof CancelledError) return;
        throw error;
      }
      await this.untilClosed();
      return;
    }
    for (const step of this.script) {
      if (this.closed) return;
      if (isStep(step, 'waitFor')) {
        try {
          await this.nextSent(step.waitFor);
        } catch {
          return;
        }
      } else if (isStep(step, 'delayMs')) {
        await new Promise((resolve) => setTimeout(resolve, step.delayMs));
      } else if (isStep(step, 'close') && typeof step.close === 'number') {
        this.closed = true;
        throw new LiveConnectionClosedError(step.close, step.reason);
      } else if (isStep(step, 'end')) {
        this.closed = true;
        return;
      } else {
        yield structuredClone(step as LlmResponse);
      }
    }
    await this.untilClosed();
  }

  private async untilClosed(): Promise<void> {
    while (!this.closed) {
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
      });
    }
  }

  private record(sent: LiveSent): void {
    this.assertOpen();
    this.sent.push(sent);
    this.poke();
  }

  private assertOpen(): void {
    if (this.closed) throw new LiveConnectionClosedError(1006, 'send on a closed scripted connection');
  }

  private poke(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }
}

/**
 * A deterministic live model for tests: each `connect()` takes the next connection script and
 * returns a `ScriptedLiveConnection` that records the request, the history and everything sent.
 * `generate` is not scripted (use ScriptedModel for request/response turns).
 */
export class ScriptedLiveModel implements Llm {
  readonly model: string;
  /** Every connection opened, in order. */
  readonly connections: ScriptedLiveConnection[] = [];
  private readonly scripts: LiveConnectionScript[];

  constructor(options: ScriptedLiveModelOptions | LiveConnectionScript[]) {
    const o = Array.isArray(options) ? { connections: options } : options;
    this.model = o.model ?? 'scripted-live';
    this.scripts = o.connections;
  }

  /** How many connection scripts are still unused. */
  get remaining(): number {
    return this.scripts.length - this.connections.length - this.failedConnects;
  }
  private failedConnects = 0;

  // biome-ignore lint/correctness/useYield: live-only model
  async *generate(): AsyncGenerator<LlmResponse, void, undefined> {
    throw new AdkError('SCRIPT_EXHAUSTED', 'ScriptedLiveModel only answers live sessions (connect)');
  }

  async connect(request: LlmRequest, options: ConnectOptions = {}): Promise<ScriptedLiveConnection> {
    const index = this.connections.length + this.failedConnects;
    const script = this.scripts[index];
    if (script === undefined) {
      throw new AdkError(
        'SCRIPT_EXHAUSTED',
        `ScriptedLiveModel has no script for connection #${index + 1} (it has ${this.scripts.length})`,
      );
    }
    if (script instanceof Error) {
      this.failedConnects++;
      throw script;
    }
    const connection = new ScriptedLiveConnection(request, options, script);
    this.connections.push(connection);
    return connection;
  }
}
