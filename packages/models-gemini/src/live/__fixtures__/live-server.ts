import type { IncomingHttpHeaders } from 'node:http';
import { type WebSocket, WebSocketServer } from 'ws';

/** One client connection as the local live server sees it. */
export interface LivePeer {
  url: string;
  headers: IncomingHttpHeaders;
  /** Every frame the client sent so far (parsed JSON). */
  received: unknown[];
  /** The next frame the client sends (waits for it). */
  next(): Promise<unknown>;
  send(frame: unknown, options?: { binary?: boolean }): void;
  sendRaw(text: string): void;
  close(code?: number, reason?: string): void;
  /** Drops the TCP connection without a close frame (the client sees 1006). */
  terminate(): void;
  /** Resolves when the client closed the socket, with the close code. */
  closed: Promise<number>;
}

export interface LiveServer {
  /** `ws://127.0.0.1:port` */
  url: string;
  /** What the server does with each new connection (set by each test). */
  onConnection: (peer: LivePeer) => void | Promise<void>;
  /** Refuse the WebSocket handshake with this HTTP status (and JSON body) while set. */
  refuse: { status: number; body: unknown } | undefined;
  close(): Promise<void>;
}

/** A WebSocket server on 127.0.0.1 that scripts vendor frames; one per test file. */
export async function startLiveServer(): Promise<LiveServer> {
  const server: LiveServer = {
    url: '',
    onConnection: () => {},
    refuse: undefined,
    close: async () => {},
  };
  const wss = new WebSocketServer({
    host: '127.0.0.1',
    port: 0,
    verifyClient: (_info, done) => {
      const refuse = server.refuse;
      if (refuse)
        done(false, refuse.status, JSON.stringify(refuse.body), { 'content-type': 'application/json' });
      else done(true);
    },
  });
  await new Promise<void>((resolve) => wss.once('listening', () => resolve()));
  const address = wss.address();
  if (!address || typeof address === 'string') throw new Error('unexpected address');
  server.url = `ws://127.0.0.1:${address.port}`;
  wss.on('connection', (socket: WebSocket, request) => {
    const received: unknown[] = [];
    const waiting: ((frame: unknown) => void)[] = [];
    let read = 0;
    const closed = new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)));
    socket.on('message', (data) => {
      received.push(JSON.parse(data.toString()));
      const waiter = waiting.shift();
      if (waiter) waiter(received[read++]);
    });
    const peer: LivePeer = {
      url: request.url ?? '',
      headers: request.headers,
      received,
      next: () =>
        read < received.length
          ? Promise.resolve(received[read++])
          : new Promise((resolve) => waiting.push(resolve)),
      send: (frame, options) => {
        const text = JSON.stringify(frame);
        socket.send(options?.binary ? Buffer.from(text, 'utf8') : text, { binary: options?.binary ?? false });
      },
      sendRaw: (text) => socket.send(text),
      close: (code = 1000, reason = '') => socket.close(code, reason),
      terminate: () => socket.terminate(),
      closed,
    };
    void server.onConnection(peer);
  });
  server.close = () =>
    new Promise<void>((resolve) => {
      for (const client of wss.clients) client.terminate();
      wss.close(() => resolve());
    });
  return server;
}
