import type { Context, Hono } from 'hono';
import { idParam, type RouteContext } from './context.js';

/**
 * What ADK's web UI asks for at start-up besides the API proper: eval sets and results (empty until
 * eval routes are added through the `routes` option, which take precedence), the YAML builder
 * (no YAML apps here: an empty file, as ADK answers), metrics info and telemetry consent.
 */
export function devRoutes(app: Hono, ctx: RouteContext): void {
  const emptyList = async (c: Context) => {
    await ctx.apps.assertApp(idParam(c, 'app'));
    return c.json([]);
  };
  for (const prefix of ['/dev/apps/:app', '/apps/:app']) {
    app.get(`${prefix}/eval_sets`, emptyList);
    app.get(`${prefix}/eval_results`, emptyList);
    app.get(`${prefix}/eval-sets`, async (c) => {
      await ctx.apps.assertApp(idParam(c, 'app'));
      return c.json({ evalSetIds: [] });
    });
    app.get(`${prefix}/eval-results`, async (c) => {
      await ctx.apps.assertApp(idParam(c, 'app'));
      return c.json({ evalResultIds: [] });
    });
    app.get(`${prefix}/metrics-info`, async (c) => {
      await ctx.apps.assertApp(idParam(c, 'app'));
      return c.json({ metricsInfo: [] });
    });
  }
  app.get('/dev/apps/:app/builder', async (c) => {
    await ctx.apps.assertApp(idParam(c, 'app'));
    return c.text('');
  });
  app.get('/config/telemetry', (c) => c.json({ telemetry: false }));
}
