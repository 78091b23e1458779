import type { AddressInfo } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';
import type { AdkServer } from './create-adk-server.js';

export interface ListenOptions {
  /** Default `127.0.0.1`: only this machine. Pass `0.0.0.0` (and `allowedHosts`) to expose it. */
  host?: string;
  /** Default 8000; 0 picks a free port. */
  port?: number;
}

export interface ListeningAdkServer {
  url: string;
  port: number;
  /** Stops accepting connections, closes the AdkServer gracefully, then ends the remaining connections. */
  close(): Promise<void>;
}

/** Serves an AdkServer on Node's HTTP server. */
export async function listenAdkServer(
  server: AdkServer,
  opts: ListenOptions = {},
): Promise<ListeningAdkServer> {
  const host = opts.host ?? '127.0.0.1';
  const http = createAdaptorServer({ fetch: (request) => server.fetch(request), hostname: host });
  http.on('upgrade', (request, socket, head) => server.handleUpgrade(request, socket, head));
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(opts.port ?? 8000, host, () => {
      http.off('error', reject);
      resolve();
    });
  });
  const port = (http.address() as AddressInfo).port;
  const shown = host.includes(':') ? `[${host}]` : host;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${shown}:${port}`,
    port,
    close: () => {
      closing ??= (async () => {
        const closed = new Promise<void>((resolve) => http.close(() => resolve()));
        await server.close();
        const h = http as unknown as { closeIdleConnections?: () => void; closeAllConnections?: () => void };
        h.closeIdleConnections?.();
        h.closeAllConnections?.();
        await closed;
      })();
      return closing;
    },
  };
}
