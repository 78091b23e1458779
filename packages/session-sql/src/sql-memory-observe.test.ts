import {
  contentText,
  type Event,
  LlmAgent,
  MemoryJobWorker,
  observationOf,
  observeMemoryJobHandler,
  RECALL_TOOL_NAME,
  Runner,
  userContent,
} from '@adk/core';
import { functionCallResponse, ScriptedModel } from '@adk/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSqlStores, SqlMemoryJobQueue, SqlMemoryService, type SqlStores } from './index.js';

const LINE = /^\[(\d{4}-\d{2}-\d{2}) [\d:]+\] user: (.*)$/;

/** Observer: one dated bullet per user line; reflector: every other bullet. */
const observer = new ScriptedModel({
  respond: (request) => {
    const text = contentText(request.contents.at(-1));
    if (request.systemInstruction?.includes('reflector'))
      return text
        .split('\n')
        .filter((l) => l.startsWith('- '))
        .filter((_, i) => i % 2 === 0)
        .join('\n');
    return (text.split('Conversation to observe:\n')[1] ?? '')
      .split('\n')
      .map((l) => LINE.exec(l))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => `- 🔴 ${m[1]} ${(m[2] ?? '').split(' ').slice(0, 4).join(' ')}`)
      .join('\n');
  },
});

const SENTENCES = [
  'the lighthouse keeper on Berlenga is called Ines',
  'my sloop Ariel needs a new jib before March',
  'we plan to sail from Lisbon to Porto in May',
  'the harbour fee in Cascais was 42 euros a night',
  'my sister Marta joins the trip on the second week',
  'the engine is a Volvo Penta with 1800 hours',
  'I prefer anchoring to marinas when the swell is low',
  'the insurance renewal is due on the 3rd of April',
];

for (const url of ['sqlite://:memory:', 'pglite://memory']) {
  describe(`${url.split(':')[0]}: observations (memory.observe) on the SQL stores`, () => {
    let stores: SqlStores;
    let memory: SqlMemoryService;
    let worker: MemoryJobWorker;
    let runner: Runner;
    beforeAll(async () => {
      stores = await createSqlStores(url);
      const jobs = new SqlMemoryJobQueue({ db: stores.db, dialect: stores.family, migrate: false });
      memory = new SqlMemoryService({ db: stores.db, dialect: stores.family, migrate: false, jobs });
      const observe = {
        model: observer,
        observeAtTokens: 80,
        keepRecentTokens: 30,
        reflectAtTokens: 60,
        backoffMs: 0,
      };
      const model = new ScriptedModel({
        respond: (request, i) => {
          const last = request.contents.at(-1);
          if (last?.parts.some((p) => p.functionResponse)) return 'that is what was said';
          const m = /^recall (\S+)$/.exec(contentText(last));
          if (m) return functionCallResponse(RECALL_TOOL_NAME, { id: m[1], limit: 500 });
          return `noted ${i}`;
        },
      });
      runner = new Runner({
        appName: 'app',
        agent: new LlmAgent({ name: 'a', model, memory: { observe } }),
        sessionService: stores.sessions,
        memoryService: memory,
        autoCreateSession: true,
      });
      worker = new MemoryJobWorker({ queue: jobs, memory, backoffMs: () => 1 }).registerHandler(
        'observe',
        observeMemoryJobHandler(observe, { sessionService: stores.sessions }),
      );
    }, 120_000);
    afterAll(async () => {
      await stores?.close();
    });

    const send = async (text: string) => {
      const events: Event[] = [];
      for await (const e of runner.run({ userId: 'u', sessionId: 's', newMessage: userContent(text) }))
        events.push(e);
      await worker.flush();
      return events;
    };

    it('replaces history with observations that recall expands back to every covered event', async () => {
      for (const s of SENTENCES) await send(s);
      const session = await stores.sessions.getSession({ appName: 'app', userId: 'u', sessionId: 's' });
      const observations = (session?.events ?? []).filter((e) => observationOf(e));
      expect(observations.length).toBeGreaterThan(1);
      const latest = observations.at(-1) as Event;
      const record = observationOf(latest);
      const end = latest.actions.compaction?.endTimestamp ?? 0;
      const covered = (session?.events ?? []).filter(
        (e) =>
          e.timestamp <= end &&
          !e.actions.compaction &&
          !e.author.startsWith('memory:') &&
          contentText(e.content),
      );
      const recalled = new Set<string>();
      for (const id of record?.blocks ?? []) {
        const events = await send(`recall ${id}`);
        const response = events.flatMap((e) => e.content?.parts ?? []).find((p) => p.functionResponse);
        const body = response?.functionResponse?.response as { status: string; events: { id: string }[] };
        expect(body.status).toBe('ok');
        for (const e of body.events) recalled.add(e.id);
      }
      for (const e of covered) expect(recalled.has(e.id), contentText(e.content)).toBe(true);

      // The store holds the observation memories of the current log only (a reflection replaced the rest).
      const { memories } = await memory.searchMemory({
        appName: 'app',
        userId: 'u',
        query: 'sloop lighthouse harbour engine',
        kinds: ['observation'],
        limit: 50,
      });
      expect(memories.length).toBeGreaterThan(0);
      const reflected = observations.filter((e) => observationOf(e)?.kind === 'reflection');
      expect(reflected.length).toBeGreaterThan(0);
      for (const r of reflected)
        for (const merged of observationOf(r)?.merged ?? [])
          expect(memories.some((m) => m.id === merged)).toBe(false);
      for (const m of memories) expect(m.eventIds?.length).toBeGreaterThan(0);
    }, 120_000);
  });
}
