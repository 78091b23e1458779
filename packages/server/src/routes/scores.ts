import { type ScoreQuery, type ScoreSummaryQuery, ValidationError } from '@adk/core';
import type { Context, Hono } from 'hono';
import { idParam, type RouteContext } from './context.js';

const NAME = /^[A-Za-z0-9_.:-]{1,128}$/;

function optionalNumber(c: Context, name: string): number | undefined {
  const text = c.req.query(name);
  if (text === undefined || text === '') return undefined;
  const value = Number(text);
  if (!Number.isFinite(value) || value < 0)
    throw new ValidationError(`Query parameter ${name} must be a non-negative number`);
  return value;
}

function optionalScorer(c: Context): string | undefined {
  const text = c.req.query('scorer');
  if (text === undefined || text === '') return undefined;
  if (!NAME.test(text)) throw new ValidationError('Query parameter scorer is not a scorer name');
  return text;
}

function optionalId(c: Context, name: string): string | undefined {
  const text = c.req.query(name);
  if (text === undefined || text === '') return undefined;
  if (text.length > 256 || /\p{Cc}/u.test(text))
    throw new ValidationError(`Query parameter ${name} is not an id`);
  return text;
}

function defined<T extends object>(entries: [keyof T, unknown][]): Partial<T> {
  return Object.fromEntries(entries.filter(([, v]) => v !== undefined)) as Partial<T>;
}

/**
 * Scorer results of an app (`ScorersPlugin` writes them):
 * - `GET /apps/{app}/scores?scorer=&from=&to=&session=&invocation=&limit=` → `{ scores }`, newest first;
 * - `GET /apps/{app}/scores/summary?scorer=&from=&to=&bucket_ms=` → `{ summaries }` (count, failed,
 *   mean, p50, min, max per scorer and window). Times are ms since the epoch; a malformed query is a
 *   422 `VALIDATION`.
 */
export function scoreRoutes(app: Hono, ctx: RouteContext): void {
  const list = async (c: Context) => {
    const appName = idParam(c, 'app');
    const query = {
      appName,
      ...defined<ScoreQuery>([
        ['scorerName', optionalScorer(c)],
        ['sessionId', optionalId(c, 'session')],
        ['invocationId', optionalId(c, 'invocation')],
        ['from', optionalNumber(c, 'from')],
        ['to', optionalNumber(c, 'to')],
        ['limit', optionalNumber(c, 'limit')],
      ]),
    } as ScoreQuery;
    await ctx.apps.assertApp(appName);
    return c.json({ scores: ctx.scores ? await ctx.scores.list(query) : [] });
  };
  const summary = async (c: Context) => {
    const appName = idParam(c, 'app');
    const query = {
      appName,
      ...defined<ScoreSummaryQuery>([
        ['scorerName', optionalScorer(c)],
        ['from', optionalNumber(c, 'from')],
        ['to', optionalNumber(c, 'to')],
        ['bucketMs', optionalNumber(c, 'bucket_ms')],
      ]),
    } as ScoreSummaryQuery;
    await ctx.apps.assertApp(appName);
    return c.json({ summaries: ctx.scores ? await ctx.scores.summarize(query) : [] });
  };
  app.get('/apps/:app/scores', list);
  app.get('/apps/:app/scores/summary', summary);
  // The dev UI's own prefix.
  app.get('/dev/apps/:app/scores', list);
  app.get('/dev/apps/:app/scores/summary', summary);
}
