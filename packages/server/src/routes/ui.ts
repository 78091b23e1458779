import type { Context, Hono } from 'hono';

/** A web UI served by the server (e.g. `@adk/dev-ui`): its handler answers under `basePath`. */
export interface AdkServerUi {
  /** Where the UI lives, e.g. `/dev-ui`. */
  basePath: string;
  /** Answers a request under `basePath`, or `undefined` for a path it does not have (404). */
  fetch(request: Request): Promise<Response | undefined>;
}

/** `GET /` redirects to the UI; everything under its base path goes to its handler. */
export function uiRoutes(app: Hono, ui: AdkServerUi): void {
  const base = `/${ui.basePath.replace(/^\/+|\/+$/g, '')}`;
  app.get('/', (c) => c.redirect(`${base}/`));
  // The query (e.g. `?app=x&session=y`, a link into the UI) survives the added slash.
  app.get(base, (c) => c.redirect(`${base}/${new URL(c.req.url).search}`));
  const serve = async (c: Context) => (await ui.fetch(c.req.raw)) ?? c.notFound();
  app.get(`${base}/*`, serve);
  app.on('HEAD', `${base}/*`, serve);
}
