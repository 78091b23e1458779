import { type Event, FunctionTool, LlmAgent, Runner, type RunRecord, userContent } from '@adk/core';
import { functionCallResponse, runStoreConformance, ScriptedModel } from '@adk/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { suiteTitle, testDatabases } from './__fixtures__/databases.js';
import { type AnyKysely, SqlRunStore, SqlSessionService } from './index.js';

const tablePrefix = `runs_${process.pid}_`;

/** An agent whose tool waits until the run is aborted (or 5 s pass). */
function waiterAgent(onStart: () => void, onAbort: () => void) {
  return new LlmAgent({
    name: 'waiter',
    model: new ScriptedModel({
      respond: (request) => {
        const last = request.contents.at(-1)?.parts[0];
        return last?.functionResponse ? 'done waiting' : functionCallResponse('wait', {});
      },
    }),
    tools: [
      new FunctionTool({
        name: 'wait',
        description: 'waits',
        parameters: z.object({}),
        execute: (_args, ctx) =>
          new Promise((resolve) => {
            onStart();
            const timer = setTimeout(() => resolve({ waited: true }), 5000);
            ctx.signal.addEventListener('abort', () => {
              clearTimeout(timer);
              onAbort();
              resolve({ aborted: true });
            });
          }),
      }),
    ],
  });
}

for (const target of testDatabases()) {
  describe.skipIf(target.skipReason !== undefined)(suiteTitle(target, 'SqlRunStore'), () => {
    let db: AnyKysely;
    let store: SqlRunStore;
    beforeAll(async () => {
      db = await target.open();
      store = new SqlRunStore({ db, tablePrefix });
      await store.migrate();
    });
    afterAll(async () => {
      await db?.destroy();
    });

    describe('conformance', () => {
      for (const c of runStoreConformance(() => store, { appPrefix: target.name })) it(c.name, c.run);
    });

    it('pollRuns records the heartbeat of running runs and reports cancel requests', async () => {
      const appName = `poll-${target.name}`;
      const base = { appName, userId: 'u', sessionId: 's', background: true, createdAt: 1000, input: {} };
      await store.createRun({ ...base, id: 'a', invocationId: 'e-a', status: 'running' });
      await store.createRun({ ...base, id: 'b', invocationId: 'e-b', status: 'running' });
      expect(await store.pollRuns(appName, ['a', 'b'], { heartbeat: true })).toEqual([]);
      const beat = (await store.getRun({ appName, runId: 'a' }))?.heartbeatAt ?? 0;
      expect(beat).toBeGreaterThan(Date.now() - 10_000);
      await store.requestCancel({ appName, runId: 'b' });
      expect(await store.pollRuns(appName, ['a', 'b'], false)).toEqual(['b']);
      expect(await store.pollRuns(appName, [], true)).toEqual([]);
    });

    it('a run started through a Runner is recorded, and a second Runner on the database sees it', async () => {
      const appName = `runner-${target.name}`;
      const sessions = new SqlSessionService({ db, tablePrefix });
      const agent = new LlmAgent({ name: 'echo', model: new ScriptedModel(['Hello from the log.']) });
      const a = new Runner({
        appName,
        agent,
        sessionService: sessions,
        runStore: store,
        autoCreateSession: true,
      });
      const b = new Runner({
        appName,
        agent,
        sessionService: sessions,
        runStore: new SqlRunStore({ db, tablePrefix }),
      });
      try {
        const record = await a.startRun({ userId: 'u', sessionId: 's1', newMessage: userContent('hi') });
        const events: Event[] = [];
        const tail = b.runEvents(record.id, { pollIntervalMs: 20 });
        let step = await tail.next();
        while (!step.done) {
          events.push(step.value);
          step = await tail.next();
        }
        expect((step.value as RunRecord).status).toBe('succeeded');
        expect(events.map((e) => e.author)).toEqual(['user', 'echo']);
        expect((await b.getRun(record.id))?.owner).toBe(a.runs.instanceId);
      } finally {
        await a.close();
        await b.close();
        await sessions.close();
      }
    });

    it.runIf(target.name === 'postgres')(
      'a running run is taken over as soon as its owner loses its session lock, never while it holds it',
      async () => {
        const appName = `orphan-${target.name}`;
        let started!: () => void;
        const startedP = new Promise<void>((r) => {
          started = r;
        });
        // The owner on its own pool: destroying that pool closes its connections, as a killed process does.
        const ownerDb = await target.open();
        const sessions = new SqlSessionService({ db: ownerDb, tablePrefix, runLocks: true });
        const owner = new Runner({
          appName,
          agent: waiterAgent(started, () => {}),
          sessionService: sessions,
          runStore: new SqlRunStore({ db: ownerDb, tablePrefix, runLocks: true }),
          autoCreateSession: true,
        });
        const claimer = new SqlRunStore({ db, tablePrefix, runLocks: true });
        // A heartbeat "older" than the future: only the session lock decides below.
        const claim = () =>
          claimer.claimRun({ appName, owner: 'other', staleBefore: 0, orphanedBefore: Date.now() + 60_000 });
        try {
          const record = await owner.startRun({
            userId: 'u',
            sessionId: 'o1',
            newMessage: userContent('go'),
          });
          await startedP;
          expect((await claimer.getRun({ appName, runId: record.id }))?.status).toBe('running');
          expect(await claim()).toBeUndefined();
          // Without `orphanedBefore`, or with a fresh heartbeat, nothing is taken either.
          expect(await claimer.claimRun({ appName, owner: 'other', staleBefore: 0 })).toBeUndefined();
          await sessions.close();
          await ownerDb.destroy();
          const taken = await claim();
          expect(taken?.id).toBe(record.id);
          expect(taken?.owner).toBe('other');
          expect(taken?.status).toBe('running');
          expect(await claim()).toBeUndefined();
        } finally {
          await owner.close().catch(() => undefined);
        }
      },
    );

    it('a store without run locks never takes a run over by its lock', async () => {
      const appName = `no-locks-${target.name}`;
      const plain = new SqlRunStore({ db, tablePrefix, runLocks: false });
      const base = { appName, userId: 'u', sessionId: 's', background: true, input: {} };
      await plain.createRun({
        ...base,
        id: 'r',
        invocationId: 'e-r',
        status: 'running',
        owner: 'gone',
        createdAt: 1000,
        heartbeatAt: Date.now(),
      });
      expect(
        await plain.claimRun({
          appName,
          owner: 'other',
          staleBefore: 0,
          orphanedBefore: Date.now() + 60_000,
        }),
      ).toBeUndefined();
    });

    it('a cancel sent to another Runner on the database stops the run within 500 ms', async () => {
      const appName = `cancel-${target.name}`;
      let started!: () => void;
      const startedP = new Promise<void>((r) => {
        started = r;
      });
      let abortedAt = 0;
      const sessions = new SqlSessionService({ db, tablePrefix });
      const agent = waiterAgent(started, () => {
        abortedAt = Date.now();
      });
      const owner = new Runner({
        appName,
        agent,
        sessionService: sessions,
        runStore: store,
        autoCreateSession: true,
      });
      const other = new Runner({
        appName,
        agent,
        sessionService: sessions,
        runStore: new SqlRunStore({ db, tablePrefix }),
      });
      try {
        const record = await owner.startRun({
          userId: 'u',
          sessionId: 's2',
          newMessage: userContent('wait'),
        });
        await startedP;
        const sentAt = Date.now();
        const asked = await other.cancelRun(record.id);
        expect(asked?.cancelRequested).toBe(true);
        const tail = other.runEvents(record.id, { pollIntervalMs: 20 });
        let step = await tail.next();
        const events: Event[] = [];
        while (!step.done) {
          events.push(step.value);
          step = await tail.next();
        }
        expect(abortedAt - sentAt).toBeLessThan(500);
        expect((step.value as RunRecord).status).toBe('cancelled');
        expect(events.at(-1)?.errorCode).toBe('CANCELLED');
      } finally {
        await owner.close();
        await other.close();
        await sessions.close();
      }
    });
  });
}
