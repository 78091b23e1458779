import { describe, expect, it } from 'vitest';
import {
  type Event,
  FunctionAgent,
  InMemoryRunner,
  LlmAgent,
  type Plugin,
  SequentialAgent,
  userContent,
} from '../index.js';
import { ScriptedModel } from '../testing/index.js';

async function collect(iterable: AsyncIterable<Event>): Promise<Event[]> {
  const out: Event[] = [];
  for await (const e of iterable) out.push(e);
  return out;
}

describe('InMemoryRunner', () => {
  it('runs an agent with in-memory sessions, artifacts and memory in one line', async () => {
    const agent = new LlmAgent({ name: 'helper', model: new ScriptedModel(['hello there']) });
    const runner = new InMemoryRunner({ agent });
    const events = await collect(runner.run({ userId: 'u', sessionId: 's', newMessage: userContent('hi') }));
    expect(events.at(-1)?.content?.parts[0]?.text).toBe('hello there');
    expect(runner.appName).toBe('helper');
    const session = await runner.sessionService.getSession({
      appName: 'helper',
      userId: 'u',
      sessionId: 's',
    });
    expect(session?.events.map((e) => e.author)).toEqual(['user', 'helper']);
    await runner.artifactService.saveArtifact({
      appName: 'helper',
      userId: 'u',
      sessionId: 's',
      filename: 'a.txt',
      artifact: { text: 'x' },
    });
    await runner.memoryService.addSessionToMemory(session as NonNullable<typeof session>);
    const found = await runner.memoryService.searchMemory({ appName: 'helper', userId: 'u', query: 'hello' });
    expect(found.memories.length).toBeGreaterThan(0);
  });
});

describe('onAgentError / onRunError plugin hooks', () => {
  it('onAgentError recovers a failing agent so the workflow goes on; onRunError sees a failed run once', async () => {
    const seen: string[] = [];
    const failing = new FunctionAgent({
      name: 'flaky',
      // biome-ignore lint/correctness/useYield: an agent that fails before its first event
      run: async function* () {
        throw new Error('flaky broke');
      },
    });
    const next = new LlmAgent({ name: 'next', model: new ScriptedModel(['next ran']) });
    const recovering: Plugin = {
      name: 'recover',
      onAgentError: ({ agent, error }) => {
        seen.push(`agent:${agent.name}:${(error as Error).message}`);
        return { role: 'model', parts: [{ text: 'flaky is unavailable' }] };
      },
      onRunError: () => {
        seen.push('run');
      },
    };
    const runner = new InMemoryRunner({
      agent: new SequentialAgent({ name: 'seq', subAgents: [failing, next] }),
      plugins: [recovering],
    });
    const events = await collect(runner.run({ userId: 'u', sessionId: 's', newMessage: userContent('go') }));
    expect(events.map((e) => `${e.author}: ${e.content?.parts[0]?.text ?? e.errorCode}`)).toEqual([
      'user: go',
      'flaky: flaky is unavailable',
      'next: next ran',
    ]);
    expect(seen).toEqual(['agent:flaky:flaky broke']);

    // Without a recovery the run fails: onAgentError is offered the error once (not per ancestor),
    // and onRunError sees it once, before the error event is committed.
    const observed: string[] = [];
    const observer: Plugin = {
      name: 'observe',
      onAgentError: ({ agent }) => {
        observed.push(`agent:${agent.name}`);
      },
      onRunError: ({ error }) => {
        observed.push(`run:${(error as Error).message}`);
        throw new Error('a broken error hook is ignored');
      },
    };
    const failingRun = new InMemoryRunner({
      agent: new SequentialAgent({
        name: 'seq2',
        subAgents: [
          new FunctionAgent({
            name: 'boom',
            // biome-ignore lint/correctness/useYield: an agent that fails before its first event
            run: async function* () {
              throw new Error('boom');
            },
          }),
        ],
      }),
      plugins: [observer],
    });
    const failed = await collect(
      failingRun.run({ userId: 'u', sessionId: 's', newMessage: userContent('go') }),
    );
    expect(failed.at(-1)?.errorMessage).toContain('boom');
    expect(observed).toEqual(['agent:boom', 'run:boom']);
  });
});
