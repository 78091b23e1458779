import type { Hono } from 'hono';
import { errorLine } from '../server/logger.js';
import { serverVersion } from '../server/version.js';
import type { RouteContext } from './context.js';

/**
 * `/health` (liveness: the process answers), `/ready` (readiness: not draining, the session store
 * answers and its migrations are applied), `/version`.
 */
export function healthRoutes(app: Hono, ctx: RouteContext): void {
  app.get('/health', (c) => c.json({ status: 'ok' }));
  app.get('/ready', async (c) => {
    // A draining instance (SIGTERM) still finishes its runs; the load balancer should stop sending.
    if (ctx.runs.draining) return c.json({ status: 'draining' }, 503);
    try {
      await ctx.stores.ping();
      return c.json({ status: 'ready' });
    } catch (error) {
      ctx.logger.warn(errorLine('Readiness check failed', error));
      return c.json({ status: 'not_ready' }, 503);
    }
  });
  app.get('/version', (c) =>
    c.json({ version: serverVersion(), language: 'typescript', language_version: process.versions.node }),
  );
}
