import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { MemoryJobWorker } from '@adk/core';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type AnyKysely, kyselyFromUrl, SqlMemoryJobQueue } from './index.js';

const postgres = inject('postgres');
const child = fileURLToPath(new URL('./__fixtures__/memory-job-child.mjs', import.meta.url));

// The child runs the built package (dist), as a deployed worker would: turbo.json builds this
// package before its tests.
describe.skipIf(!postgres.url)('memory jobs survive a kill -9 of their worker (Postgres)', () => {
  let db: AnyKysely;
  const tablePrefix = `mjk_${process.pid}_`;
  beforeAll(async () => {
    db = await kyselyFromUrl(postgres.url ?? '');
  });
  afterAll(async () => {
    await db?.destroy();
  });

  it('no job is lost and none runs twice', { timeout: 180_000 }, async () => {
    const queue = new SqlMemoryJobQueue({ db, tablePrefix });
    for (let i = 0; i < 12; i++)
      await queue.enqueue([
        { kind: 'index', appName: 'a', userId: 'u', sessionId: 's', eventIds: [`e${i}`] },
      ]);
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
    const { rows } = await sql<{ job_id: string; n: number | string }>`select job_id, count(*) as n
      from ${sql.table(`${tablePrefix}effects`)} group by job_id`.execute(db);
    expect(rows).toHaveLength(12);
    expect(rows.every((r) => Number(r.n) === 1)).toBe(true);
    expect(await queue.stats()).toMatchObject({ pending: 0, running: 0, done: 12, failed: 0 });
    const retried = await queue.list({ status: 'done', limit: 100 });
    expect(retried.filter((j) => killedBatch.includes(j.id)).every((j) => j.attempts === 2)).toBe(true);
  });
});
