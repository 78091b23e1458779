import { describe, expect, it } from 'vitest';
import {
  AgentTool,
  type BaseTool,
  BaseToolset,
  InMemorySessionService,
  LlmAgent,
  type Plugin,
  Runner,
  SequentialAgent,
} from '../index.js';
import { ScriptedModel } from '../testing/index.js';

class ClosableToolset extends BaseToolset {
  closed = 0;
  constructor(private readonly failOnClose = false) {
    super();
  }
  getTools(): BaseTool[] {
    return [];
  }
  override async close(): Promise<void> {
    this.closed++;
    if (this.failOnClose) throw new Error('close failed');
  }
}

describe('Runner.close', () => {
  it('closes every toolset of the agent tree once, including agents wrapped as tools, and the plugins', async () => {
    const model = new ScriptedModel();
    const shared = new ClosableToolset();
    const inner = new ClosableToolset();
    const sub = new ClosableToolset();
    const wrapped = new LlmAgent({ name: 'wrapped', model, tools: [inner] });
    const root = new SequentialAgent({
      name: 'root',
      subAgents: [
        new LlmAgent({ name: 'a', model, tools: [shared, new AgentTool({ agent: wrapped })] }),
        new LlmAgent({ name: 'b', model, tools: [shared, sub] }),
      ],
    });
    let pluginClosed = false;
    const plugin: Plugin = {
      name: 'p',
      close: async () => {
        pluginClosed = true;
      },
    };
    const runner = new Runner({
      appName: 'app',
      agent: root,
      sessionService: new InMemorySessionService(),
      plugins: [plugin],
    });
    await runner.close();
    expect([shared.closed, inner.closed, sub.closed]).toEqual([1, 1, 1]);
    expect(pluginClosed).toBe(true);
  });

  it('closes the rest when one toolset fails to close, then reports the failure', async () => {
    const failing = new ClosableToolset(true);
    const other = new ClosableToolset();
    const runner = new Runner({
      appName: 'app',
      agent: new LlmAgent({ name: 'a', model: new ScriptedModel(), tools: [failing, other] }),
      sessionService: new InMemorySessionService(),
    });
    await expect(runner.close()).rejects.toThrow('close failed');
    expect(other.closed).toBe(1);
  });
});
