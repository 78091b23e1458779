import { describe, expect, it } from 'vitest';
import {
  contentText,
  createEvent,
  type Event,
  extractFacts,
  FactsExtractionError,
  factsMemoryJobHandler,
  InMemoryMemoryJobQueue,
  InMemoryMemoryService,
  InMemorySessionService,
  isAdkError,
  LlmAgent,
  type LlmRequest,
  MemoryJobWorker,
  parseFactsAnswer,
  Runner,
  useAgentMemoryJobs,
  userContent,
} from '../index.js';
import { ScriptedModel } from '../testing/index.js';

/**
 * A scripted extractor: "my boat is X" is a fact; "I sold …, now it is Y" supersedes the boat fact
 * shown as current; "broken" answers malformed JSON.
 */
function extractor() {
  return new ScriptedModel({
    respond: (request) => {
      const text = contentText(request.contents.at(-1));
      const turn = text.split('Turn:\n')[1] ?? '';
      const current = [...text.matchAll(/^- \[(\S+)\] (.*)$/gm)].map((m) => ({ id: m[1], text: m[2] }));
      const userLine = turn.split('\n').find((l) => l.startsWith('user: ')) ?? '';
      const boat = /my boat is (.+)$/.exec(userLine)?.[1];
      if (userLine.includes('broken')) return '{"facts":[{"text":"The user has a dinghy."},{"text":5}]}';
      if (userLine.includes('prose')) return 'The user has a boat.';
      const sold = /now it is (.+)$/.exec(userLine)?.[1];
      if (sold) {
        const old = current.find((c) => c.text?.startsWith("The user's boat"));
        return JSON.stringify({
          facts: [
            {
              text: `The user's boat is ${sold}.`,
              ...(old ? { supersedes: old.id } : {}),
              validFrom: '2026-03-01',
            },
          ],
        });
      }
      if (boat) return JSON.stringify({ facts: [{ text: `The user's boat is ${boat}.` }] });
      return '{"facts":[]}';
    },
  });
}

function harness() {
  const sessionService = new InMemorySessionService();
  const jobs = new InMemoryMemoryJobQueue();
  jobs.turnKinds.add('facts');
  const memoryService = new InMemoryMemoryService({ jobs });
  const model = new ScriptedModel({ respond: (_r, i) => `ok ${i}` });
  const facts = { model: extractor() };
  const agent = new LlmAgent({ name: 'a', model, memory: { recall: { topK: 5, neighbours: 0 }, facts } });
  const runner = new Runner({
    appName: 'app',
    agent,
    sessionService,
    memoryService,
    autoCreateSession: true,
  });
  const failures: unknown[] = [];
  const worker = new MemoryJobWorker({
    queue: jobs,
    memory: memoryService,
    maxAttempts: 1,
    onError: (error) => failures.push(error),
    loadEvents: async (job) =>
      (
        await sessionService.getSession({
          appName: job.appName,
          userId: job.userId,
          sessionId: job.sessionId ?? '',
        })
      )?.events ?? [],
  }).registerHandler('facts', factsMemoryJobHandler(facts, { sessionService }));
  const send = async (sessionId: string, text: string) => {
    const events: Event[] = [];
    for await (const e of runner.run({ userId: 'u', sessionId, newMessage: userContent(text) }))
      events.push(e);
    await worker.flush();
    return events;
  };
  const currentFacts = async (query = 'boat') =>
    (await memoryService.searchMemory({ appName: 'app', userId: 'u', query, kinds: ['fact'], limit: 50 }))
      .memories;
  return { model, send, currentFacts, jobs, failures, memoryService, extractor: facts.model };
}

describe('facts (memory.facts)', () => {
  it('one extraction call per turn adds facts with source event ids and validFrom; identical facts are stored once', async () => {
    const { send, currentFacts, extractor } = harness();
    const events = await send('s1', 'my boat is a sloop named Ariel');
    expect(extractor.requests.length).toBe(1);
    const [fact] = await currentFacts();
    expect(contentText(fact?.content)).toBe("The user's boat is a sloop named Ariel.");
    expect(fact?.kind).toBe('fact');
    const answer = events.find((e) => e.author === 'a' && contentText(e.content));
    expect(answer).toBeDefined();
    expect(fact?.eventIds).toContain(answer?.id);
    expect(typeof fact?.validFrom).toBe('number');
    await send('s2', 'as I said, my boat is a sloop named Ariel');
    expect(extractor.requests.length).toBe(2);
    expect((await currentFacts()).map((f) => contentText(f.content))).toEqual([
      "The user's boat is a sloop named Ariel.",
    ]);
  });

  it('a superseded fact is never returned as current; facts come before raw turns in recall', async () => {
    const { send, currentFacts, model, memoryService } = harness();
    await send('s1', 'my boat is a sloop named Ariel');
    const [old] = await currentFacts();
    await send('s2', 'I sold Ariel, now it is a ketch named Brisa');
    const current = await currentFacts();
    expect(current.map((f) => contentText(f.content))).toEqual(["The user's boat is a ketch named Brisa."]);
    expect(current[0]?.supersedes).toBe(old?.id);
    expect(current[0]?.validFrom).toBe(Date.parse('2026-03-01'));
    // Not by any query either.
    const all = await memoryService.searchMemory({
      appName: 'app',
      userId: 'u',
      query: 'sloop Ariel boat',
      limit: 50,
    });
    expect(all.memories.some((m) => m.id === old?.id)).toBe(false);
    // Recall: the fact first, then turns.
    await memoryService.addEventsToMemory?.({
      appName: 'app',
      userId: 'u',
      sessionId: 'old',
      events: [
        createEvent({
          invocationId: 'x',
          author: 'user',
          content: userContent('the boat needs paint before the regatta'),
        }),
      ],
    });
    const before = model.requests.length;
    await send('s3', 'what boat do I have?');
    const request = model.requests[before] as LlmRequest;
    const block =
      request.contents.map((c) => contentText(c)).find((t) => t.includes('<recalled_memory>')) ?? '';
    expect(block).toContain('ketch named Brisa');
    expect(block).not.toContain('sloop named Ariel.');
    expect(block.indexOf('ketch named Brisa')).toBeLessThan(block.indexOf('needs paint'));
  });

  it('malformed extraction output fails the job with a clear error and writes nothing', async () => {
    const { send, currentFacts, jobs, failures } = harness();
    await send('s1', 'this one is broken, I have a dinghy');
    expect(await currentFacts('dinghy')).toEqual([]);
    const failed = await jobs.list({ status: 'failed' });
    expect(failed.map((j) => j.kind)).toEqual(['facts']);
    expect(failed[0]?.lastError).toMatch(/wrong shape: facts\.1\.text/);
    expect(failures[0]).toBeInstanceOf(FactsExtractionError);
    expect(isAdkError(failures[0], 'MEMORY_FACTS_MALFORMED')).toBe(true);
    await send('s2', 'answer in prose please');
    expect((await jobs.list({ status: 'failed' }))[0]?.lastError).toMatch(/did not answer JSON/);
  });

  it('parseFactsAnswer refuses a supersedes id that was not shown and a validFrom that is not a date', () => {
    expect(() => parseFactsAnswer('{"facts":[{"text":"x","supersedes":"nope"}]}', new Set(['a']))).toThrow(
      /not one of the current facts/,
    );
    expect(() => parseFactsAnswer('{"facts":[{"text":"x","validFrom":"soon"}]}', new Set())).toThrow(
      /not a date/,
    );
    expect(() => parseFactsAnswer('[]', new Set())).toThrow(FactsExtractionError);
    expect(parseFactsAnswer('```json\n{"facts":[]}\n```', new Set())).toEqual([]);
  });

  it('extractFacts works on any MemoryService (here directly, without a runner)', async () => {
    const memory = new InMemoryMemoryService();
    const turn = [
      createEvent({ invocationId: 'i', author: 'user', content: userContent('my boat is a catamaran') }),
    ];
    const ids = await extractFacts(
      { model: extractor() },
      { memory, appName: 'app', userId: 'u', events: turn },
    );
    expect(ids.length).toBe(1);
  });

  it('useAgentMemoryJobs registers the handlers the agent tree needs and the per-turn kinds', async () => {
    const sessionService = new InMemorySessionService();
    const queue = new InMemoryMemoryJobQueue();
    const memoryService = new InMemoryMemoryService({ jobs: queue });
    const helper = new LlmAgent({
      name: 'helper',
      model: new ScriptedModel({ respond: () => 'ok' }),
      memory: { facts: { model: extractor() } },
    });
    const root = new LlmAgent({
      name: 'root',
      model: new ScriptedModel({ respond: () => 'ok' }),
      memory: { observe: { observeAtTokens: 100_000 } },
      subAgents: [helper],
    });
    const worker = new MemoryJobWorker({ queue, memory: memoryService });
    expect(useAgentMemoryJobs(root, { worker, queue }, { sessionService }).sort()).toEqual([
      'facts',
      'observe',
    ]);
    expect([...queue.turnKinds].sort()).toEqual(['facts', 'index']);
    const runner = new Runner({
      appName: 'app',
      agent: root,
      sessionService,
      memoryService,
      autoCreateSession: true,
    });
    for await (const _ of runner.run({
      userId: 'u',
      sessionId: 's',
      newMessage: userContent('my boat is a yawl'),
    }));
    await worker.flush();
    const { memories } = await memoryService.searchMemory({
      appName: 'app',
      userId: 'u',
      query: 'boat',
      kinds: ['fact'],
    });
    expect(memories.map((m) => contentText(m.content))).toEqual(["The user's boat is a yawl."]);
  });

  it('a Runner runs the facts its agent asks for with no set-up: kinds enqueued and handlers registered', async () => {
    const sessionService = new InMemorySessionService();
    const queue = new InMemoryMemoryJobQueue();
    const memoryService = new InMemoryMemoryService({ jobs: queue });
    const facts = extractor();
    const runner = new Runner({
      appName: 'app',
      agent: new LlmAgent({
        name: 'root',
        model: new ScriptedModel({ respond: () => 'ok' }),
        memory: { facts: { model: facts } },
      }),
      sessionService,
      memoryService,
      autoCreateSession: true,
    });
    for await (const _ of runner.run({
      userId: 'u',
      sessionId: 's',
      newMessage: userContent('my boat is a ketch'),
    }));
    expect([...queue.turnKinds]).toEqual(['index']); // the queue itself is left as it was
    await runner.flushMemory();
    const { memories } = await memoryService.searchMemory({
      appName: 'app',
      userId: 'u',
      query: 'boat',
      kinds: ['fact'],
    });
    expect(memories.map((m) => contentText(m.content))).toEqual(["The user's boat is a ketch."]);
    expect(facts.requests.length).toBe(1);
    await runner.close();
  });
});
