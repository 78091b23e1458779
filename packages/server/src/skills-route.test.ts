import { BaseToolset, InMemorySessionService, LlmAgent } from '@adk/core';
import { ScriptedModel } from '@adk/core/testing';
import { describe, expect, it } from 'vitest';
import { createAdkServer } from './index.js';

/** A toolset that lists skills the way @adk/skills' SkillToolset does. */
class Listed extends BaseToolset {
  constructor(private readonly list: { name: string; description: string }[] | Error) {
    super();
  }
  getTools() {
    return [];
  }
  async skills() {
    if (this.list instanceof Error) throw this.list;
    return new Map(this.list.map((s) => [s.name, s]));
  }
}

describe('GET /dev/apps/{app}/skills', () => {
  it('lists the skills of every agent with the state prefix that marks one loaded; a failing list is empty', async () => {
    const model = new ScriptedModel({ script: [] });
    const helper = new LlmAgent({
      name: 'helper',
      model,
      tools: [
        new Listed([{ name: 'pdf', description: 'Reads PDF files' }]),
        new Listed(new Error('no folder')),
      ],
    });
    const root = new LlmAgent({
      name: 'root',
      model,
      tools: [new Listed([{ name: 'csv', description: 'Reads CSV files' }])],
      subAgents: [helper, new LlmAgent({ name: 'plain', model })],
    });
    const server = await createAdkServer({
      apps: { app: root },
      sessionService: new InMemorySessionService(),
      a2a: false,
      logger: { info() {}, warn() {}, error() {} },
    });
    try {
      const response = await server.fetch(new Request('http://127.0.0.1/dev/apps/app/skills'));
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({
        agents: [
          {
            agent: 'root',
            statePrefix: '_adk_skill:root:',
            skills: [{ name: 'csv', description: 'Reads CSV files' }],
          },
          {
            agent: 'helper',
            statePrefix: '_adk_skill:helper:',
            skills: [{ name: 'pdf', description: 'Reads PDF files' }],
          },
        ],
      });
      expect((await server.fetch(new Request('http://127.0.0.1/dev/apps/nope/skills'))).status).toBe(404);
    } finally {
      await server.close();
    }
  });
});
