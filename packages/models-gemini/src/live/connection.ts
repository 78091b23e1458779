import {
  type ConnectOptions,
  type Content,
  type InlineData,
  type LlmConnection,
  type LlmRequest,
  type LlmResponse,
  ValidationError,
} from '@adk/core';
import { LiveProtocolError } from './errors.js';
import {
  buildGeminiLiveSetup,
  flushGeminiLiveState,
  type GeminiLiveClientFrame,
  type GeminiLiveState,
  geminiActivityFrame,
  geminiContentFrames,
  geminiHistoryFrames,
  geminiRealtimeFrame,
  initialGeminiLiveState,
  parseGeminiLiveFrame,
  translateGeminiLiveMessage,
} from './frames.js';
import { LiveSocket } from './socket.js';

/** Where and how to open a Live API session (resolved by `Gemini.connect`). */
export interface GeminiLiveEndpoint {
  url: string;
  /** `url` without credentials, for errors. */
  displayUrl: string;
  headers: Record<string, string>;
  /** The model as the setup frame names it. */
  model: string;
  vertex: boolean;
  apiName: string;
  handshakeTimeoutMs?: number | undefined;
}

/**
 * Opens a Live API session: connects, sends `setup` (with the resumption handle when given) and
 * waits for `setupComplete`, so a rejected configuration fails here rather than later.
 */
export async function connectGeminiLive(
  request: LlmRequest,
  endpoint: GeminiLiveEndpoint,
  options: ConnectOptions = {},
): Promise<LlmConnection> {
  const setup = buildGeminiLiveSetup(request, {
    model: endpoint.model,
    vertex: endpoint.vertex,
    resumptionHandle: options.resumptionHandle,
  });
  const socket = await LiveSocket.open({
    url: endpoint.url,
    displayUrl: endpoint.displayUrl,
    headers: endpoint.headers,
    apiName: endpoint.apiName,
    signal: options.signal,
    handshakeTimeoutMs: endpoint.handshakeTimeoutMs,
  });
  try {
    await socket.send(setup);
    const early: LlmResponse[] = [];
    let state = initialGeminiLiveState;
    for (;;) {
      const frame = await socket.next();
      if (frame === undefined)
        throw new LiveProtocolError('Gemini Live closed the connection before setupComplete');
      const translated = translateGeminiLiveMessage(parseGeminiLiveFrame(frame), state);
      state = translated.state;
      early.push(...translated.responses);
      if (translated.setupComplete) break;
    }
    return new GeminiLiveConnection(socket, state, early);
  } catch (error) {
    await socket.close(error instanceof LiveProtocolError ? 1002 : 1000);
    throw error;
  }
}

class GeminiLiveConnection implements LlmConnection {
  private receiving = false;

  constructor(
    private readonly socket: LiveSocket,
    private state: GeminiLiveState,
    private readonly early: LlmResponse[],
  ) {}

  async sendHistory(history: Content[]): Promise<void> {
    await this.sendAll(geminiHistoryFrames(history));
  }

  async sendContent(content: Content): Promise<void> {
    await this.sendAll(geminiContentFrames(content));
  }

  async sendRealtime(blob: InlineData): Promise<void> {
    await this.socket.send(geminiRealtimeFrame(blob));
  }

  async sendActivityStart(): Promise<void> {
    await this.socket.send(geminiActivityFrame('start'));
  }

  async sendActivityEnd(): Promise<void> {
    await this.socket.send(geminiActivityFrame('end'));
  }

  async *receive(): AsyncGenerator<LlmResponse> {
    if (this.receiving) throw new ValidationError('receive() of a live connection can be iterated only once');
    this.receiving = true;
    yield* this.early.splice(0);
    try {
      for (;;) {
        const frame = await this.socket.next();
        if (frame === undefined) break;
        const translated = translateGeminiLiveMessage(parseGeminiLiveFrame(frame), this.state);
        this.state = translated.state;
        yield* translated.responses;
      }
    } catch (error) {
      if (error instanceof LiveProtocolError) await this.socket.close(1002, 'malformed frame');
      yield* this.flushPending();
      throw error;
    }
    yield* this.flushPending();
  }

  async close(): Promise<void> {
    await this.socket.close();
  }

  /** Text and transcriptions of an unfinished turn are not lost when the connection ends. */
  private flushPending(): LlmResponse[] {
    const { responses, state } = flushGeminiLiveState(this.state);
    this.state = state;
    return responses;
  }

  private async sendAll(frames: GeminiLiveClientFrame[]): Promise<void> {
    for (const frame of frames) await this.socket.send(frame);
  }
}
