import { PGlite } from '@electric-sql/pglite';
import { Kysely, PGliteDialect, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineAgent, inputRequired, reply } from '../../agent/define-agent.js';
import { isA2aError } from '../../protocol/errors.js';
import { nodeSqliteKysely } from '../__fixtures__/node-sqlite.js';
import { taskAt, taskStoreSuite } from '../__fixtures__/task-store-suite.js';
import { SqlTaskStore } from './sql-task-store.js';

// One PGlite instance (its start-up is the slow part); each test gets its own table prefix.
const pglite = new PGlite();
const pg = new Kysely<unknown>({ dialect: new PGliteDialect({ pglite }) });
// Starting PGlite (WASM) takes seconds on a busy machine: done once, outside any test's time.
beforeAll(async () => {
  await pglite.waitReady;
  await sql`select 1`.execute(pg);
}, 60_000);
afterAll(async () => {
  await pg.destroy();
});
let n = 0;

taskStoreSuite('SQL on PGlite', async () => ({
  store: new SqlTaskStore({ db: pg, tablePrefix: `t${++n}_` }),
}));

taskStoreSuite('SQL on SQLite (node:sqlite)', async () => {
  const db = nodeSqliteKysely();
  return { store: new SqlTaskStore({ db }), close: () => db.destroy() };
});

describe('SqlTaskStore', () => {
  it('lets two servers share tasks: list, continue and cancel across processes', async () => {
    const store = () => new SqlTaskStore({ db: pg, tablePrefix: 'shared_' });
    const agent = defineAgent({
      name: 'booking',
      description: 'books',
      handleMessage: (message, ctx) =>
        ctx.task ? reply(`booked ${message.parts[0]?.text}`) : inputRequired('Where to?'),
    });
    const a = agent.server({ store: store() });
    const b = agent.server({ store: store() });
    try {
      const send = (server: typeof a, text: string, taskId?: string) =>
        server.handler.sendMessage({
          message: {
            messageId: `m-${text}`,
            role: 'ROLE_USER',
            parts: [{ text }],
            ...(taskId ? { taskId } : {}),
          },
        });
      const first = await send(a, 'book');
      const task = 'task' in first ? first.task : undefined;
      expect(task?.status.state).toBe('TASK_STATE_INPUT_REQUIRED');

      // B sees A's task and can continue it.
      expect((await b.handler.getTask(task?.id as string, undefined)).status.state).toBe(
        'TASK_STATE_INPUT_REQUIRED',
      );
      expect((await b.handler.listTasks({})).tasks.map((t) => t.id)).toContain(task?.id);
      const second = await send(b, 'Oslo', task?.id);
      expect('task' in second && second.task.artifacts?.[0]?.parts).toEqual([{ text: 'booked Oslo' }]);
      expect((await a.handler.getTask(task?.id as string, undefined)).status.state).toBe(
        'TASK_STATE_COMPLETED',
      );

      // A task waiting in A is canceled from B.
      const other = await send(a, 'again');
      const otherId = 'task' in other ? other.task.id : '';
      expect((await b.handler.cancelTask(otherId)).status.state).toBe('TASK_STATE_CANCELED');
      expect((await a.handler.getTask(otherId, undefined)).status.state).toBe('TASK_STATE_CANCELED');
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('keeps stores with different table prefixes apart', async () => {
    const one = new SqlTaskStore({ db: pg, tablePrefix: 'one_' });
    const two = new SqlTaskStore({ db: pg, tablePrefix: 'two_' });
    await one.save(taskAt('t', 0));
    expect(await two.get('t')).toBeUndefined();
    const tables = await sql<{
      tablename: string;
    }>`select tablename from pg_tables where tablename like 'one_%' order by 1`.execute(pg);
    expect(tables.rows.map((r) => r.tablename)).toEqual([
      'one_push_configs',
      'one_task_migrations',
      'one_task_migrations_lock',
      'one_tasks',
    ]);
  });

  it('reports a corrupt stored task as an internal error, not a crash', async () => {
    const store = new SqlTaskStore({ db: pg, tablePrefix: 'corrupt_' });
    await store.save(taskAt('t', 0));
    await sql`update corrupt_tasks set task = '{not json' where id = 't'`.execute(pg);
    const error = await store.get('t').catch((e: unknown) => e);
    expect(isA2aError(error) && error.type).toBe('INTERNAL');
  });

  it('refuses a table prefix that is not an identifier', () => {
    expect(() => new SqlTaskStore({ db: pg, tablePrefix: 'x; drop table y' })).toThrow(
      /Invalid table prefix/,
    );
  });
});
