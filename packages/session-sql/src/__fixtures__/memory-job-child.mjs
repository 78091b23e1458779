// A memory job worker in its own process (run on the built package), for the kill -9 test:
// it completes its first batch, then announces the second and hangs in it until killed.
import { MemoryJobWorker } from '@adk/core';
import { kyselyFromUrl, SqlMemoryJobQueue } from '@adk/session-sql';
import { sql } from 'kysely';

const [url, tablePrefix] = process.argv.slice(2);
const db = await kyselyFromUrl(url);
const queue = new SqlMemoryJobQueue({ db, tablePrefix, migrate: false });
let batch = 0;
const worker = new MemoryJobWorker({
  queue,
  memory: { addSessionToMemory: async () => {}, searchMemory: async () => ({ memories: [] }) },
  batchSize: 4,
  leaseMs: 3000,
  workerId: 'child',
});
worker.registerHandler('index', async (jobs) => {
  batch++;
  if (batch >= 2) {
    process.stdout.write(`mid-batch ${jobs.map((j) => j.id).join(',')}\n`);
    await new Promise(() => {});
  }
  for (const job of jobs)
    await sql`insert into ${sql.table(`${tablePrefix}effects`)} (job_id, worker) values (${job.id}, 'child')`.execute(
      db,
    );
});
worker.start();
