import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSse, startServer, type TestServer } from './__fixtures__/apps.js';

// Several server instances on one Postgres: readiness (database reachable, migrations applied,
// not draining), A2A task updates followed from another instance, and a graceful drain.

interface PostgresTarget {
  url?: string;
  skipReason?: string;
}
type StartCluster = (project: unknown) => Promise<(() => void) | undefined>;

// The session-sql suites' throwaway-cluster helper, run for this file only (see postgres.test.ts).
const HELPER = new URL('../../session-sql/src/__fixtures__/postgres-cluster.ts', import.meta.url).href;

let target: PostgresTarget = {};
let stop: (() => void) | undefined;
const servers: TestServer[] = [];
let a: TestServer;
let b: TestServer;
beforeAll(async () => {
  const startCluster = ((await import(HELPER)) as { default: StartCluster }).default;
  stop =
    (await startCluster({ provide: (_key: string, value: PostgresTarget) => (target = value) })) ?? undefined;
  if (!target.url) return;
  for (let i = 0; i < 2; i++) servers.push(await startServer({ databaseUrl: target.url }));
  [a, b] = servers as [TestServer, TestServer];
});
afterAll(async () => {
  for (const server of servers) await server.close().catch(() => undefined);
  stop?.();
});

const rpc = (base: string, method: string, params: object) =>
  fetch(`${base}/a2a/assistant`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0', Accept: 'text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    signal: AbortSignal.timeout(15_000),
  });

/** The `result` of each JSON-RPC SSE frame, as they arrive. */
async function* frames(response: Response): AsyncGenerator<Record<string, unknown>> {
  const reader = (response.body as ReadableStream<Uint8Array>)
    .pipeThrough(new TextDecoderStream())
    .getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    let end = buffer.indexOf('\n\n');
    while (end >= 0) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      end = buffer.indexOf('\n\n');
      const data = frame
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).trim())
        .join('');
      if (data) yield (JSON.parse(data) as { result: Record<string, unknown> }).result;
    }
  }
}

const stateOf = (item: Record<string, unknown>) =>
  ((item.task ?? item.statusUpdate) as { status?: { state?: string } } | undefined)?.status?.state;

describe('several instances on one Postgres', () => {
  it('/ready is 503 while a migration this build knows is not applied, 200 once it is', async (ctx) => {
    if (!target.url) {
      console.warn(`[server] scale-out tests skipped: ${target.skipReason}`);
      ctx.skip();
      return;
    }
    expect(await (await fetch(`${b.url}/health`)).json()).toEqual({ status: 'ok' });
    const client = new pg.Client({ connectionString: target.url });
    await client.connect();
    try {
      const { rows } = await client.query(
        'delete from adk_migrations where name = (select max(name) from adk_migrations) returning *',
      );
      const notReady = await fetch(`${b.url}/ready`);
      expect(notReady.status).toBe(503);
      expect(await notReady.json()).toEqual({ status: 'not_ready' });
      const row = rows[0] as { name: string; timestamp: string };
      await client.query('insert into adk_migrations (name, timestamp) values ($1, $2)', [
        row.name,
        row.timestamp,
      ]);
      const ready = await fetch(`${b.url}/ready`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toEqual({ status: 'ready' });
    } finally {
      await client.end();
    }
  });

  it('a task streamed by one instance is followed to its end from the other (SubscribeToTask)', async (ctx) => {
    if (!target.url) return ctx.skip();
    const sent = await rpc(a.url, 'SendStreamingMessage', {
      message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'slow answer please' }] },
    });
    expect(sent.status).toBe(200);
    const fromA = frames(sent);
    const first = (await fromA.next()).value as Record<string, unknown>;
    const taskId = (first.task as { id: string }).id;

    // Instance B does not run the task: what it streams comes from A over LISTEN/NOTIFY.
    const followed = await rpc(b.url, 'SubscribeToTask', { id: taskId });
    expect(followed.status).toBe(200);
    const states: (string | undefined)[] = [];
    for await (const item of frames(followed)) states.push(stateOf(item));
    for await (const _ of fromA) {
      // drain A's own stream
    }
    expect(states.at(-1)).toBe('TASK_STATE_COMPLETED');
    expect(states[0]).toBeDefined();
  });

  it('drains: /ready says so, a run in progress finishes, a new run is refused', async (ctx) => {
    if (!target.url) return ctx.skip();
    const c = await startServer({ databaseUrl: target.url });
    servers.push(c);
    await fetch(`${c.url}/apps/assistant/users/u1/sessions/drain`, { method: 'POST' });
    const body = (text: string) =>
      JSON.stringify({
        appName: 'assistant',
        userId: 'u1',
        sessionId: 'drain',
        newMessage: { role: 'user', parts: [{ text }] },
      });
    const headers = { 'Content-Type': 'application/json' };
    const running = fetch(`${c.url}/run_sse`, { method: 'POST', headers, body: body('slow one') });
    await new Promise((r) => setTimeout(r, 150));
    const closing = c.server.close();
    const ready = await fetch(`${c.url}/ready`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toEqual({ status: 'draining' });
    const refused = await fetch(`${c.url}/run`, { method: 'POST', headers, body: body('too late') });
    expect(refused.status).toBe(503);
    const { events } = await readSse(await running);
    expect(events.at(-1)).toMatchObject({
      author: 'assistant',
      content: { parts: [{ text: 'You said: slow one' }] },
    });
    await closing;
  });
});
