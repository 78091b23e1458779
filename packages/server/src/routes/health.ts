import type { Hono } from 'hono';
import { errorLine } from '../server/logger.js';
import { serverVersion } from '../server/version.js';
import type { RouteContext } from './context.js';

/** `/health` (the process answers), `/ready` (the session store answers), `/version`. */
export function healthRoutes(app: Hono, ctx: RouteContext): void {
  app.get('/health', (c) => c.json({ status: 'ok' }));
  app.get('/ready', async (c) => {
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
