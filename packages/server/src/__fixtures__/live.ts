import {
  type Content,
  type InlineData,
  type Llm,
  type LlmConnection,
  type LlmRequest,
  type LlmResponse,
  newFunctionCallId,
} from '@adk/core';
import WebSocket from 'ws';

/**
 * A live model for the route's tests: "weather in X" calls get_weather, a tool result is reported,
 * "explode" fails the connection, audio is acknowledged with an input transcription of its size,
 * anything else is echoed as two partial chunks, the whole text and turnComplete. Every response
 * is stamped (`customMetadata.sentAt`, `performance.now()`) when the connection yields it.
 */
export class EchoLiveModel implements Llm {
  readonly model = 'echo-live';
  readonly connections: EchoConnection[] = [];

  // biome-ignore lint/correctness/useYield: a live-only model
  async *generate(): AsyncGenerator<LlmResponse> {
    throw new Error('echo-live only answers live sessions');
  }

  async connect(request: LlmRequest): Promise<LlmConnection> {
    const connection = new EchoConnection(request);
    this.connections.push(connection);
    return connection;
  }
}

export class EchoConnection implements LlmConnection {
  readonly history: Content[] = [];
  readonly received: Array<Content | InlineData | 'start' | 'end'> = [];
  private readonly queue: Array<LlmResponse | Error> = [];
  private wake: (() => void) | undefined;
  closed = false;

  constructor(readonly request: LlmRequest) {}

  async sendHistory(history: Content[]): Promise<void> {
    this.history.push(...history);
  }

  async sendContent(content: Content): Promise<void> {
    this.received.push(content);
    const result = content.parts.find((p) => p.functionResponse)?.functionResponse;
    if (result) {
      this.reply(`Result of ${result.name}: ${JSON.stringify(result.response)}`);
      return;
    }
    const text = content.parts.map((p) => p.text ?? '').join('');
    const weather = /weather in (\w+)/i.exec(text);
    if (weather) {
      this.push({
        content: {
          role: 'model',
          parts: [
            { functionCall: { id: newFunctionCallId(), name: 'get_weather', args: { city: weather[1] } } },
          ],
        },
      });
      this.push({ turnComplete: true });
      return;
    }
    if (/explode/i.test(text)) {
      this.push(new Error('the live model exploded'));
      return;
    }
    this.reply(`You said: ${text}`);
  }

  async sendRealtime(blob: InlineData): Promise<void> {
    this.received.push(blob);
    const bytes = Buffer.from(blob.data, 'base64').length;
    this.push({ inputTranscription: { text: `${bytes} bytes of ${blob.mimeType}`, finished: true } });
  }

  async sendActivityStart(): Promise<void> {
    this.received.push('start');
  }

  async sendActivityEnd(): Promise<void> {
    this.received.push('end');
  }

  /** Sends a response as if the model had produced it (for the latency bench and ad-hoc tests). */
  push(response: LlmResponse | Error): void {
    this.queue.push(response);
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  async *receive(): AsyncGenerator<LlmResponse> {
    for (;;) {
      const next = this.queue.shift();
      if (next instanceof Error) throw next;
      if (next) {
        yield next;
        continue;
      }
      if (this.closed) return;
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  private reply(text: string): void {
    const half = Math.ceil(text.length / 2);
    this.push({ content: { role: 'model', parts: [{ text: text.slice(0, half) }] }, partial: true });
    this.push({ content: { role: 'model', parts: [{ text: text.slice(half) }] }, partial: true });
    this.push({ content: { role: 'model', parts: [{ text }] } });
    this.push({ turnComplete: true });
  }
}

export interface LiveClient {
  socket: WebSocket;
  /** Frames received so far (parsed JSON). */
  frames: Record<string, unknown>[];
  /** Resolves with the close code and reason. */
  closed: Promise<{ code: number; reason: string }>;
  /** Waits until a received frame matches (checking those already received first). */
  waitFor(
    match: (frame: Record<string, unknown>) => boolean,
    timeoutMs?: number,
  ): Promise<Record<string, unknown>>;
  send(frame: unknown): void;
}

/** Opens a `/run_live` WebSocket with the `ws` client (which, unlike a browser, can set Host and Origin). */
export async function openLive(
  baseUrl: string,
  query: Record<string, string | string[]>,
  options: { headers?: Record<string, string>; protocols?: string[]; autoPong?: boolean } = {},
): Promise<LiveClient> {
  const url = new URL('/run_live', baseUrl.replace(/^http/, 'ws'));
  for (const [k, v] of Object.entries(query)) for (const item of [v].flat()) url.searchParams.append(k, item);
  const socket = new WebSocket(url, options.protocols ?? [], {
    headers: options.headers ?? {},
    ...(options.autoPong === false ? { autoPong: false } : {}),
  });
  const frames: Record<string, unknown>[] = [];
  const waiters = new Set<() => void>();
  socket.on('message', (data) => {
    frames.push(JSON.parse(String(data)) as Record<string, unknown>);
    for (const w of waiters) w();
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) => {
    socket.on('close', (code, reason) => {
      resolve({ code, reason: reason.toString() });
      for (const w of waiters) w();
    });
  });
  socket.on('error', () => undefined);
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
    socket.once('error', reject);
  });
  return {
    socket,
    frames,
    closed,
    send: (frame) => socket.send(typeof frame === 'string' ? frame : JSON.stringify(frame)),
    waitFor: (match, timeoutMs = 5000) =>
      new Promise((resolve, reject) => {
        let seen = 0;
        const check = () => {
          for (; seen < frames.length; seen++) {
            const frame = frames[seen] as Record<string, unknown>;
            if (match(frame)) {
              cleanup();
              resolve(frame);
              return;
            }
          }
          if (socket.readyState === WebSocket.CLOSED) {
            cleanup();
            reject(new Error(`closed before a matching frame; got ${JSON.stringify(frames)}`));
          }
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`no matching frame within ${timeoutMs} ms; got ${JSON.stringify(frames)}`));
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      }),
  };
}

/** Text of an event frame's parts. */
export function frameText(frame: Record<string, unknown>): string {
  const parts = ((frame.content as { parts?: { text?: string }[] } | undefined)?.parts ?? []) as {
    text?: string;
  }[];
  return parts.map((p) => p.text ?? '').join('');
}
