import assert from 'node:assert/strict';
import type { RunKey, RunRecord, RunStore } from '../runs/run-store.js';
import type { ConformanceSuite } from './conformance.js';

export interface RunStoreConformanceOptions {
  /** Prefix for app names, so suites can share one database. */
  appPrefix?: string;
  /** Called after each case with the store it used. */
  teardown?: (store: RunStore) => Promise<void> | void;
}

let counter = 0;

/** The behaviour every RunStore must have (docs/architecture.md, "Runs"). */
export function runStoreConformance(
  factory: () => RunStore | Promise<RunStore>,
  options: RunStoreConformanceOptions = {},
): ConformanceSuite {
  const app = (name: string) => `${options.appPrefix ?? 'runs'}-${name}-${process.pid}-${++counter}`;
  const withStore = (body: (store: RunStore) => Promise<void>) => async (): Promise<void> => {
    const store = await factory();
    try {
      await body(store);
    } finally {
      await options.teardown?.(store);
    }
  };
  let ids = 0;
  const record = (appName: string, init: Partial<RunRecord> = {}): RunRecord => ({
    id: `run-${process.pid}-${++ids}`,
    appName,
    userId: 'u1',
    sessionId: 's1',
    invocationId: `e-${ids}`,
    status: 'queued',
    background: false,
    createdAt: 1_700_000_000_000 + ids,
    input: { newMessage: { role: 'user', parts: [{ text: 'hello' }] }, stateDelta: { k: 1 } },
    ...init,
  });

  return [
    {
      name: 'creates a run and reads it back unchanged',
      run: withStore(async (s) => {
        const appName = app('create');
        const run = record(appName, { background: true });
        await s.createRun(run);
        assert.deepEqual(await s.getRun({ appName, runId: run.id }), run);
        assert.equal(await s.getRun({ appName, runId: 'missing' }), undefined);
        assert.equal(await s.getRun({ appName: app('other'), runId: run.id }), undefined);
      }),
    },
    {
      name: 'updates status, owner, heartbeat and error; a finished run keeps its status',
      run: withStore(async (s) => {
        const appName = app('update');
        const run = record(appName);
        await s.createRun(run);
        const key: RunKey = { appName, runId: run.id };
        const running = await s.updateRun(key, {
          status: 'running',
          owner: 'i1',
          startedAt: run.createdAt + 1,
          heartbeatAt: run.createdAt + 2,
        });
        assert.equal(running?.status, 'running');
        assert.equal(running?.owner, 'i1');
        assert.equal(running?.heartbeatAt, run.createdAt + 2);
        const failed = await s.updateRun(key, {
          status: 'failed',
          endedAt: run.createdAt + 3,
          error: { code: 'MODEL', message: 'boom' },
        });
        assert.deepEqual(failed?.error, { code: 'MODEL', message: 'boom' });
        const late = await s.updateRun(key, { status: 'running', heartbeatAt: run.createdAt + 4 });
        assert.equal(late?.status, 'failed');
        assert.equal((await s.getRun(key))?.status, 'failed');
        assert.equal(await s.updateRun({ appName, runId: 'missing' }, { status: 'running' }), undefined);
      }),
    },
    {
      name: 'keeps the tokens and cost of a run (its usage) set when it ends',
      run: withStore(async (s) => {
        const appName = app('usage');
        const run = record(appName);
        await s.createRun(run);
        const key: RunKey = { appName, runId: run.id };
        assert.equal((await s.getRun(key))?.usage, undefined);
        const usage = {
          modelCalls: 2,
          inputTokens: 2000,
          outputTokens: 400,
          cachedInputTokens: 800,
          reasoningTokens: 200,
          costUsd: 0.001884,
          unpricedCalls: 0,
        };
        const ended = await s.updateRun(key, { status: 'succeeded', endedAt: run.createdAt + 5, usage });
        assert.deepEqual(ended?.usage, usage);
        assert.deepEqual((await s.getRun(key))?.usage, usage);
        const listed = await s.listRuns({ appName, sessionId: run.sessionId });
        assert.deepEqual(listed.runs[0]?.usage, usage);
      }),
    },
    {
      name: 'lists newest first, filters by user, session and status, and pages without gaps',
      run: withStore(async (s) => {
        const appName = app('list');
        const created: RunRecord[] = [];
        for (let i = 0; i < 7; i++) {
          const run = record(appName, {
            userId: i % 2 === 0 ? 'u1' : 'u2',
            sessionId: i < 4 ? 's1' : 's2',
            status: i === 6 ? 'running' : 'queued',
          });
          created.push(await s.createRun(run));
        }
        const all = await s.listRuns({ appName });
        assert.deepEqual(
          all.runs.map((r) => r.id),
          created.map((r) => r.id).reverse(),
        );
        const pages: string[] = [];
        let token: string | undefined;
        do {
          const page = await s.listRuns({ appName, pageSize: 3, ...(token ? { pageToken: token } : {}) });
          assert.ok(page.runs.length <= 3);
          pages.push(...page.runs.map((r) => r.id));
          token = page.nextPageToken;
        } while (token);
        assert.deepEqual(pages, created.map((r) => r.id).reverse());
        const u1s1 = await s.listRuns({ appName, userId: 'u1', sessionId: 's1' });
        assert.deepEqual(
          u1s1.runs.map((r) => r.id),
          [created[2]?.id, created[0]?.id],
        );
        const running = await s.listRuns({ appName, status: ['running'] });
        assert.deepEqual(
          running.runs.map((r) => r.id),
          [created[6]?.id],
        );
      }),
    },
    {
      name: 'a cancel request cancels a queued run at once, flags a running one, and leaves a finished one',
      run: withStore(async (s) => {
        const appName = app('cancel');
        const queued = await s.createRun(record(appName));
        const running = await s.createRun(record(appName, { status: 'running', owner: 'i1' }));
        const done = await s.createRun(record(appName, { status: 'succeeded', endedAt: 5 }));
        const heard: string[] = [];
        const stop = s.onCancelRequested?.((key) => heard.push(key.runId));
        const q = await s.requestCancel({ appName, runId: queued.id });
        assert.equal(q?.status, 'cancelled');
        assert.equal(q?.error?.code, 'CANCELLED');
        const r = await s.requestCancel({ appName, runId: running.id });
        assert.equal(r?.status, 'running');
        assert.equal(r?.cancelRequested, true);
        const d = await s.requestCancel({ appName, runId: done.id });
        assert.equal(d?.status, 'succeeded');
        assert.equal(await s.requestCancel({ appName, runId: 'missing' }), undefined);
        if (stop) {
          // Listeners may hear about it asynchronously (a database notification).
          for (let i = 0; i < 50 && !heard.includes(running.id); i++)
            await new Promise((r) => setTimeout(r, 20));
          assert.ok(heard.includes(running.id), 'the listener heard the cancel request');
          stop();
        }
      }),
    },
    {
      name: 'claims unowned queued runs and runs of stopped owners, oldest first, each once, FIFO per session',
      run: withStore(async (s) => {
        if (!s.claimRun) return;
        const appName = app('claim');
        const now = Date.now();
        const at = (sessionId: string, init: Partial<RunRecord>) =>
          s.createRun(record(appName, { sessionId, createdAt: now - 2000, ...init }));
        const fresh = await at('s-fresh', { status: 'running', owner: 'alive', heartbeatAt: now });
        const orphan = await at('s-orphan', {
          status: 'running',
          owner: 'dead',
          heartbeatAt: now - 60_000,
          createdAt: now - 70_000,
        });
        const queued = await at('s-queued', { createdAt: now - 1000 });
        const mine = await at('s-mine', { status: 'running', owner: 'me', heartbeatAt: now - 60_000 });
        const done = await at('s-done', { status: 'succeeded', owner: 'dead', createdAt: now - 90_000 });
        // Behind an unfinished run of its own session: not claimable until that one has finished.
        const ahead = await at('s-busy', {
          status: 'running',
          owner: 'alive',
          heartbeatAt: now,
          createdAt: now - 800,
        });
        const behind = await at('s-busy', { createdAt: now - 500 });
        const staleBefore = now - 10_000;
        const first = await s.claimRun({ appName, owner: 'me', staleBefore });
        const second = await s.claimRun({ appName, owner: 'me', staleBefore });
        const third = await s.claimRun({ appName, owner: 'me', staleBefore });
        assert.deepEqual([first?.id, second?.id, third], [orphan.id, queued.id, undefined]);
        assert.equal(first?.owner, 'me');
        assert.ok((first?.heartbeatAt ?? 0) >= now - 1000, 'a claimed run has a fresh heartbeat');
        assert.equal((await s.getRun({ appName, runId: fresh.id }))?.owner, 'alive');
        assert.equal((await s.getRun({ appName, runId: mine.id }))?.owner, 'me');
        assert.equal((await s.getRun({ appName, runId: done.id }))?.owner, 'dead');
        assert.equal((await s.getRun({ appName, runId: behind.id }))?.owner, undefined);
        await s.updateRun({ appName, runId: ahead.id }, { status: 'succeeded', endedAt: now });
        assert.equal((await s.claimRun({ appName, owner: 'me', staleBefore }))?.id, behind.id);
        // Claimers racing for the same runs each get different ones (other owners may take the
        // stale run of "me" too).
        const more = await Promise.all([1, 2, 3, 4].map((i) => at(`s-more-${i}`, { createdAt: now })));
        const raced = await Promise.all(
          ['w1', 'w2', 'w3', 'w4', 'w5'].map((owner) => s.claimRun?.({ appName, owner, staleBefore })),
        );
        const got = raced.filter((r) => r !== undefined).map((r) => r?.id);
        assert.equal(new Set(got).size, got.length, 'no run was claimed twice');
        assert.deepEqual(new Set(got), new Set([...more.map((r) => r.id), mine.id]));
      }),
    },
  ];
}
