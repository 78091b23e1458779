import type { BaseAgent } from '@adk/core';
import type { Hono } from 'hono';
import { agentGraph } from '../graph/agent-graph.js';
import { errorLine } from '../server/logger.js';
import { idParam, type RouteContext } from './context.js';

function appSummary(name: string, agent: BaseAgent, language: string) {
  return {
    name,
    rootAgentName: agent.name,
    description: agent.description,
    language,
    isComputerUse: false,
  };
}

/** `GET /list-apps` (names, or `?detailed=true`) and `GET /apps/{app}/app-info`. */
export function appRoutes(app: Hono, ctx: RouteContext): void {
  // ADK's web UI sends `?relative_path=./`; apps come from the server's own list, so it is ignored.
  app.get('/list-apps', async (c) => {
    const names = await ctx.apps.names();
    if (c.req.query('detailed') !== 'true') return c.json(names);
    const apps = [];
    for (const name of names) {
      try {
        apps.push({
          ...appSummary(name, await ctx.apps.agent(name), await ctx.apps.language(name)),
          ...(ctx.protocols ? { protocols: ctx.protocols(name) } : {}),
        });
      } catch (error) {
        ctx.logger.warn(errorLine(`App ${name} is left out of /list-apps`, error));
      }
    }
    return c.json({ apps });
  });

  app.get('/apps/:app/app-info', async (c) => {
    const name = idParam(c, 'app');
    const agent = await ctx.apps.agent(name);
    const agents: Record<string, { name: string; description: string }> = {};
    for (const a of agent.descendantsAndSelf()) agents[a.name] = { name: a.name, description: a.description };
    return c.json({
      ...appSummary(name, agent, await ctx.apps.language(name)),
      ...(ctx.protocols ? { protocols: ctx.protocols(name) } : {}),
      agents,
      graph: agentGraph(agent),
    });
  });
}
