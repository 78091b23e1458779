import { CancelledError, LiveConnectionClosedError } from '@adk/core';
import { ApiCallError, extractErrorMessage, RateLimitError } from '@adk/core/http';
import { WebSocket } from 'ws';

export interface OpenLiveSocketOptions {
  url: string;
  /** The URL as it may appear in errors (credentials removed). */
  displayUrl: string;
  headers: Record<string, string>;
  apiName: string;
  signal?: AbortSignal | undefined;
  /** Default 30 s. */
  handshakeTimeoutMs?: number | undefined;
}

/** WebSocket close codes that end a session normally: 1000 (normal), 1005 (no status sent). */
const NORMAL_CLOSE_CODES = new Set([1000, 1005]);

/**
 * One WebSocket to a vendor's live endpoint: JSON frames out, text frames in (binary frames are
 * read as UTF-8 text). A single consumer pulls frames
 * with `next()`; an abnormal close is thrown as `LiveConnectionClosedError` with the close code.
 */
export class LiveSocket {
  private readonly queue: string[] = [];
  private waiter: (() => void) | undefined;
  private closeInfo: { code: number; reason: string } | undefined;
  private closing = false;
  private interrupted = false;

  private constructor(
    private readonly ws: WebSocket,
    private readonly signal: AbortSignal | undefined,
  ) {
    ws.on('message', (data, _isBinary) => {
      this.queue.push(toText(data));
      this.wake();
    });
    ws.on('close', (code, reason) => {
      this.closeInfo = { code, reason: reason.toString('utf8') };
      this.signal?.removeEventListener('abort', this.onAbort);
      this.wake();
    });
    // Errors after the handshake are followed by 'close' (code 1006); nothing to do here.
    ws.on('error', () => {});
    if (signal) signal.addEventListener('abort', this.onAbort, { once: true });
  }

  private readonly onAbort = (): void => {
    void this.close();
  };

  static open(options: OpenLiveSocketOptions): Promise<LiveSocket> {
    const { signal } = options;
    if (signal?.aborted) return Promise.reject(new CancelledError());
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(options.url, {
        headers: options.headers,
        handshakeTimeout: options.handshakeTimeoutMs ?? 30_000,
        perMessageDeflate: false,
      });
      let settled = false;
      const fail = (error: Error): void => {
        if (settled) return;
        settled = true;
        signal?.removeEventListener('abort', onAbort);
        ws.removeAllListeners();
        ws.on('error', () => {});
        ws.terminate();
        reject(error);
      };
      const onAbort = (): void => fail(new CancelledError());
      signal?.addEventListener('abort', onAbort, { once: true });
      ws.once('open', () => {
        if (settled) return;
        settled = true;
        signal?.removeEventListener('abort', onAbort);
        ws.removeAllListeners();
        resolve(new LiveSocket(ws, signal));
      });
      ws.once('unexpected-response', (_request, response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const body = Buffer.concat(chunks).toString('utf8').slice(0, 4_000);
          const status = response.statusCode ?? 0;
          const vendorMessage = extractErrorMessage(safeJson(body) ?? body);
          const message = `${options.apiName} refused the live connection (HTTP ${status})${vendorMessage ? `: ${vendorMessage}` : ''}`;
          const details = { url: options.displayUrl, status, ...(vendorMessage ? { vendorMessage } : {}) };
          fail(
            status === 429
              ? new RateLimitError(message, details)
              : new ApiCallError(message, { ...details, failure: 'http' }),
          );
        });
        response.on('error', (error: Error) =>
          fail(
            new ApiCallError(`${options.apiName} live handshake failed: ${error.message}`, {
              url: options.displayUrl,
              failure: 'network',
              cause: error,
            }),
          ),
        );
      });
      ws.once('error', (error) => {
        const timeout = /timed out/i.test(error.message);
        fail(
          new ApiCallError(`${options.apiName} live connection failed: ${redact(error.message, options)}`, {
            url: options.displayUrl,
            failure: timeout ? 'timeout' : 'network',
          }),
        );
      });
      ws.once('close', (code, reason) =>
        fail(new LiveConnectionClosedError(code, reason.toString('utf8') || undefined)),
      );
    });
  }

  get isOpen(): boolean {
    return this.ws.readyState === WebSocket.OPEN;
  }

  /** Sends one JSON frame. Throws `LiveConnectionClosedError` once the socket is closed. */
  send(frame: unknown): Promise<void> {
    if (this.ws.readyState !== WebSocket.OPEN) return Promise.reject(this.closedError());
    const text = JSON.stringify(frame);
    return new Promise((resolve, reject) => {
      this.ws.send(text, (error) => (error ? reject(this.closedError(error)) : resolve()));
    });
  }

  /**
   * The next frame's text; `undefined` once the socket closed normally (1000/1005, `close()` or
   * the abort signal); `null` after `interrupt()`. Throws `LiveConnectionClosedError` after an
   * abnormal close.
   */
  async next(): Promise<string | undefined | null> {
    for (;;) {
      if (this.interrupted) {
        this.interrupted = false;
        return null;
      }
      const frame = this.queue.shift();
      if (frame !== undefined) return frame;
      if (this.closeInfo) {
        if (this.closing || NORMAL_CLOSE_CODES.has(this.closeInfo.code)) return undefined;
        throw this.closedError();
      }
      await new Promise<void>((resolve) => {
        this.waiter = resolve;
      });
    }
  }

  /** Makes the pending (or next) `next()` return `null`: the reader has something else to deliver first. */
  interrupt(): void {
    this.interrupted = true;
    this.wake();
  }

  /** Closes the socket (idempotent); pending `next()` calls return `undefined`. */
  async close(code = 1000, reason = ''): Promise<void> {
    this.signal?.removeEventListener('abort', this.onAbort);
    if (this.closeInfo) return;
    this.closing = true;
    const closed = new Promise<void>((resolve) => this.ws.once('close', () => resolve()));
    if (this.ws.readyState === WebSocket.CONNECTING || this.ws.readyState === WebSocket.OPEN)
      this.ws.close(code, reason);
    // A peer that never answers the close handshake does not hold us up for long.
    const timer = setTimeout(() => this.ws.terminate(), 2_000);
    await closed;
    clearTimeout(timer);
  }

  private closedError(cause?: unknown): Error {
    if (this.closing) return new CancelledError('The live connection was closed');
    const info = this.closeInfo ?? { code: 1006, reason: '' };
    return new LiveConnectionClosedError(info.code, info.reason || undefined, cause ? { cause } : {});
  }

  private wake(): void {
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.();
  }
}

function toText(data: WebSocket.RawData): string {
  if (Buffer.isBuffer(data)) return data.toString('utf8');
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data).toString('utf8');
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function redact(message: string, options: OpenLiveSocketOptions): string {
  return message.split(options.url).join(options.displayUrl);
}
