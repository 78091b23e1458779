import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSse, startServer } from './__fixtures__/apps.js';

// DATABASE_URL pointing at Postgres: sessions there, and they survive a restart of the server.

interface PostgresTarget {
  url?: string;
  skipReason?: string;
}
type StartCluster = (project: unknown) => Promise<(() => void) | undefined>;

// The session-sql suites' throwaway-cluster helper (their Vitest globalSetup), run for this file
// only; loaded by URL because it lives outside this package's sources.
const HELPER = new URL('../../session-sql/src/__fixtures__/postgres-cluster.ts', import.meta.url).href;

let target: PostgresTarget = {};
let stop: (() => void) | undefined;
beforeAll(async () => {
  const startCluster = ((await import(HELPER)) as { default: StartCluster }).default;
  stop =
    (await startCluster({ provide: (_key: string, value: PostgresTarget) => (target = value) })) ?? undefined;
});
afterAll(() => stop?.());

describe('Postgres', () => {
  it('stores sessions in Postgres when databaseUrl is a postgres:// URL', async (ctx) => {
    if (!target.url) {
      console.warn(`[server] Postgres test skipped: ${target.skipReason}`);
      ctx.skip();
      return;
    }
    const databaseUrl = target.url;
    const first = await startServer({ databaseUrl });
    expect(first.server.storage).toBe(databaseUrl);
    await fetch(`${first.url}/apps/assistant/users/u1/sessions/pg`, { method: 'POST' });
    const { events } = await readSse(
      await fetch(`${first.url}/run_sse`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({
          appName: 'assistant',
          userId: 'u1',
          sessionId: 'pg',
          newMessage: { role: 'user', parts: [{ text: 'weather in Oslo' }] },
        }),
      }),
    );
    expect(events).toHaveLength(4);
    await first.close();
    const second = await startServer({ databaseUrl });
    try {
      const session = (await (await fetch(`${second.url}/apps/assistant/users/u1/sessions/pg`)).json()) as {
        events: unknown[];
      };
      expect(session.events).toHaveLength(4);
      expect(await (await fetch(`${second.url}/ready`)).json()).toEqual({ status: 'ready' });
    } finally {
      await second.close();
    }
  });
});
