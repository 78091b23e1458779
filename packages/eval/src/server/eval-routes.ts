import { existsSync } from 'node:fs';
import { join } from 'node:path';
import {
  type BaseAgent,
  type Event,
  formatIssues,
  isAdkError,
  lazyZod,
  NotFoundError,
  type SchemaLike,
  type Session,
  ValidationError,
} from '@adk/core';
import type { Context, Hono } from 'hono';
import { serializeEvalSetResult } from '../eval-set/eval-result-io.js';
import { parseEvalSet, serializeEvalSet } from '../eval-set/eval-set-io.js';
import { evalCaseFromSession } from '../eval-set/from-session.js';
import { toCamelKeys } from '../eval-set/keys.js';
import { LocalEvalSetsManager } from '../eval-set/local-eval-sets-manager.js';
import type { EvalCase, EvalMetric } from '../eval-set/types.js';
import type { Metric, MetricFunction } from '../metrics/metric.js';
import { listMetricInfo } from '../metrics/registry.js';
import { LocalEvalSetResultsManager } from '../report/history.js';
import { type EvaluateOptions, evaluate } from '../runner/evaluate.js';

export interface EvalRoutesOptions {
  /** The folder of apps: eval sets are `<agentsDir>/<app>/*.evalset.json`, results `<app>/.adk/eval_history`. */
  agentsDir: string;
  /** The root agent of an app, to run evals. */
  loadAgent: (appName: string) => Promise<BaseAgent>;
  /** Whether an app exists (unknown apps answer 404). Default: `<agentsDir>/<app>` exists. */
  hasApp?: (appName: string) => Promise<boolean> | boolean;
  /**
   * Reads a recorded session (for "add session to eval set"). Default: this same server's
   * `GET /apps/{app}/users/{user}/sessions/{id}`, called in-process with the caller's headers.
   */
  getSession?: (key: { appName: string; userId: string; sessionId: string }) => Promise<Session | undefined>;
  /** Custom metrics offered to runs and listed by `/metrics-info`. */
  customMetrics?: Record<string, Metric | MetricFunction>;
  /** More options for runs (judge, models, concurrency, ...). */
  evaluateOptions?: Partial<Omit<EvaluateOptions, 'agent' | 'evalSets' | 'metrics' | 'appName'>>;
}

const bodies = lazyZod((z) => ({
  addSession: z.object({
    evalId: z.string().min(1),
    sessionId: z.string().min(1),
    userId: z.string().min(1),
  }),
  createSet: z.object({ evalSet: z.looseObject({ evalSetId: z.string() }) }),
  run: z.looseObject({
    evalIds: z.array(z.string()).default([]),
    evalCaseIds: z.array(z.string()).default([]),
    evalMetrics: z.array(
      z.looseObject({
        metricName: z.string(),
        threshold: z.number().optional(),
        criterion: z.looseObject({ threshold: z.number() }).optional(),
      }),
    ),
  }),
}));

/** The JSON body with keys in camelCase (clients may send adk-python's snake_case). */
async function readBody(c: Context): Promise<unknown> {
  let raw: unknown;
  try {
    raw = await c.req.json();
  } catch {
    throw new ValidationError('The request body is not valid JSON');
  }
  return toCamelKeys(raw);
}

function check<T>(schema: SchemaLike<T>, value: unknown): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success)
    throw new ValidationError(`Invalid request body: ${formatIssues(parsed.error.issues)}`);
  return parsed.data;
}

/** ADK answers client mistakes on these routes with 400 and a `detail`. */
function fail(c: Context, error: unknown): Response {
  if (isAdkError(error)) {
    const status =
      error.code === 'NOT_FOUND'
        ? 404
        : ['VALIDATION', 'EVAL_FORMAT', 'ALREADY_EXISTS', 'EVAL_METRIC'].includes(error.code)
          ? 400
          : undefined;
    if (status) return c.json({ detail: error.message, error: error.message, code: error.code }, status);
  }
  throw error;
}

/** A session in the api_server's JSON shape (times in seconds) back in ours (milliseconds). */
function sessionFromAdkJson(json: Record<string, unknown>): Session {
  const events = ((json.events as Record<string, unknown>[] | undefined) ?? []).map(
    (e) =>
      ({ ...e, timestamp: typeof e.timestamp === 'number' ? e.timestamp * 1000 : 0 }) as unknown as Event,
  );
  return {
    id: String(json.id),
    appName: String(json.appName),
    userId: String(json.userId),
    state: (json.state as Record<string, unknown>) ?? {},
    events,
    lastUpdateTime: typeof json.lastUpdateTime === 'number' ? json.lastUpdateTime * 1000 : 0,
  };
}

/**
 * adk-python's eval routes for `@adk/server` (pass the result in its `routes` option): eval sets and
 * cases (`/apps/{app}/eval-sets…` and the older `/eval_sets…` spellings), adding a recorded session
 * as a case, running a set, results (`/eval-results…`, `/eval_results…`) and metrics
 * (`/metrics-info`, `/eval_metrics`). Answered under `/apps/{app}` and `/dev/apps/{app}`, in camelCase.
 */
export function evalRoutes(options: EvalRoutesOptions): (app: Hono) => void {
  const sets = new LocalEvalSetsManager(options.agentsDir);
  const results = new LocalEvalSetResultsManager(options.agentsDir);
  const hasApp = options.hasApp ?? ((name: string) => existsSync(join(options.agentsDir, name)));
  const appOf = async (c: Context): Promise<string> => {
    const name = c.req.param('app') ?? '';
    if (!/^[\w.-]{1,256}$/.test(name) || name.startsWith('.') || !(await hasApp(name)))
      throw new NotFoundError(`App not found: ${name}`);
    return name;
  };
  const listSets = async (app: string): Promise<string[]> => {
    try {
      return await sets.list(app);
    } catch (error) {
      if (isAdkError(error, 'NOT_FOUND')) return [];
      throw error;
    }
  };

  return (hono: Hono) => {
    const getSession =
      options.getSession ??
      (async (key: { appName: string; userId: string; sessionId: string }, headers?: Headers) => {
        const path = `/apps/${encodeURIComponent(key.appName)}/users/${encodeURIComponent(key.userId)}/sessions/${encodeURIComponent(key.sessionId)}`;
        const response = await hono.request(path, { headers: headers ?? {} });
        if (response.status === 404) return undefined;
        if (!response.ok) throw new Error(`Could not read session ${key.sessionId}: HTTP ${response.status}`);
        return sessionFromAdkJson((await response.json()) as Record<string, unknown>);
      });

    const route = (
      method: 'get' | 'post' | 'put' | 'delete',
      paths: string[],
      handler: (c: Context, app: string) => Promise<Response>,
    ) => {
      for (const prefix of ['/apps/:app', '/dev/apps/:app']) {
        for (const path of paths) {
          hono[method](`${prefix}${path}`, async (c) => {
            try {
              return await handler(c, await appOf(c));
            } catch (error) {
              return fail(c, error);
            }
          });
        }
      }
    };

    const createSet = async (app: string, evalSetId: string) =>
      serializeEvalSet(await sets.create(app, evalSetId), { keys: 'camel' });

    route('post', ['/eval-sets'], async (c, app) => {
      const { evalSet } = check(bodies().createSet, await readBody(c));
      return c.json(await createSet(app, evalSet.evalSetId));
    });
    route('post', ['/eval_sets/:setId'], async (c, app) => {
      await createSet(app, c.req.param('setId') ?? '');
      return c.json(null);
    });
    route('get', ['/eval-sets'], async (c, app) => c.json({ evalSetIds: await listSets(app) }));
    route('get', ['/eval_sets'], async (c, app) => c.json(await listSets(app)));

    route('post', ['/eval-sets/:setId/add-session', '/eval_sets/:setId/add_session'], async (c, app) => {
      const req = check(bodies().addSession, await readBody(c));
      const session = await (options.getSession
        ? options.getSession({ appName: app, userId: req.userId, sessionId: req.sessionId })
        : getSession({ appName: app, userId: req.userId, sessionId: req.sessionId }, c.req.raw.headers));
      if (!session) throw new NotFoundError(`Session not found: ${req.sessionId}`);
      await sets.addCase(app, c.req.param('setId') ?? '', evalCaseFromSession(session, req.evalId));
      return c.json(null);
    });

    route('get', ['/eval_sets/:setId/evals', '/eval-sets/:setId/eval-cases'], async (c, app) => {
      const set = await sets.get(app, c.req.param('setId') ?? '');
      if (!set) throw new ValidationError(`Eval set \`${c.req.param('setId')}\` not found.`);
      return c.json(set.evalCases.map((x) => x.evalId).sort());
    });

    const casePaths = ['/eval-sets/:setId/eval-cases/:caseId', '/eval_sets/:setId/evals/:caseId'];
    route('get', casePaths, async (c, app) => {
      const found = await sets.getCase(app, c.req.param('setId') ?? '', c.req.param('caseId') ?? '');
      if (!found)
        throw new NotFoundError(
          `Eval set \`${c.req.param('setId')}\` or Eval \`${c.req.param('caseId')}\` not found.`,
        );
      return c.json(
        (
          serializeEvalSet(
            { evalSetId: '', evalCases: [found], creationTimestamp: 0 },
            { keys: 'camel' },
          ) as { evalCases: unknown[] }
        ).evalCases[0],
      );
    });
    route('put', casePaths, async (c, app) => {
      const caseId = c.req.param('caseId') ?? '';
      const raw = (await readBody(c)) as Record<string, unknown>;
      if (raw.evalId && raw.evalId !== caseId)
        throw new ValidationError('Eval id in EvalCase should match the eval id in the API route.');
      const parsed = parseEvalSet({ evalSetId: 'x', evalCases: [{ ...raw, evalId: caseId }] })
        .evalCases[0] as EvalCase;
      await sets.updateCase(app, c.req.param('setId') ?? '', parsed);
      return c.json(null);
    });
    route('delete', casePaths, async (c, app) => {
      await sets.deleteCase(app, c.req.param('setId') ?? '', c.req.param('caseId') ?? '');
      return c.json(null);
    });

    const run = async (c: Context, app: string) => {
      const req = check(bodies().run, await readBody(c));
      const set = await sets.get(app, c.req.param('setId') ?? '');
      if (!set) throw new ValidationError(`Eval set \`${c.req.param('setId')}\` not found.`);
      const ids = req.evalCaseIds.length ? req.evalCaseIds : req.evalIds;
      if (ids.length) set.evalCases = set.evalCases.filter((x) => ids.includes(x.evalId));
      const result = await evaluate({
        progress: false,
        ...options.evaluateOptions,
        ...(options.customMetrics ? { customMetrics: options.customMetrics } : {}),
        agent: await options.loadAgent(app),
        appName: app,
        evalSets: [set],
        metrics: req.evalMetrics as EvalMetric[],
      });
      for (const r of result.evalSetResults) await results.save(app, r);
      const setResult = result.evalSetResults[0];
      return (setResult?.evalCaseResults ?? []).map((r) => {
        const json = serializeEvalSetResult(
          { ...setResult, evalCaseResults: [r] } as NonNullable<typeof setResult>,
          {
            keys: 'camel',
          },
        ) as { evalCaseResults: Record<string, unknown>[] };
        const { sessionDetails: _details, evalMetricResults: _old, ...rest } = json.evalCaseResults[0] ?? {};
        return rest;
      });
    };
    route('post', ['/eval-sets/:setId/run'], async (c, app) => c.json({ runEvalResults: await run(c, app) }));
    route('post', ['/eval_sets/:setId/run_eval'], async (c, app) => c.json(await run(c, app)));

    route('get', ['/eval-results/:resultId', '/eval_results/:resultId'], async (c, app) =>
      c.json(
        serializeEvalSetResult(await results.get(app, c.req.param('resultId') ?? ''), { keys: 'camel' }),
      ),
    );
    route('get', ['/eval-results'], async (c, app) => c.json({ evalResultIds: await results.list(app) }));
    route('get', ['/eval_results'], async (c, app) => c.json(await results.list(app)));

    route('get', ['/metrics-info'], async (c) =>
      c.json({ metricsInfo: listMetricInfo(options.customMetrics) }),
    );
    route('get', ['/eval_metrics'], async (c) => c.json(listMetricInfo(options.customMetrics)));
  };
}
