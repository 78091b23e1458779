import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  defineScorer,
  type Event,
  InMemoryMemoryService,
  LlmAgent,
  MemoryJobWorker,
  Runner,
  SCORE_JOB_KIND,
  ScorersPlugin,
  scoreJobHandler,
  userContent,
} from '@adk/core';
import { ScriptedModel } from '@adk/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { suiteTitle, testDatabases } from './__fixtures__/databases.js';
import {
  type AnyKysely,
  createSqlStores,
  SqlMemoryJobQueue,
  SqlScoreStore,
  SqlSessionService,
} from './index.js';

// Scorer results in the sessions' database: saved once per (scorer, invocation), listed by app,
// scorer and window, aggregated per window, and alerts claimed once.

const HOUR = 3_600_000;

for (const target of testDatabases()) {
  describe.skipIf(target.skipReason !== undefined)(suiteTitle(target, 'score store'), () => {
    let db: AnyKysely;
    const prefix = (name: string) => `sc_${name}_${process.pid}_`;
    beforeAll(async () => {
      db = await target.open();
    });
    afterAll(async () => {
      await db?.destroy();
    });

    it('saves once per scorer and turn, lists by app, scorer and window, aggregates per window', async () => {
      const store = new SqlScoreStore({ db, tablePrefix: prefix('query') });
      const t0 = Math.floor(Date.now() / HOUR) * HOUR - 2 * HOUR;
      const base = { appName: 'app', userId: 'u', sessionId: 's', scorerVersion: '1', durationMs: 3 };
      const rows = [
        { invocationId: 'i1', scorerName: 'q', score: 1, createdAt: t0 + 1 },
        { invocationId: 'i2', scorerName: 'q', score: 3, createdAt: t0 + 2 },
        { invocationId: 'i3', scorerName: 'q', score: 2, createdAt: t0 + 3 },
        { invocationId: 'i4', scorerName: 'q', createdAt: t0 + 4 },
        { invocationId: 'i5', scorerName: 'q', score: 10, createdAt: t0 + HOUR + 5 },
        { invocationId: 'i1', scorerName: 'len', score: 0.5, createdAt: t0 + HOUR + 6 },
      ];
      for (const r of rows)
        expect(
          await store.save({
            ...base,
            ...r,
            ...(r.score === undefined
              ? { status: 'failed', error: 'Error: boom' }
              : { status: 'ok', reason: 'why' }),
            traceId: `t-${r.invocationId}`,
          }),
        ).toBe(true);
      // A retried job's second result for the same turn and scorer is dropped.
      expect(
        await store.save({
          ...base,
          invocationId: 'i1',
          scorerName: 'q',
          status: 'ok',
          score: 0,
          createdAt: t0 + 9,
        }),
      ).toBe(false);
      await store.save({
        ...base,
        appName: 'other',
        invocationId: 'i1',
        scorerName: 'q',
        status: 'ok',
        score: 0,
        createdAt: t0,
      });

      const all = await store.list({ appName: 'app' });
      expect(all.map((s) => `${s.scorerName}:${s.invocationId}`)).toEqual([
        'len:i1',
        'q:i5',
        'q:i4',
        'q:i3',
        'q:i2',
        'q:i1',
      ]);
      expect(all[0]).toMatchObject({
        traceId: 't-i1',
        score: 0.5,
        reason: 'why',
        status: 'ok',
        durationMs: 3,
        createdAt: t0 + HOUR + 6,
      });
      expect(all[2]).toMatchObject({ status: 'failed', error: 'Error: boom' });
      expect(all[2]?.score).toBeUndefined();
      expect(
        (await store.list({ appName: 'app', scorerName: 'q', from: t0 + 2, to: t0 + HOUR })).map(
          (s) => s.invocationId,
        ),
      ).toEqual(['i4', 'i3', 'i2']);
      expect(await store.list({ appName: 'app', limit: 2 })).toHaveLength(2);

      const summaries = await store.summarize({
        appName: 'app',
        from: t0,
        to: t0 + 2 * HOUR,
        bucketMs: HOUR,
      });
      expect(summaries).toEqual(
        [
          {
            appName: 'app',
            scorerName: 'q',
            from: t0,
            to: t0 + HOUR,
            count: 4,
            failed: 1,
            mean: 2,
            p50: 2,
            min: 1,
            max: 3,
          },
          {
            appName: 'app',
            scorerName: 'len',
            from: t0 + HOUR,
            to: t0 + 2 * HOUR,
            count: 1,
            failed: 0,
            mean: 0.5,
            p50: 0.5,
            min: 0.5,
            max: 0.5,
          },
          {
            appName: 'app',
            scorerName: 'q',
            from: t0 + HOUR,
            to: t0 + 2 * HOUR,
            count: 1,
            failed: 0,
            mean: 10,
            p50: 10,
            min: 10,
            max: 10,
          },
        ].sort((a, b) => a.from - b.from || (a.scorerName < b.scorerName ? -1 : 1)),
      );
      const [whole] = await store.summarize({ appName: 'app', scorerName: 'q' });
      expect(whole).toMatchObject({ from: 0, count: 5, failed: 1, mean: 4, p50: 2.5, min: 1, max: 10 });

      await expect(store.list({ appName: 'app', from: 10, to: 5 })).rejects.toMatchObject({
        code: 'VALIDATION',
      });
      expect(await store.claimAlert('k')).toBe(true);
      expect(await store.claimAlert('k')).toBe(false);
    });
  });
}

const postgres = testDatabases().find((d) => d.name === 'postgres');
describe.skipIf(postgres?.skipReason !== undefined)(
  suiteTitle(postgres as NonNullable<typeof postgres>, 'score jobs spread over workers'),
  () => {
    it('two workers on one Postgres share the score jobs; each turn is scored once', async () => {
      const db = await (postgres as NonNullable<typeof postgres>).open();
      try {
        const tablePrefix = `scw_${process.pid}_`;
        const queue = new SqlMemoryJobQueue({ db, tablePrefix });
        const store = new SqlScoreStore({ db, tablePrefix });
        const sessions = new SqlSessionService({ db, tablePrefix });
        const scorers = [
          defineScorer({
            name: 'slow',
            score: async (t) => {
              await new Promise((resolve) => setTimeout(resolve, 20));
              return t.responseText.length;
            },
          }),
        ];
        const plugin = new ScorersPlugin({ store, queue, scorers });
        const runner = new Runner({
          appName: 'app',
          sessionService: sessions,
          autoCreateSession: true,
          agent: new LlmAgent({ name: 'root', model: new ScriptedModel({ respond: () => 'ok' }) }),
          plugins: [plugin],
        });
        for (let i = 0; i < 20; i++)
          for await (const _ of runner.run({
            userId: 'u',
            sessionId: `s${i % 4}`,
            newMessage: userContent('hi'),
          }));
        await plugin.flush();
        const ran = new Map<string, number>();
        const workers = ['w1', 'w2'].map((workerId) => {
          const worker = new MemoryJobWorker({
            queue: new SqlMemoryJobQueue({ db, tablePrefix }),
            memory: new InMemoryMemoryService(),
            workerId,
            batchSize: 1,
          });
          const handler = scoreJobHandler({
            store,
            scorerFor: (_app, name) => scorers.find((s) => s.name === name),
            loadEvents: async (job) =>
              (
                await sessions.getSession({
                  appName: job.appName,
                  userId: job.userId,
                  sessionId: job.sessionId ?? '',
                })
              )?.events ?? [],
          });
          worker.registerHandler(SCORE_JOB_KIND, async (jobs, ctx) => {
            ran.set(workerId, (ran.get(workerId) ?? 0) + jobs.length);
            await handler(jobs, ctx);
          });
          return worker;
        });
        await Promise.all(workers.map((w) => w.flush()));
        const scores = await store.list({ appName: 'app' });
        expect(scores).toHaveLength(20);
        expect(new Set(scores.map((s) => s.invocationId)).size).toBe(20);
        expect((ran.get('w1') ?? 0) + (ran.get('w2') ?? 0)).toBe(20);
        expect(ran.get('w1') ?? 0).toBeGreaterThan(0);
        expect(ran.get('w2') ?? 0).toBeGreaterThan(0);
        await sessions.close();
      } finally {
        await db.destroy();
      }
    }, 120_000);
  },
);

describe('pglite on disk: score jobs and results survive a restart', () => {
  const dir = mkdtempSync(join(tmpdir(), 'adk-session-sql-scores-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const url = `pglite://${join(dir, 'db')}`;
  const scorers = [
    defineScorer({
      name: 'len',
      version: '2',
      score: (t) => ({ score: t.responseText.length, reason: 'chars' }),
    }),
  ];

  it('jobs enqueued before a stop are run after it, and their results are listed after another', async () => {
    // First process: turns are answered; scoring is only enqueued (no worker runs).
    const first = await createSqlStores(url);
    const queue = new SqlMemoryJobQueue({ db: first.db, migrate: false });
    const errors: unknown[] = [];
    const plugin = new ScorersPlugin({ store: first.scores, queue, scorers, onError: (e) => errors.push(e) });
    const runner = new Runner({
      appName: 'app',
      sessionService: first.sessions,
      autoCreateSession: true,
      agent: new LlmAgent({ name: 'root', model: new ScriptedModel({ respond: () => 'four' }) }),
      plugins: [plugin],
    });
    for (const i of [1, 2, 3]) {
      const events: Event[] = [];
      for await (const e of runner.run({
        userId: 'u',
        sessionId: 's',
        invocationId: `inv-${i}`,
        newMessage: userContent('n?'),
      }))
        events.push(e);
      expect(events.at(-1)?.content?.parts[0]?.text).toBe('four');
    }
    await plugin.flush();
    expect(errors).toEqual([]);
    expect((await queue.stats()).pending).toBe(3);
    await first.close();

    // Second process: a worker runs the jobs left by the first.
    const second = await createSqlStores(url);
    const worker = new MemoryJobWorker({
      queue: new SqlMemoryJobQueue({ db: second.db, migrate: false }),
      memory: new InMemoryMemoryService(),
    });
    worker.registerHandler(
      SCORE_JOB_KIND,
      scoreJobHandler({
        store: second.scores,
        scorerFor: (_app, name) => scorers.find((s) => s.name === name),
        loadEvents: async (job) =>
          (
            await second.sessions.getSession({
              appName: job.appName,
              userId: job.userId,
              sessionId: job.sessionId ?? '',
            })
          )?.events ?? [],
      }),
    );
    await worker.flush();
    await second.close();

    // Third process: the results are there.
    const third = await createSqlStores(url);
    const scores = await third.scores.list({ appName: 'app', scorerName: 'len' });
    expect(scores.map((s) => s.invocationId).sort()).toEqual(['inv-1', 'inv-2', 'inv-3']);
    expect(scores.every((s) => s.score === 4 && s.scorerVersion === '2' && s.reason === 'chars')).toBe(true);
    await third.close();
  }, 120_000);
});
