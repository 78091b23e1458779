import { runUsageTotals } from '@adk/core';
import type { Hono } from 'hono';
import { idParam, type RouteContext, sessionKey } from './context.js';

/**
 * Tokens and cost per session and per user, summed from the run records (each run's `usage`,
 * priced when it ended), so they outlive the trace store's retention.
 */
export function usageRoutes(app: Hono, ctx: RouteContext): void {
  app.get('/apps/:app/users/:user/sessions/:session/usage', async (c) => {
    const key = await sessionKey(ctx, c);
    const runner = await ctx.apps.runner(key.appName);
    return c.json({ ...key, ...(await runUsageTotals(runner.runs.store, key)) });
  });
  app.get('/apps/:app/users/:user/usage', async (c) => {
    const appName = idParam(c, 'app');
    const userId = idParam(c, 'user');
    await ctx.apps.assertApp(appName);
    const runner = await ctx.apps.runner(appName);
    return c.json({ appName, userId, ...(await runUsageTotals(runner.runs.store, { appName, userId })) });
  });
}
