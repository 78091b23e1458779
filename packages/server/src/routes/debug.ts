import { eventFunctionCalls, eventFunctionResponses, NotFoundError, Workflow } from '@adk/core';
import type { Context, Hono } from 'hono';
import { agentGraph, appInfo, graphToDot } from '../graph/agent-graph.js';
import { workflowDot } from '../graph/workflow-graph.js';
import { idParam, type RouteContext, sessionKey } from './context.js';

/** Traces from the in-process span store, and the agent graphs. */
export function debugRoutes(app: Hono, ctx: RouteContext): void {
  const sessionTrace = (c: Context) => c.json(ctx.spans?.sessionSpans(idParam(c, 'session')) ?? []);
  const eventTrace = (c: Context) => {
    const trace = ctx.spans?.eventTrace(idParam(c, 'event'));
    if (!trace) throw new NotFoundError('Trace not found');
    return c.json(trace);
  };
  app.get('/debug/trace/session/:session', sessionTrace);
  app.get('/debug/trace/:event', eventTrace);
  app.get('/dev/apps/:app/debug/trace/session/:session', sessionTrace);
  app.get('/dev/apps/:app/debug/trace/:event', eventTrace);

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
