import {
  type ConnectOptions,
  type Content,
  type InlineData,
  type LlmConnection,
  type LlmRequest,
  type LlmResponse,
  ValidationError,
} from '@adk/core';
import { ApiCallError } from '@adk/core/http';
import { LiveProtocolError } from './errors.js';
import {
  bargeIn,
  buildRealtimeSessionUpdate,
  flushRealtimeState,
  initialRealtimeState,
  manualActivity,
  parseRealtimeEvent,
  REALTIME_SAMPLE_RATE,
  type RealtimeClientEvent,
  type RealtimeSessionOptions,
  type RealtimeState,
  realtimeContentEvents,
  realtimeHistoryEvents,
  realtimeMediaEvents,
  translateRealtimeEvent,
} from './frames.js';
import { PcmResampler } from './resample.js';
import { LiveSocket } from './socket.js';

export interface RealtimeEndpoint extends RealtimeSessionOptions {
  url: string;
  displayUrl: string;
  headers: Record<string, string>;
  apiName: string;
  handshakeTimeoutMs?: number | undefined;
  /** A clock in milliseconds (tests pass their own). */
  now?: () => number;
}

/**
 * Opens a Realtime API session: connects, sends `session.update` first and waits for
 * `session.updated`, so a rejected configuration fails here. OpenAI has no session resumption:
 * `resumptionHandle` is ignored (the live flow sends the history again on a new connection).
 */
export async function connectOpenAIRealtime(
  request: LlmRequest,
  endpoint: RealtimeEndpoint,
  options: ConnectOptions = {},
): Promise<LlmConnection> {
  const now = endpoint.now ?? Date.now;
  const socket = await LiveSocket.open({
    url: endpoint.url,
    displayUrl: endpoint.displayUrl,
    headers: endpoint.headers,
    apiName: endpoint.apiName,
    signal: options.signal,
    handshakeTimeoutMs: endpoint.handshakeTimeoutMs,
  });
  try {
    await socket.send(buildRealtimeSessionUpdate(request, endpoint));
    let state = initialRealtimeState(request);
    const early: LlmResponse[] = [];
    for (;;) {
      const frame = await socket.next();
      if (frame === null) continue;
      if (frame === undefined)
        throw new LiveProtocolError('The Realtime API closed the connection before session.updated');
      const event = parseRealtimeEvent(frame);
      if (event.type === 'error') {
        throw new ApiCallError(
          `${endpoint.apiName} rejected the session: ${event.error?.message ?? 'unknown error'}`,
          {
            url: endpoint.displayUrl,
            failure: 'http',
            status: 400,
            ...(event.error?.message ? { vendorMessage: event.error.message } : {}),
          },
        );
      }
      const translated = translateRealtimeEvent(event, state, now());
      state = translated.state;
      early.push(...translated.responses);
      if (translated.sessionUpdated) break;
    }
    return new OpenAIRealtimeConnection(socket, state, early, manualActivity(request), now);
  } catch (error) {
    await socket.close(error instanceof LiveProtocolError ? 1002 : 1000);
    throw error;
  }
}

class OpenAIRealtimeConnection implements LlmConnection {
  private receiving = false;
  private resampler: PcmResampler | undefined;
  /** Responses made on the sending side (a manual barge-in), delivered by `receive()`. */
  private readonly pending: LlmResponse[];

  constructor(
    private readonly socket: LiveSocket,
    private state: RealtimeState,
    early: LlmResponse[],
    private readonly manual: boolean,
    private readonly now: () => number,
  ) {
    this.pending = early;
  }

  async sendHistory(history: Content[]): Promise<void> {
    await this.sendAll(realtimeHistoryEvents(history));
  }

  async sendContent(content: Content): Promise<void> {
    await this.sendAll(realtimeContentEvents(content));
  }

  async sendRealtime(blob: InlineData): Promise<void> {
    await this.sendAll(
      realtimeMediaEvents(blob, (rate) => {
        // One resampler per input rate, so chunk boundaries stay seamless.
        if (this.resampler?.fromRate !== rate) this.resampler = new PcmResampler(rate, REALTIME_SAMPLE_RATE);
        return this.resampler;
      }),
    );
  }

  /** With voice activity detection off, the start of user speech interrupts the model here. */
  async sendActivityStart(): Promise<void> {
    if (!this.manual) return;
    const { state, responses, send } = bargeIn(this.state, this.now());
    this.state = state;
    if (responses.length > 0) {
      this.pending.push(...responses);
      this.socket.interrupt();
    }
    await this.sendAll(send);
  }

  /** With voice activity detection off, the end of user speech commits the audio and asks for an answer. */
  async sendActivityEnd(): Promise<void> {
    if (!this.manual) return;
    await this.sendAll([{ type: 'input_audio_buffer.commit' }, { type: 'response.create' }]);
  }

  async *receive(): AsyncGenerator<LlmResponse> {
    if (this.receiving) throw new ValidationError('receive() of a live connection can be iterated only once');
    this.receiving = true;
    try {
      for (;;) {
        yield* this.pending.splice(0);
        const frame = await this.socket.next();
        if (frame === null) continue;
        if (frame === undefined) break;
        const translated = translateRealtimeEvent(parseRealtimeEvent(frame), this.state, this.now());
        this.state = translated.state;
        if (translated.send.length > 0) void this.sendAll(translated.send).catch(() => {});
        yield* translated.responses;
      }
    } catch (error) {
      if (error instanceof LiveProtocolError) await this.socket.close(1002, 'malformed frame');
      yield* this.flushPending();
      throw error;
    }
    yield* this.pending.splice(0);
    yield* this.flushPending();
  }

  async close(): Promise<void> {
    await this.socket.close();
  }

  private flushPending(): LlmResponse[] {
    const { responses, state } = flushRealtimeState(this.state);
    this.state = state;
    return responses;
  }

  private async sendAll(events: RealtimeClientEvent[]): Promise<void> {
    for (const event of events) await this.socket.send(event);
  }
}
