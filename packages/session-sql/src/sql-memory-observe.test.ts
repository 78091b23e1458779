import {
  contentText,
  type Event,
  LlmAgent,
  MemoryJobWorker,
  observationOf,
  observationsSettled,
  observeMemoryJobHandler,
  RECALL_TOOL_NAME,
  Runner,
  userContent,
} from '@adk/core';
import { functionCallResponse, ScriptedModel } from '@adk/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { suiteTitle, testDatabases } from './__fixtures__/databases.js';
import { type AnyKysely, SqlMemoryJobQueue, SqlMemoryService, SqlSessionService } from './index.js';

const tablePrefix = `memobs_${process.pid}_`;

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

// Shared Postgres has run locks: the 'observe' job appends. PGlite and SQLite have none: the run commits
// what a task in the process observed.
for (const target of testDatabases()) {
  describe.skipIf(target.skipReason !== undefined)(
    suiteTitle(target, 'observations on the SQL stores'),
    () => {
      let db: AnyKysely;
      let sessions: SqlSessionService;
      let memory: SqlMemoryService;
      let worker: MemoryJobWorker;
      let runner: Runner;
      beforeAll(async () => {
        db = await target.open();
        sessions = new SqlSessionService({ db, tablePrefix });
        const jobs = new SqlMemoryJobQueue({ db, tablePrefix });
        memory = new SqlMemoryService({ db, tablePrefix, jobs });
        await sessions.migrate();
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
          sessionService: sessions,
          memoryService: memory,
          autoCreateSession: true,
        });
        worker = new MemoryJobWorker({ queue: jobs, memory, backoffMs: () => 1 }).registerHandler(
          'observe',
          observeMemoryJobHandler(observe, { sessionService: sessions }),
        );
      }, 120_000);
      afterAll(async () => {
        await sessions?.close();
        await db?.destroy();
      });

      const send = async (text: string) => {
        const events: Event[] = [];
        for await (const e of runner.run({ userId: 'u', sessionId: 's', newMessage: userContent(text) }))
          events.push(e);
        await worker.flush();
        await observationsSettled();
        return events;
      };

      it('replaces history with observations that recall expands back to every covered event', async () => {
        for (const s of SENTENCES) await send(s);
        const session = await sessions.getSession({ appName: 'app', userId: 'u', sessionId: 's' });
        const observations = (session?.events ?? []).filter((e) => observationOf(e));
        expect(observations.length).toBeGreaterThan(1);
        const byJob = observations.every((e) => e.invocationId.startsWith('observe-'));
        expect(byJob).toBe(sessions.acquireRunLock !== undefined);
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
    },
  );
}
