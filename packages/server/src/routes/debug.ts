import {
  eventFunctionCalls,
  eventFunctionResponses,
  NotFoundError,
  type StoredSpan,
  type TraceQuery,
  ValidationError,
  Workflow,
} from '@adk/core';
import type { Context, Hono } from 'hono';
import { agentGraph, appInfo, graphToDot } from '../graph/agent-graph.js';
import { agentSkills } from '../graph/agent-skills.js';
import { workflowDot } from '../graph/workflow-graph.js';
import type { SpanRecord } from '../telemetry/span-store.js';
import { idParam, type RouteContext, sessionKey } from './context.js';

const STATUSES = new Set(['ok', 'error']);

function optionalNumber(c: Context, name: string): number | undefined {
  const text = c.req.query(name);
  if (text === undefined || text === '') return undefined;
  const value = Number(text);
  if (!Number.isFinite(value)) throw new ValidationError(`Query parameter ${name} must be a number`);
  return value;
}

function optionalText(c: Context, name: string): string | undefined {
  const text = c.req.query(name);
  if (text === undefined || text === '') return undefined;
  if (text.length > 1024) throw new ValidationError(`Query parameter ${name} is too long`);
  return text;
}

/** `GET /debug/traces` query parameters as a trace query. */
function traceQuery(c: Context): TraceQuery {
  const status = optionalText(c, 'status');
  if (status !== undefined && !STATUSES.has(status))
    throw new ValidationError('Query parameter status must be ok or error');
  const attribute = optionalText(c, 'attribute');
  let attr: TraceQuery['attribute'];
  if (attribute !== undefined) {
    const eq = attribute.indexOf('=');
    if (eq < 1) throw new ValidationError('Query parameter attribute must be key=value');
    attr = { key: attribute.slice(0, eq), value: attribute.slice(eq + 1) };
  }
  const entries: [keyof TraceQuery, unknown][] = [
    ['appName', optionalText(c, 'app') ?? c.req.param('app')],
    ['userId', optionalText(c, 'user')],
    ['sessionId', optionalText(c, 'session')],
    ['invocationId', optionalText(c, 'invocation')],
    ['from', optionalNumber(c, 'from')],
    ['to', optionalNumber(c, 'to')],
    ['status', status],
    ['minDurationMs', optionalNumber(c, 'min_duration_ms')],
    ['maxDurationMs', optionalNumber(c, 'max_duration_ms')],
    ['attribute', attr],
    ['limit', optionalNumber(c, 'limit')],
    ['cursor', optionalText(c, 'cursor')],
  ];
  return Object.fromEntries(entries.filter(([, v]) => v !== undefined)) as TraceQuery;
}

/** Persisted spans first; this process's newest (not written yet) fill in, and win when both have one. */
function merged(persisted: StoredSpan[], local: SpanRecord[]): StoredSpan[] {
  const bySpan = new Map<string, StoredSpan>();
  for (const span of persisted) bySpan.set(`${span.trace_id}/${span.span_id}`, span);
  for (const span of local) bySpan.set(`${span.trace_id}/${span.span_id}`, span);
  return [...bySpan.values()].sort((a, b) => a.start_time - b.start_time);
}

/**
 * Traces: from the persisted trace store when there is one (the sessions' database), with this
 * process's spans not yet written filling in; else from the in-process span store. And the agent
 * graphs.
 */
export function debugRoutes(app: Hono, ctx: RouteContext): void {
  const sessionTrace = async (c: Context) => {
    const sessionId = idParam(c, 'session');
    const local = ctx.spans?.sessionSpans(sessionId) ?? [];
    if (!ctx.traces) return c.json(local);
    return c.json(merged(await ctx.traces.sessionSpans(sessionId), local));
  };
  const eventTrace = async (c: Context) => {
    const eventId = idParam(c, 'event');
    let trace = ctx.spans?.eventTrace(eventId);
    if (!trace && ctx.traces) {
      const span = await ctx.traces.eventSpan(eventId);
      if (span) trace = { ...span.attributes, trace_id: span.trace_id, span_id: span.span_id };
    }
    if (!trace) throw new NotFoundError('Trace not found');
    return c.json(trace);
  };
  const listTraces = async (c: Context) => {
    const query = traceQuery(c);
    if (ctx.traces) return c.json(await ctx.traces.listTraces(query));
    return c.json(ctx.spans?.listTraces(query) ?? { traces: [] });
  };
  const traceSpans = async (c: Context) => {
    const traceId = idParam(c, 'trace');
    const local = ctx.spans?.traceSpans(traceId) ?? [];
    const spans = ctx.traces ? merged(await ctx.traces.traceSpans(traceId), local) : local;
    if (spans.length === 0) throw new NotFoundError('Trace not found');
    return c.json(spans);
  };
  app.get('/debug/trace/session/:session', sessionTrace);
  app.get('/debug/trace/:event', eventTrace);
  app.get('/debug/traces', listTraces);
  app.get('/debug/traces/:trace', traceSpans);
  app.get('/dev/apps/:app/debug/trace/session/:session', sessionTrace);
  app.get('/dev/apps/:app/debug/trace/:event', eventTrace);
  app.get('/dev/apps/:app/debug/traces', listTraces);
  app.get('/dev/apps/:app/debug/traces/:trace', traceSpans);

  // The agent graph with the event's step highlighted: a call from its author to each tool, or a
  // response from each tool back to it; `{}` when the session or event is not there, like ADK.
  app.get('/apps/:app/users/:user/sessions/:session/events/:event/graph', async (c) => {
    const key = await sessionKey(ctx, c);
    const eventId = idParam(c, 'event');
    const session = await ctx.stores.sessionService.getSession(key);
    const event = session?.events.find((e) => e.id === eventId);
    if (!event) return c.json({});
    const root = await ctx.apps.agent(key.appName);
    const calls = eventFunctionCalls(event);
    const responses = eventFunctionResponses(event);
    const highlights: [string, string][] =
      calls.length > 0
        ? calls.map((call) => [event.author, call.name])
        : responses.length > 0
          ? responses.map((r) => [r.name, event.author])
          : [[event.author, '']];
    return c.json({ dotSrc: graphToDot(agentGraph(root), { highlights }) });
  });

  app.get('/dev/apps/:app/build_graph', async (c) => {
    const name = idParam(c, 'app');
    return c.json(appInfo(name, await ctx.apps.agent(name)));
  });

  // The skills each agent can load (toolsets that list skills, such as @adk/skills' SkillToolset),
  // with the state key prefix that marks one loaded; the dev UI's Skills tab reads it.
  app.get('/dev/apps/:app/skills', async (c) => {
    const name = idParam(c, 'app');
    return c.json({ agents: await agentSkills(await ctx.apps.agent(name)) });
  });

  // ADK answers `{path: {dotSrc}}` per (sub-)workflow; the whole tree is the one at path "".
  app.get('/dev/apps/:app/build_graph_image', async (c) => {
    const name = idParam(c, 'app');
    const root = await ctx.apps.agent(name);
    const node = c.req.query('node');
    const target = node ? root.findAgent(node.split('.').at(-1) ?? node) : root;
    if (!target) throw new NotFoundError(`Node not found: ${node}`);
    const darkMode = c.req.query('dark_mode') === 'true';
    const dotSrc =
      target instanceof Workflow
        ? workflowDot(target, { darkMode })
        : graphToDot(agentGraph(target), { darkMode });
    return c.json({ [node ?? '']: { dotSrc } });
  });
}
