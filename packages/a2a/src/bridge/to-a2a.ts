import type { BaseAgent, Runner } from '@adk/core';
import type { AgentCardInput } from '../protocol/agent-card.js';
import type { AgentSkill } from '../protocol/types.js';
import { type A2aServer, type A2aServerOptions, createA2aServer } from '../server/a2a-server.js';
import { type ListeningServer, listen } from '../server/node-adapter.js';
import { AdkAgentExecutor, type AdkAgentExecutorOptions } from './adk-agent-executor.js';

export interface ToA2aOptions
  extends Omit<A2aServerOptions, 'executor' | 'card'>,
    Omit<AdkAgentExecutorOptions, 'agent' | 'runner'> {
  /** Card fields that override the ones derived from the agent. */
  card?: Partial<AgentCardInput>;
}

function isRunner(source: BaseAgent | Runner): source is Runner {
  return 'sessionService' in source && 'agent' in source && typeof source.run === 'function';
}

/** A card for an ADK agent: its name and description, and one skill per agent in its tree. */
export function adkAgentCard(agent: BaseAgent, overrides: Partial<AgentCardInput> = {}): AgentCardInput {
  const skills: AgentSkill[] = [];
  for (const a of agent.descendantsAndSelf()) {
    skills.push({ id: a.name, name: a.name, description: a.description || a.name, tags: ['adk'] });
  }
  return {
    name: agent.name,
    description: agent.description || agent.name,
    skills,
    ...overrides,
  };
}

/** Exposes an ADK agent or runner as an A2A server (Fetch-API handler; see `createA2aServer`). */
export function toA2a(
  source: BaseAgent | Runner,
  options: ToA2aOptions = {},
): A2aServer & { executor: AdkAgentExecutor } {
  const { card, appName, sessionService, plugins, userId, runConfig, artifactName, ...server } = options;
  const executor = new AdkAgentExecutor({
    ...(isRunner(source) ? { runner: source } : { agent: source }),
    ...(appName ? { appName } : {}),
    ...(sessionService ? { sessionService } : {}),
    ...(plugins ? { plugins } : {}),
    ...(userId ? { userId } : {}),
    ...(runConfig ? { runConfig } : {}),
    ...(artifactName ? { artifactName } : {}),
  });
  const agent = isRunner(source) ? source.agent : source;
  const a2a = createA2aServer({ ...server, executor, card: adkAgentCard(agent, card) });
  return { ...a2a, executor };
}

/** Serves an ADK agent or runner over A2A on Node (127.0.0.1 unless `host` says otherwise). */
export async function serveA2a(
  source: BaseAgent | Runner,
  options: ToA2aOptions & { port?: number; host?: string } = {},
): Promise<ListeningServer & { a2a: A2aServer & { executor: AdkAgentExecutor } }> {
  const { port, host, ...rest } = options;
  const a2a = toA2a(source, rest);
  const listening = await listen((r) => a2a.fetch(r), {
    ...(port ? { port } : {}),
    ...(host ? { host } : {}),
  });
  return {
    ...listening,
    a2a,
    close: async () => {
      await a2a.close();
      await listening.close();
    },
  };
}
