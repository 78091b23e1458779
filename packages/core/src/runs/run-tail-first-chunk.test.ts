// Its own file: the first tail of the process pays the loading of the tail's module (loaded on
// first use), which is when a run streaming meanwhile could lose its first chunks.
import { describe, expect, it } from 'vitest';
import { InMemorySessionService, LlmAgent, Runner, userContent } from '../index.js';
import { ScriptedModel } from '../testing/index.js';

describe('the first tail of a background run', () => {
  it('gets the whole streamed answer, from its first chunk, while the tail module loads', async () => {
    const runner = new Runner({
      appName: 'app',
      agent: new LlmAgent({
        name: 'assistant',
        model: new ScriptedModel({ script: ['Once upon a time, the end.'], chunkSize: 1, delayMs: 1 }),
      }),
      sessionService: new InMemorySessionService(),
      autoCreateSession: true,
    });
    const record = await runner.startRun({
      userId: 'u',
      sessionId: 's',
      newMessage: userContent('go'),
      runConfig: { streaming: true },
    });
    const tail = runner.runEvents(record.id);
    let streamed = '';
    for (let next = await tail.next(); !next.done; next = await tail.next())
      if (next.value.partial) streamed += next.value.content?.parts[0]?.text ?? '';
    expect(streamed).toBe('Once upon a time, the end.');
  });
});
