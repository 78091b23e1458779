import {
  type AgentMemoryJobs,
  agentMemoryJobs,
  type MemoryJob,
  type MemoryJobHandler,
  type Runner,
  type SessionService,
} from '@adk/core';
import type { AppRegistry } from './apps.js';

/** The job kinds an agent's `memory` options create (besides `'index'`, which the worker has built in). */
const AGENT_KINDS = ['profile', 'observe', 'facts'] as const;

/**
 * Handlers for the agent side of memory jobs on the server's one worker, which serves every app:
 * each job goes to the handler its app's agent tree asks for (`memory.profile` in the background,
 * `memory.observe`, `memory.facts`), built once per loaded agent (a reload builds them again). A job
 * whose app is gone, or no longer asks for that kind, has nothing left to do and is completed.
 */
export function appMemoryJobHandlers(
  apps: () => AppRegistry,
  sessionService: SessionService,
): Record<(typeof AGENT_KINDS)[number], MemoryJobHandler> {
  const built = new WeakMap<Runner, AgentMemoryJobs>();
  const handlersOf = async (appName: string): Promise<AgentMemoryJobs | undefined> => {
    const registry = apps();
    if (!(await registry.has(appName))) return undefined;
    const runner = await registry.runner(appName);
    let jobs = built.get(runner);
    if (!jobs) {
      jobs = agentMemoryJobs(runner.agent, { sessionService });
      built.set(runner, jobs);
    }
    return jobs;
  };
  const dispatch =
    (kind: (typeof AGENT_KINDS)[number]): MemoryJobHandler =>
    async (jobs, ctx) => {
      const byApp = new Map<string, MemoryJob[]>();
      for (const job of jobs) {
        const group = byApp.get(job.appName);
        if (group) group.push(job);
        else byApp.set(job.appName, [job]);
      }
      for (const [appName, group] of byApp) {
        const handler = (await handlersOf(appName))?.handlers[kind];
        if (handler) await handler(group, ctx);
      }
    };
  return { profile: dispatch('profile'), observe: dispatch('observe'), facts: dispatch('facts') };
}
