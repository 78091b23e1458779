import { type Event, isAdkError, LlmAgent, Runner } from '@adk/core';
import { ScriptedModel } from '@adk/core/testing';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { suiteTitle, testDatabases } from './__fixtures__/databases.js';
import { SqlSessionService } from './index.js';

const target = testDatabases().find((db) => db.name === 'postgres');
if (!target) throw new Error('the postgres test database is missing');
const run = `${process.pid}-${Date.now()}`;

// Two services, each on its own connection pool, stand for two server processes on one database.
describe.skipIf(target.skipReason !== undefined)(suiteTitle(target, 'run locks across instances'), () => {
  let a: SqlSessionService;
  let b: SqlSessionService;
  beforeAll(async () => {
    a = new SqlSessionService({ db: await target.open(), destroyOnClose: true });
    b = new SqlSessionService({ db: await target.open(), destroyOnClose: true });
    await a.migrate();
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
  });

  const runner = (service: SqlSessionService, concurrentRuns: 'queue' | 'reject', delayMs = 0) =>
    new Runner({
      appName: `locks-${run}`,
      agent: new LlmAgent({
        name: 'echo',
        model: new ScriptedModel({ respond: (req) => `echo ${req.contents.length}`, delayMs }),
      }),
      sessionService: service,
      concurrentRuns,
    });
  const message = (text: string) => ({ role: 'user' as const, parts: [{ text }] });
  const drain = async (events: AsyncIterable<Event>) => {
    const out: Event[] = [];
    for await (const event of events) out.push(event);
    return out;
  };

  it('is on for Postgres opened from a URL, and off for PGlite and SQLite', async () => {
    expect(a.acquireRunLock).toBeTypeOf('function');
    for (const url of ['pglite://memory', 'sqlite://:memory:']) {
      const local = await SqlSessionService.fromUrl(url);
      expect(local.acquireRunLock).toBeUndefined();
      await local.close();
    }
  });

  it("'queue': two instances running one session at once take turns; history alternates", async () => {
    const sessionId = `queue-${run}`;
    await a.createSession({ appName: `locks-${run}`, userId: 'u', sessionId });
    const ra = runner(a, 'queue', 30);
    const rb = runner(b, 'queue', 30);
    const rounds = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        drain((i % 2 ? rb : ra).run({ userId: 'u', sessionId, newMessage: message(`m${i}`) })),
      ),
    );
    expect(rounds.every((events) => events.some((e) => e.errorCode))).toBe(false);
    const stored = await a.getSession({ appName: `locks-${run}`, userId: 'u', sessionId });
    const authors = stored?.events.map((e) => e.author) ?? [];
    expect(authors).toHaveLength(12);
    expect(authors).toEqual(Array.from({ length: 12 }, (_, i) => (i % 2 ? 'echo' : 'user')));
  });

  it("'reject': a run while another instance runs the session fails fast with CONCURRENT_INVOCATION", async () => {
    const sessionId = `reject-${run}`;
    await a.createSession({ appName: `locks-${run}`, userId: 'u', sessionId });
    const slow = drain(runner(a, 'reject', 400).run({ userId: 'u', sessionId, newMessage: message('slow') }));
    await new Promise((r) => setTimeout(r, 100));
    const error = await drain(
      runner(b, 'reject').run({ userId: 'u', sessionId, newMessage: message('second') }),
    ).catch((e: unknown) => e);
    expect(isAdkError(error) && error.code).toBe('CONCURRENT_INVOCATION');
    await slow;
    // Free again once the first run ended.
    const after = await drain(
      runner(b, 'reject').run({ userId: 'u', sessionId, newMessage: message('third') }),
    );
    expect(after.at(-1)?.content?.parts?.[0]?.text).toMatch(/^echo/);
  });

  it('a lock dies with the connection that held it (a killed process frees its sessions)', async () => {
    const sessionId = `dead-${run}`;
    await a.createSession({ appName: `locks-${run}`, userId: 'u', sessionId });
    const held = await a.acquireRunLock?.(
      { appName: `locks-${run}`, userId: 'u', sessionId },
      { wait: false },
    );
    expect(held).toBeDefined();
    const blocked = await b.acquireRunLock?.(
      { appName: `locks-${run}`, userId: 'u', sessionId },
      { wait: false },
    );
    expect(blocked).toBeUndefined();
    // Terminate a's lock connection from outside, as the server does when a process dies.
    const admin = await target.open();
    const name = JSON.stringify(['adk_', `locks-${run}`, 'u', sessionId]);
    const { rows } = await sql<{ killed: boolean }>`
      select pg_terminate_backend(pid) as killed from pg_locks
      where locktype = 'advisory' and objsubid = 1
        and ((classid::bigint << 32) | objid::bigint) = hashtextextended(${name}, 0)`.execute(admin);
    expect(rows).toEqual([{ killed: true }]);
    await admin.destroy();
    const taken = await b.acquireRunLock?.(
      { appName: `locks-${run}`, userId: 'u', sessionId },
      { wait: true, signal: AbortSignal.timeout(5000) },
    );
    expect(taken).toBeDefined();
    await taken?.release();
  });

  it('many locks taken and released at once (batched statements) stay exact per session', async () => {
    const appName = `locks-${run}`;
    const keys = Array.from({ length: 120 }, (_, i) => ({
      appName,
      userId: 'u',
      sessionId: `batch-${run}-${i}`,
    }));
    // Odd sessions are held by b first: a must get exactly the even ones.
    const bHeld = await Promise.all(
      keys.filter((_, i) => i % 2 === 1).map((key) => b.acquireRunLock?.(key, { wait: false })),
    );
    expect(bHeld.every((lock) => lock !== undefined)).toBe(true);
    const aTry = await Promise.all(keys.map((key) => a.acquireRunLock?.(key, { wait: false })));
    expect(aTry.map((lock) => lock !== undefined)).toEqual(keys.map((_, i) => i % 2 === 0));
    // Releases and new attempts interleave in the same batches.
    await Promise.all([...bHeld.map((lock) => lock?.release()), ...aTry.map((lock) => lock?.release())]);
    const bAll = await Promise.all(keys.map((key) => b.acquireRunLock?.(key, { wait: false })));
    expect(bAll.every((lock) => lock !== undefined)).toBe(true);
    await Promise.all(bAll.map((lock) => lock?.release()));
  });

  it('close() lets queued lock operations finish first, then releases everything; later ones are refused', async () => {
    const closing = new SqlSessionService({ db: await target.open(), destroyOnClose: true });
    const appName = `locks-${run}`;
    const keys = Array.from({ length: 50 }, (_, i) => ({
      appName,
      userId: 'u',
      sessionId: `close-${run}-${i}`,
    }));
    const taken = Promise.all(keys.map((key) => closing.acquireRunLock?.(key, { wait: false })));
    await closing.close();
    expect((await taken).every((lock) => lock !== undefined)).toBe(true);
    // Nothing stayed behind on a pooled connection: the other instance takes every session.
    const other = await Promise.all(keys.map((key) => b.acquireRunLock?.(key, { wait: false })));
    expect(other.every((lock) => lock !== undefined)).toBe(true);
    await Promise.all(other.map((lock) => lock?.release()));
    const late = await closing
      .acquireRunLock?.(keys[0] as (typeof keys)[number], { wait: false })
      .catch((e) => e);
    expect(isAdkError(late, 'CANCELLED')).toBe(true);
  });
});
