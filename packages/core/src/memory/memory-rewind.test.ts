import { describe, expect, it } from 'vitest';
import { InMemoryMemoryService, InMemorySessionService, LlmAgent, Runner, userContent } from '../index.js';
import { ScriptedModel } from '../testing/index.js';

describe('memory ingestion after a rewind', () => {
  it('keeps only the visible history: a rewound turn is not remembered', async () => {
    const sessionService = new InMemorySessionService();
    const memoryService = new InMemoryMemoryService();
    const runner = new Runner({
      appName: 'app',
      agent: new LlmAgent({ name: 'a', model: new ScriptedModel({ respond: () => 'noted' }) }),
      sessionService,
      memoryService,
      autoCreateSession: true,
    });
    const send = async (text: string) => {
      const ids: string[] = [];
      for await (const e of runner.run({ userId: 'u', sessionId: 's', newMessage: userContent(text) }))
        ids.push(e.invocationId);
      return ids[0] ?? '';
    };
    await send('my harbour is Lisbon');
    const wrong = await send('my password is hunter2');
    await runner.rewind({ userId: 'u', sessionId: 's', rewindBeforeInvocationId: wrong });
    const session = await sessionService.getSession({ appName: 'app', userId: 'u', sessionId: 's' });
    await memoryService.addSessionToMemory(session!);
    const search = (query: string) => memoryService.searchMemory({ appName: 'app', userId: 'u', query });
    expect((await search('harbour')).memories).toHaveLength(1);
    expect((await search('password hunter2')).memories).toHaveLength(0);
  });
});
