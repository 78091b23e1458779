import { describe, expect, it } from 'vitest';
import {
  contentText,
  InMemoryMemoryService,
  InMemorySessionService,
  LlmAgent,
  RECALL_METADATA_KEY,
  type RecallRecord,
  Runner,
  userContent,
} from '../index.js';
import { ScriptedModel } from '../testing/index.js';

function setup(memory: ConstructorParameters<typeof LlmAgent>[0]['memory']) {
  const sessionService = new InMemorySessionService();
  const memoryService = new InMemoryMemoryService();
  const model = new ScriptedModel({ respond: (_req, i) => `ok ${i}` });
  const runner = new Runner({
    appName: 'app',
    agent: new LlmAgent({ name: 'a', model, ...(memory ? { memory } : {}) }),
    sessionService,
    memoryService,
    autoCreateSession: true,
  });
  const send = async (sessionId: string, text: string) => {
    const events = [];
    for await (const e of runner.run({ userId: 'u', sessionId, newMessage: userContent(text) }))
      events.push(e);
    return events;
  };
  const remember = async (sessionId: string) => {
    const session = await sessionService.getSession({ appName: 'app', userId: 'u', sessionId });
    if (session) await memoryService.addSessionToMemory(session);
  };
  return { sessionService, memoryService, model, send, remember };
}

describe('per-turn recall (memory.recall)', () => {
  it('recalls a fact planted 200 turns and 30 sessions earlier, with its neighbours, in one dated block', async () => {
    const { sessionService, model, send, remember } = setup({ recall: { topK: 3, neighbours: 1 } });
    let turns = 0;
    await send('s0', 'the weather today is mild');
    await send('s0', 'my boat is moored in the harbour of Lisbon');
    await send('s0', 'I also keep a bicycle');
    turns += 3;
    await remember('s0');
    for (let s = 1; s <= 30; s++) {
      for (let t = 0; t < 7; t++) {
        await send(`s${s}`, `filler note ${s} ${t} about groceries`);
        turns++;
      }
      await remember(`s${s}`);
    }
    expect(turns).toBeGreaterThanOrEqual(200);

    const before = model.requests.length;
    const events = await send('s-new', 'which harbour keeps my boat?');
    const request = model.requests[before];
    expect(request).toBeDefined();
    const texts = request?.contents.map((c) => contentText(c)) ?? [];
    // One block, just before the newest user message.
    const blocks = texts.filter((t) => t.includes('<recalled_memory>'));
    expect(blocks).toHaveLength(1);
    expect(texts.at(-1)).toBe('which harbour keeps my boat?');
    expect(texts.at(-2)).toBe(blocks[0]);
    const block = blocks[0] ?? '';
    expect(block).toContain('my boat is moored in the harbour of Lisbon');
    // Its neighbours: the turn before (the model's answer to the weather) and after (its answer).
    const lines = block.split('\n');
    const hit = lines.findIndex((l) => l.includes('harbour of Lisbon'));
    expect(lines[hit - 1]).toMatch(/^\[\d{4}-\d{2}-\d{2}\] a: ok \d+$/);
    expect(lines[hit + 1]).toMatch(/^\[\d{4}-\d{2}-\d{2}\] a: ok \d+$/);
    expect(lines[hit]).toMatch(/^\[\d{4}-\d{2}-\d{2}\] user: my boat/);

    // Recorded on the model-response event.
    const response = events.find((e) => e.author === 'a' && e.content);
    const record = response?.customMetadata?.[RECALL_METADATA_KEY] as RecallRecord | undefined;
    expect(record?.query).toBe('which harbour keeps my boat?');
    expect(record?.memories[0]).toMatchObject({
      kind: 'turn',
      sessionId: 's0',
      ranker: 'fullText',
      neighbours: 2,
    });
    expect(record?.memories[0]?.score).toBeGreaterThan(0);
    expect(record?.memories[0]?.id).toBeDefined();

    // The session is not changed: no recall block in its log.
    const session = await sessionService.getSession({ appName: 'app', userId: 'u', sessionId: 's-new' });
    expect(session?.events.some((e) => contentText(e.content).includes('recalled_memory'))).toBe(false);
  });

  it('facts come first, dated by validFrom', async () => {
    const { memoryService, model, send, remember } = setup({ recall: { topK: 2, neighbours: 0 } });
    await send('s0', 'the harbour master of Lisbon waved');
    await remember('s0');
    await memoryService.addMemory({
      appName: 'app',
      userId: 'u',
      memories: [
        {
          kind: 'fact',
          content: { role: 'user', parts: [{ text: 'The user keeps a boat in the harbour of Porto' }] },
          validFrom: Date.UTC(2026, 0, 2),
          eventIds: ['e-source'],
        },
      ],
    });
    const before = model.requests.length;
    const events = await send('s1', 'which harbour has my boat?');
    const block =
      model.requests[before]?.contents
        .map((c) => contentText(c))
        .find((t) => t.includes('<recalled_memory>')) ?? '';
    const lines = block.split('\n').filter((l) => l.startsWith('['));
    expect(lines[0]).toBe('[2026-01-02] fact: The user keeps a boat in the harbour of Porto');
    const record = events.find((e) => e.author === 'a')?.customMetadata?.[
      RECALL_METADATA_KEY
    ] as RecallRecord;
    expect(record.memories.map((m) => m.kind)).toEqual(['fact', 'turn']);
    expect(record.memories[0]?.eventIds).toEqual(['e-source']);
  });

  it('drops what the request already holds, and is off by default', async () => {
    const on = setup({ recall: true });
    await on.send('s', 'my harbour is Lisbon');
    await on.remember('s');
    const before = on.model.requests.length;
    await on.send('s', 'which harbour is mine?');
    const texts = on.model.requests[before]?.contents.map((c) => contentText(c)) ?? [];
    expect(texts.some((t) => t.includes('<recalled_memory>'))).toBe(false);

    const off = setup(undefined);
    await off.send('s0', 'my harbour is Lisbon');
    await off.remember('s0');
    const at = off.model.requests.length;
    const events = await off.send('s1', 'which harbour is mine?');
    const offTexts = off.model.requests[at]?.contents.map((c) => contentText(c)) ?? [];
    expect(offTexts).toEqual(['which harbour is mine?']);
    expect(events.some((e) => e.customMetadata?.[RECALL_METADATA_KEY])).toBe(false);
  });

  it('a failing memory store does not fail the turn: the model answers, the error is recorded', async () => {
    const sessionService = new InMemorySessionService();
    const runner = new Runner({
      appName: 'app',
      agent: new LlmAgent({
        name: 'a',
        model: new ScriptedModel({ respond: () => 'ok' }),
        memory: { recall: true },
      }),
      sessionService,
      memoryService: {
        addSessionToMemory: async () => {},
        searchMemory: async () => {
          throw new Error('store down');
        },
      },
      autoCreateSession: true,
    });
    const events = [];
    for await (const e of runner.run({ userId: 'u', sessionId: 's', newMessage: userContent('hello there') }))
      events.push(e);
    const answer = events.find((e) => e.author === 'a');
    expect(contentText(answer?.content)).toBe('ok');
    const record = answer?.customMetadata?.[RECALL_METADATA_KEY] as RecallRecord | undefined;
    expect(record?.error).toEqual({ code: 'MEMORY_RECALL_FAILED', message: 'store down' });
  });
});
