import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { describeError, isAdkError, LiveRequestQueue } from '@adk/core';
import { type WebSocket, WebSocketServer } from 'ws';
import { checkRequestOrigin, checkToken } from '../http/guard.js';
import type { RouteContext } from '../routes/context.js';
import { errorLine } from '../server/logger.js';
import type { TrackedRun } from '../server/run-tracker.js';
import { eventToAdkJson } from '../wire/adk-json.js';
import { type LiveQuery, parseLiveFrame, parseLiveQuery } from './live-frames.js';

/** The WebSocket close codes of `/run_live` (adk-python's, plus 1001 on shutdown). */
export const LIVE_CLOSE = {
  normal: 1000,
  goingAway: 1001,
  /** adk-python closes with 1002 when the session does not exist. */
  noSession: 1002,
  /** Refused: Host, Origin, token, query parameters, unknown app. */
  policy: 1008,
  /** The live run failed. */
  error: 1011,
} as const;

/** Sub-protocol a browser offers to carry the bearer token (it cannot set Authorization). */
export const LIVE_PROTOCOL = 'adk.live';
const TOKEN_PROTOCOL_PREFIX = 'adk.token.';

export const LIVE_PATH = '/run_live';

export interface LiveSocketsOptions {
  allowedHosts: readonly string[];
  allowedOrigins: readonly string[];
  token: string | undefined;
  /** Largest frame accepted, bytes (larger ones close the socket with 1009). */
  maxPayload: number;
  /** Ping every this many ms; a client that has not answered the previous ping is dropped. */
  heartbeatMs: number;
}

/** Queued on a socket whose client stops reading: beyond this, events wait for the buffer to drain. */
const HIGH_WATER = 4 * 1024 * 1024;
/** A close reason is at most 123 bytes. */
const REASON_BYTES = 123;

function reason(text: string): string {
  const bytes = Buffer.from(text);
  if (bytes.length <= REASON_BYTES) return text;
  return `${bytes
    .subarray(0, REASON_BYTES - 3)
    .toString('utf8')
    .replace(/\uFFFD+$/, '')}...`;
}

function headersOf(request: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  return headers;
}

/** The token a browser sent as the `adk.token.<base64url>` sub-protocol, if any. */
function protocolToken(headers: Headers): string | undefined {
  const offered = (headers.get('sec-websocket-protocol') ?? '').split(',').map((p) => p.trim());
  const entry = offered.find((p) => p.startsWith(TOKEN_PROTOCOL_PREFIX));
  if (!entry) return undefined;
  return Buffer.from(entry.slice(TOKEN_PROTOCOL_PREFIX.length), 'base64url').toString('utf8');
}

interface LiveSession {
  socket: WebSocket;
  /** Answered the last ping (or sent something) since the previous heartbeat. */
  alive: boolean;
  queue: LiveRequestQueue;
  stop: AbortController;
  done: Promise<void>;
}

/**
 * `GET /run_live`: ADK's live WebSocket. One upgrade handler on the Node HTTP server; every check of
 * the HTTP routes (Host, Origin, token) applies, and refusals close the socket with a code that
 * says why (see LIVE_CLOSE). Client frames are LiveRequests; every event of `Runner.runLive` goes
 * out as one text frame in the JSON shape of `/run_sse`.
 */
export class LiveSockets {
  private readonly wss: WebSocketServer;
  private readonly sessions = new Set<LiveSession>();
  private closing = false;
  private heartbeat: NodeJS.Timeout | undefined;

  constructor(
    private readonly ctx: RouteContext,
    private readonly options: LiveSocketsOptions,
  ) {
    this.wss = new WebSocketServer({
      noServer: true,
      maxPayload: options.maxPayload,
      perMessageDeflate: false,
      // A browser that offers sub-protocols (the token one) needs one chosen back.
      handleProtocols: (protocols) => (protocols.has(LIVE_PROTOCOL) ? LIVE_PROTOCOL : false),
    });
  }

  /** Whether an upgrade request is for `/run_live` (others are refused by the caller). */
  static matches(request: IncomingMessage): boolean {
    const path = (request.url ?? '').split('?')[0] ?? '';
    return path === LIVE_PATH;
  }

  /** Handles an HTTP upgrade on the Node server: `/run_live` is accepted, any other path gets a 404. */
  handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void {
    if (!LiveSockets.matches(request) || this.closing) {
      const status = this.closing ? '503 Service Unavailable' : '404 Not Found';
      socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
      return;
    }
    socket.on('error', () => undefined);
    this.wss.handleUpgrade(request, socket, head, (ws) => this.accept(ws, request));
  }

  /** Closes every live socket (1001), stops their runs and waits for them to end. */
  async close(): Promise<void> {
    this.closing = true;
    clearInterval(this.heartbeat);
    this.heartbeat = undefined;
    const pending = [...this.sessions].map((s) => {
      s.socket.close(LIVE_CLOSE.goingAway, 'The server is shutting down');
      s.queue.close();
      s.stop.abort();
      return s.done;
    });
    await Promise.allSettled(pending);
    for (const client of this.wss.clients) client.terminate();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
  }

  private accept(socket: WebSocket, request: IncomingMessage): void {
    // Frames that arrive while the session is looked up wait in the queue; bad ones are answered at once.
    const queue = new LiveRequestQueue();
    const stop = new AbortController();
    socket.on('error', () => undefined);
    socket.on('message', (data, isBinary) => {
      if (queue.isClosed) return;
      if (isBinary) {
        this.sendError(
          socket,
          'BAD_REQUEST',
          'Binary frames are not accepted: send LiveRequest JSON as text',
        );
        return;
      }
      const text = Buffer.isBuffer(data)
        ? data.toString('utf8')
        : Array.isArray(data)
          ? Buffer.concat(data).toString('utf8')
          : Buffer.from(data).toString('utf8');
      try {
        queue.send(parseLiveFrame(text));
      } catch (error) {
        this.sendError(socket, isAdkError(error) ? error.code : 'BAD_REQUEST', describeError(error));
      }
    });
    socket.on('close', () => {
      queue.close();
      stop.abort();
    });
    const session: LiveSession = { socket, alive: true, queue, stop, done: Promise.resolve() };
    socket.on('pong', () => {
      session.alive = true;
    });
    session.done = this.serve(session, request)
      .catch((error: unknown) => {
        this.ctx.logger.error(errorLine('run_live failed', error));
        if (socket.readyState === socket.OPEN) socket.close(LIVE_CLOSE.error, 'Internal server error');
      })
      .finally(() => this.sessions.delete(session));
    this.sessions.add(session);
    this.heartbeat ??= setInterval(() => this.beat(), this.options.heartbeatMs);
    this.heartbeat.unref?.();
  }

  /**
   * A peer that vanished (a laptop lid closed, a network dropped) sends no close frame: without
   * pings its run, and the model connection behind it, would stay open. A client that does not
   * answer within one interval is terminated, which ends its run like a close.
   */
  private beat(): void {
    if (this.sessions.size === 0) {
      clearInterval(this.heartbeat);
      this.heartbeat = undefined;
      return;
    }
    for (const session of this.sessions) {
      if (session.socket.readyState !== session.socket.OPEN) continue;
      if (!session.alive) {
        session.socket.terminate();
        continue;
      }
      session.alive = false;
      session.socket.ping();
    }
  }

  private async serve(session: LiveSession, request: IncomingMessage): Promise<void> {
    const { socket } = session;
    const refuse = (code: number, text: string) => {
      if (socket.readyState === socket.OPEN) socket.close(code, reason(text));
    };
    const headers = headersOf(request);
    const url = new URL(request.url ?? '/', `http://${headers.get('host') ?? 'localhost'}`);
    let query: LiveQuery;
    try {
      checkRequestOrigin({ headers }, url, this.options.allowedHosts, this.options.allowedOrigins);
      if (this.options.token) {
        const fromProtocol = protocolToken(headers);
        if (fromProtocol !== undefined && !headers.has('authorization'))
          headers.set('authorization', `Bearer ${fromProtocol}`);
        checkToken({ headers }, this.options.token);
      }
      query = parseLiveQuery(url);
    } catch (error) {
      refuse(LIVE_CLOSE.policy, describeError(error));
      return;
    }
    if (!(await this.ctx.apps.has(query.appName).catch(() => false))) {
      refuse(LIVE_CLOSE.policy, `App not found: ${query.appName}`);
      return;
    }
    let tracked: TrackedRun;
    try {
      tracked = this.ctx.runs.start();
    } catch (error) {
      refuse(LIVE_CLOSE.goingAway, describeError(error));
      return;
    }
    try {
      await this.run(session, query, tracked);
    } finally {
      tracked.end();
    }
  }

  private async run(session: LiveSession, query: LiveQuery, tracked: TrackedRun): Promise<void> {
    const { socket, queue, stop } = session;
    const key = { appName: query.appName, userId: query.userId, sessionId: query.sessionId };
    const signal = AbortSignal.any([tracked.signal, stop.signal]);
    try {
      const exists = await this.ctx.stores.sessionService.getSession({ ...key, numRecentEvents: 0 });
      if (!exists) {
        if (socket.readyState === socket.OPEN) socket.close(LIVE_CLOSE.noSession, 'Session not found');
        return;
      }
      const runner = await this.ctx.apps.runner(query.appName);
      const events = runner.runLive({
        userId: query.userId,
        sessionId: query.sessionId,
        liveRequestQueue: queue,
        runConfig: query.runConfig,
        signal,
      });
      for await (const event of events) {
        if (socket.readyState !== socket.OPEN) break;
        socket.send(JSON.stringify(eventToAdkJson(event)));
        if (socket.bufferedAmount > HIGH_WATER) await this.drained(socket, signal);
      }
      if (socket.readyState === socket.OPEN) socket.close(LIVE_CLOSE.normal, 'Live session ended');
    } catch (error) {
      if (signal.aborted && socket.readyState !== socket.OPEN) return; // the client left, or shutdown
      if (isAdkError(error, 'NOT_FOUND') && socket.readyState === socket.OPEN) {
        // Deleted between the check and the run's first read.
        socket.close(LIVE_CLOSE.noSession, 'Session not found');
        return;
      }
      this.ctx.logger.error(errorLine(`run_live ${query.appName}/${query.sessionId} failed`, error));
      if (socket.readyState === socket.OPEN) {
        const name = error instanceof Error ? error.name : 'Error';
        socket.close(LIVE_CLOSE.error, reason(`${name}: ${describeError(error)}`));
      }
    } finally {
      queue.close();
    }
  }

  /** Waits until a slow client has read most of what is queued for it (or the run stops). */
  private async drained(socket: WebSocket, signal: AbortSignal): Promise<void> {
    while (socket.bufferedAmount > HIGH_WATER / 2 && socket.readyState === socket.OPEN && !signal.aborted)
      await new Promise((resolve) => setTimeout(resolve, 10));
  }

  private sendError(socket: WebSocket, code: string, message: string): void {
    if (socket.readyState === socket.OPEN) socket.send(JSON.stringify({ error: message, code }));
  }
}
