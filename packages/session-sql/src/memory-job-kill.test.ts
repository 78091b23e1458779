import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import {
  type Event,
  InMemorySessionService,
  LlmAgent,
  type MemoryJob,
  MemoryJobWorker,
  Runner,
  userContent,
} from '@adk/core';
import { ScriptedModel } from '@adk/core/testing';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type AnyKysely, kyselyFromUrl, SqlMemoryJobQueue, SqlMemoryService } from './index.js';

const postgres = inject('postgres');
const child = fileURLToPath(new URL('./__fixtures__/memory-job-child.mjs', import.meta.url));

/**
 * Enqueues 12 jobs, lets a worker process run its first batch of 4 and kills it (SIGKILL) in its
 * second; returns the ids of the batch it held.
 */
async function killWorkerMidBatch(db: AnyKysely, tablePrefix: string): Promise<string[]> {
  const queue = new SqlMemoryJobQueue({ db, tablePrefix });
  for (let i = 0; i < 12; i++)
    await queue.enqueue([{ kind: 'index', appName: 'a', userId: 'u', sessionId: 's', eventIds: [`e${i}`] }]);
  await sql`create table ${sql.table(`${tablePrefix}effects`)} (job_id text not null, worker text not null)`.execute(
    db,
  );
  const proc = spawn(process.execPath, [child, postgres.url ?? '', tablePrefix], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const killedBatch = await new Promise<string[]>((resolve, reject) => {
    let out = '';
    proc.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const line = /mid-batch (\S+)\n/.exec(out);
      if (line?.[1]) resolve(line[1].split(','));
    });
    proc.on('exit', (code) => reject(new Error(`worker exited early (${code})`)));
  });
  const exited = new Promise((resolve) => proc.on('exit', resolve));
  proc.kill('SIGKILL');
  await exited;
  expect(killedBatch).toHaveLength(4);
  expect((await queue.stats()).running).toBe(4);
  return killedBatch;
}

async function effectsOnce(db: AnyKysely, tablePrefix: string, jobs: number): Promise<void> {
  const { rows } = await sql<{ job_id: string; n: number | string }>`select job_id, count(*) as n
    from ${sql.table(`${tablePrefix}effects`)} group by job_id`.execute(db);
  expect(rows).toHaveLength(jobs);
  expect(rows.every((r) => Number(r.n) === 1)).toBe(true);
}

// The child runs the built package (dist), as a deployed worker would: turbo.json builds this
// package before its tests.
describe.skipIf(!postgres.url)('memory jobs survive a kill -9 of their worker (Postgres)', () => {
  let db: AnyKysely;
  beforeAll(async () => {
    db = await kyselyFromUrl(postgres.url ?? '');
  });
  afterAll(async () => {
    await db?.destroy();
  });

  it('no job is lost and none runs twice', { timeout: 180_000 }, async () => {
    const tablePrefix = `mjk_${process.pid}_`;
    const queue = new SqlMemoryJobQueue({ db, tablePrefix });
    const killedBatch = await killWorkerMidBatch(db, tablePrefix);
    const worker = new MemoryJobWorker({
      queue,
      memory: { addSessionToMemory: async () => {}, searchMemory: async () => ({ memories: [] }) },
      workerId: 'survivor',
    }).registerHandler('index', async (jobs) => {
      for (const job of jobs)
        await sql`insert into ${sql.table(`${tablePrefix}effects`)} (job_id, worker) values (${job.id}, 'survivor')`.execute(
          db,
        );
    });
    await worker.flush();
    await effectsOnce(db, tablePrefix, 12);
    expect(await queue.stats()).toMatchObject({ pending: 0, running: 0, done: 12, failed: 0 });
    const retried = await queue.list({ status: 'done', limit: 100 });
    expect(retried.filter((j) => killedBatch.includes(j.id)).every((j) => j.attempts === 2)).toBe(true);
  });

  it('a Runner on the same database takes the killed worker’s jobs over by itself', {
    timeout: 180_000,
  }, async () => {
    const tablePrefix = `mjr_${process.pid}_`;
    const queue = new SqlMemoryJobQueue({ db, tablePrefix });
    const killedBatch = await killWorkerMidBatch(db, tablePrefix);
    const seen: MemoryJob[] = [];
    const runner = new Runner({
      appName: 'a',
      agent: new LlmAgent({ name: 'a', model: new ScriptedModel({ respond: () => 'noted' }) }),
      sessionService: new InMemorySessionService(),
      autoCreateSession: true,
      memoryService: new SqlMemoryService({ db, tablePrefix, migrate: false, jobs: queue }),
      memoryWorker: {
        workerId: 'runner',
        pollMs: 100,
        handlers: {
          index: async (jobs) => {
            for (const job of jobs) {
              seen.push(job);
              await sql`insert into ${sql.table(`${tablePrefix}effects`)} (job_id, worker) values (${job.id}, 'runner')`.execute(
                db,
              );
            }
          },
        },
      },
    });
    try {
      // One turn: its job is enqueued and the runner's worker starts; nothing is started by hand.
      for await (const _ of runner.run({
        userId: 'u',
        sessionId: 's',
        newMessage: userContent('hello'),
      }) as AsyncIterable<Event>);
      const deadline = Date.now() + 120_000;
      while ((await queue.stats()).done < 13) {
        if (Date.now() > deadline) throw new Error(`jobs not done: ${JSON.stringify(await queue.stats())}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    } finally {
      await runner.close();
    }
    await effectsOnce(db, tablePrefix, 13);
    expect(await queue.stats()).toMatchObject({ pending: 0, running: 0, done: 13, failed: 0 });
    expect(seen.filter((j) => killedBatch.includes(j.id)).every((j) => j.attempts === 2)).toBe(true);
  });
});
