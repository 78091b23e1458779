import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { offlineEnv } from './__fixtures__/cli.js';
import { type AdkProcess, type PostgresTarget, startAdk, startPostgres } from './__fixtures__/postgres.js';

// Two `adk api_server` processes on one real Postgres behind a round-robin client: runs of one
// session are serialized across the processes (advisory locks), nothing is lost or duplicated, and
// a process killed with SIGKILL mid-run leaves no session stuck.

const APPS = fileURLToPath(new URL('./__fixtures__/scale-out', import.meta.url));
const SESSIONS = 200;

type Instance = AdkProcess & { url: string };

async function startInstance(databaseUrl: string, dataDir: string): Promise<Instance> {
  const started = await startAdk(
    ['api_server', APPS, '--port', '0', '--data-dir', dataDir],
    // A small pool: 200 sessions at once queue for 4 query connections (plus the run-lock one).
    offlineEnv({ DATABASE_URL: databaseUrl, DATABASE_POOL_SIZE: '5' }),
    /listening on (http:\/\/127\.0\.0\.1:\d+)[\s\S]*Press Ctrl-C/,
  );
  return { ...started, url: started.match[1] as string };
}

interface WireEvent {
  id: string;
  author: string;
  invocationId: string;
  content?: { parts: { text?: string }[] };
}

const textOf = (event: WireEvent) => event.content?.parts.map((p) => p.text ?? '').join('') ?? '';

async function createSession(base: string, sessionId: string): Promise<void> {
  const response = await fetch(`${base}/apps/echo/users/u/sessions/${sessionId}`, { method: 'POST' });
  if (response.status !== 200)
    throw new Error(`create ${sessionId}: ${response.status} ${await response.text()}`);
}

/** POST /run; resolves with the events the run produced (throws on any non-200). */
async function send(base: string, sessionId: string, text: string): Promise<WireEvent[]> {
  const response = await fetch(`${base}/run`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({
      appName: 'echo',
      userId: 'u',
      sessionId,
      newMessage: { role: 'user', parts: [{ text }] },
    }),
  });
  const body = await response.text();
  if (response.status !== 200) throw new Error(`run ${sessionId} "${text}": ${response.status} ${body}`);
  return JSON.parse(body) as WireEvent[];
}

async function history(base: string, sessionId: string): Promise<WireEvent[]> {
  const response = await fetch(`${base}/apps/echo/users/u/sessions/${sessionId}`);
  if (response.status !== 200) throw new Error(`get ${sessionId}: ${response.status}`);
  return ((await response.json()) as { events: WireEvent[] }).events;
}

let target: PostgresTarget = {};
let stopCluster: (() => void) | undefined;
let dataDir = '';
let instances: Instance[] = [];

beforeAll(async () => {
  ({ target, stop: stopCluster } = await startPostgres());
  if (!target.url) return;
  dataDir = mkdtempSync(join(tmpdir(), 'adk-cli-scale-out-'));
  // Both start together on an empty database: the migrations run once, under the migrator's lock.
  const url = target.url;
  instances = await Promise.all([startInstance(url, dataDir), startInstance(url, dataDir)]);
}, 180_000);

afterAll(async () => {
  for (const instance of instances) if (instance.child.exitCode === null) instance.child.kill('SIGKILL');
  await Promise.all(instances.map((instance) => instance.exited));
  stopCluster?.();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe('two api_server processes on one Postgres', () => {
  it('200 sessions, two messages each sent to different instances at once: every run answered, histories strictly alternating', async (ctx) => {
    if (!target.url) {
      console.warn(`[cli] scale-out test skipped: ${target.skipReason}`);
      ctx.skip();
      return;
    }
    const [a, b] = instances as [Instance, Instance];
    const ids = Array.from({ length: SESSIONS }, (_, i) => `s${i}`);
    const at = (i: number) => (i % 2 === 0 ? a : b).url;
    await Promise.all(ids.map((id, i) => createSession(at(i), id)));

    const produced = new Map<string, WireEvent[]>();
    const errors: string[] = [];
    await Promise.all(
      ids.flatMap((id, i) =>
        [0, 1].map(async (n) => {
          const text = `message ${n + 1} of ${id}`;
          try {
            const events = await send(at(i + n), id, text);
            produced.set(`${id}/${n}`, events);
            const answer = events.at(-1);
            if (answer?.author !== 'echo' || textOf(answer) !== `echo: ${text}`)
              errors.push(`${id}: unexpected answer ${JSON.stringify(answer)}`);
          } catch (error) {
            errors.push((error as Error).message);
          }
        }),
      ),
    );
    expect(errors).toEqual([]);

    const seen = new Set<string>();
    for (const [i, id] of ids.entries()) {
      // Read from the instance that did not create the session: the history is the database's.
      const events = await history(at(i + 1), id);
      expect(events.map((e) => e.author)).toEqual(['user', 'echo', 'user', 'echo']);
      const texts = events.map(textOf);
      expect(texts[1]).toBe(`echo: ${texts[0]}`);
      expect(texts[3]).toBe(`echo: ${texts[2]}`);
      expect([texts[0], texts[2]].sort()).toEqual([`message 1 of ${id}`, `message 2 of ${id}`]);
      for (const event of events) {
        expect(seen.has(event.id), `duplicate event ${event.id}`).toBe(false);
        seen.add(event.id);
      }
      // What each run returned is exactly what was stored for it.
      for (const n of [0, 1]) {
        for (const event of produced.get(`${id}/${n}`) ?? [])
          expect(events.some((stored) => stored.id === event.id)).toBe(true);
      }
    }
    expect(seen.size).toBe(SESSIONS * 4);
  }, 120_000);

  it('kill -9 of an instance mid-run: its sessions continue on the other once the lock is released', async (ctx) => {
    if (!target.url) return ctx.skip();
    const [a, b] = instances as [Instance, Instance];
    const ids = Array.from({ length: 10 }, (_, i) => `k${i}`);
    await Promise.all(ids.map((id) => createSession(a.url, id)));

    // Instance A runs a slow turn in each session (and holds their locks)…
    const onA = ids.map((id) =>
      send(a.url, id, `slow ${id}`).then(
        () => 'answered',
        () => 'failed',
      ),
    );
    // Each slow turn has committed its user message (however loaded the machine is)…
    await Promise.all(
      ids.map(async (id) => {
        for (let tries = 0; ; tries++) {
          const events = await history(b.url, id);
          if (events.some((e) => textOf(e) === `slow ${id}`)) return;
          if (tries > 400) throw new Error(`the slow turn of ${id} never started`);
          await new Promise((resolve) => setTimeout(resolve, 25));
        }
      }),
    );
    // …so B's turns in the same sessions wait for them.
    const sentToB = performance.now();
    const onB = ids.map((id) =>
      send(b.url, id, `after ${id}`).then((events) => ({ events, at: performance.now() })),
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    const killedAt = performance.now();
    a.child.kill('SIGKILL');
    await a.exited;

    expect(await Promise.all(onA)).toEqual(ids.map(() => 'failed'));
    const fromB = await Promise.all(onB);
    for (const [i, id] of ids.entries()) {
      const result = fromB[i];
      if (!result) throw new Error('missing result');
      // B could only run once A was gone and Postgres had dropped its locks.
      expect(result.at).toBeGreaterThan(killedAt);
      expect(result.at).toBeGreaterThan(sentToB);
      expect(textOf(result.events.at(-1) as WireEvent)).toBe(`echo: after ${id}`);
      const events = await history(b.url, id);
      // The killed turn is either taken over and answered before B's turn gets the session, or
      // left unanswered once B's turn went on (INTERRUPTED); nothing twice either way.
      const seen = events.map((e) => `${e.author}:${textOf(e)}`);
      const resumed = seen.includes(`echo:echo: slow ${id}`);
      expect(seen).toEqual([
        `user:slow ${id}`,
        ...(resumed ? [`echo:echo: slow ${id}`] : []),
        `user:after ${id}`,
        `echo:echo: after ${id}`,
      ]);
    }
  }, 60_000);

  it('SIGTERM drains: a run in progress finishes, then the process exits cleanly', async (ctx) => {
    if (!target.url) return ctx.skip();
    const b = instances[1] as Instance;
    await createSession(b.url, 'drain');
    const running = send(b.url, 'drain', 'slow goodbye');
    await new Promise((resolve) => setTimeout(resolve, 300));
    b.child.kill('SIGTERM');
    const events = await running;
    expect(textOf(events.at(-1) as WireEvent)).toBe('echo: slow goodbye');
    expect(await b.exited).toBe(0);
    expect(b.output()).toContain('Stopped.');
  }, 30_000);
});
