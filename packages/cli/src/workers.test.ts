import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { offlineEnv } from './__fixtures__/cli.js';
import { type AdkProcess, type PostgresTarget, startAdk, startPostgres } from './__fixtures__/postgres.js';

// Two `adk api_server --workers 0` processes queue background runs on one real Postgres; `adk
// worker` processes claim and execute them. Workers are killed with SIGKILL mid-run, twice: every
// run still ends succeeded, resumed from its events by another worker, with nothing lost or
// duplicated, no completed model step repeated and the non-idempotent tool never run twice.

const APPS = fileURLToPath(new URL('./__fixtures__/workers', import.meta.url));
const SESSIONS = 100;
const RUNS_PER_SESSION = 2;

let target: PostgresTarget = {};
let stopCluster: (() => void) | undefined;
let dir = '';
let sideFile = '';
let env: NodeJS.ProcessEnv = {};
const procs: AdkProcess[] = [];
const apis: string[] = [];

const startApi = async () => {
  const p = await startAdk(
    ['api_server', APPS, '--port', '0', '--data-dir', dir, '--workers', '0'],
    env,
    /listening on (http:\/\/127\.0\.0\.1:\d+)[\s\S]*Press Ctrl-C/,
  );
  procs.push(p);
  return p.match[1] as string;
};
const startWorker = async () => {
  const p = await startAdk(['worker', APPS, '--data-dir', dir], env, /Press Ctrl-C/);
  procs.push(p);
  return p;
};

beforeAll(async () => {
  ({ target, stop: stopCluster } = await startPostgres());
  if (!target.url) return;
  dir = mkdtempSync(join(tmpdir(), 'adk-cli-workers-'));
  sideFile = join(dir, 'calls.log');
  env = offlineEnv({ DATABASE_URL: target.url, DATABASE_POOL_SIZE: '6', ADK_TEST_SIDE_FILE: sideFile });
  apis.push(...(await Promise.all([startApi(), startApi()])));
}, 180_000);

afterAll(async () => {
  for (const p of procs) if (p.child.exitCode === null) p.child.kill('SIGKILL');
  await Promise.all(procs.map((p) => p.exited));
  stopCluster?.();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function json<T>(method: string, url: string, body?: unknown): Promise<{ status: number; body: T }> {
  const response = await fetch(url, {
    method,
    ...(body === undefined
      ? {}
      : { headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : undefined) as T };
}

interface WireEvent {
  id: string;
  author: string;
  invocationId: string;
  content?: {
    parts: {
      text?: string;
      functionCall?: { id: string; name: string };
      functionResponse?: { id: string; response: Record<string, unknown> };
    }[];
  };
}

const sideLines = () =>
  existsSync(sideFile) ? readFileSync(sideFile, 'utf8').split('\n').filter(Boolean) : [];

describe('workers on one Postgres', () => {
  it('kill -9 of a worker mid-run, twice: every run succeeds, nothing lost, duplicated or repeated', async (ctx) => {
    if (!target.url) {
      console.warn(`[cli] workers test skipped: ${target.skipReason}`);
      ctx.skip();
      return;
    }
    const first = await startWorker();
    const second = await startWorker();
    const ids = Array.from({ length: SESSIONS }, (_, i) => `w${i}`);
    const at = (i: number) => apis[i % 2] as string;
    for (const [i, id] of ids.entries()) {
      const created = await json('POST', `${at(i)}/apps/shop/users/u/sessions/${id}`);
      expect(created.status).toBe(200);
    }
    // Every session gets its runs posted at once to both API instances, in order.
    const runs: { sessionId: string; runId: string; tag: string; api: string }[] = [];
    for (let n = 0; n < RUNS_PER_SESSION; n++) {
      const posted = await Promise.all(
        ids.map(async (id, i) => {
          const tag = `${id}-${n}`;
          const api = at(i + n);
          const r = await json<{ runId: string; status: string }>(
            'POST',
            `${api}/apps/shop/users/u/sessions/${id}/runs`,
            {
              newMessage: { role: 'user', parts: [{ text: `pay ${tag}` }] },
            },
          );
          expect(r.status, JSON.stringify(r.body)).toBe(202);
          expect(r.body.status).toBe('queued');
          return { sessionId: id, runId: r.body.runId, tag, api };
        }),
      );
      runs.push(...posted);
    }

    // Kill a worker while it is inside the slow charge tool, start another; then once more.
    const killDuring = async (victim: AdkProcess) => {
      // The victim's own charge (400 ms long) has just started: the kill lands inside it.
      const mine = () =>
        sideLines().filter((l) => l.startsWith('charge ') && l.endsWith(` ${victim.child.pid}`));
      const before = mine().length;
      for (let i = 0; i < 800 && mine().length <= before; i++) await new Promise((r) => setTimeout(r, 10));
      victim.child.kill('SIGKILL');
      await victim.exited;
    };
    await killDuring(first);
    const third = await startWorker();
    await killDuring(second);
    await startWorker();
    void third;

    // Every run ends succeeded (taken over within a few heartbeats).
    const deadline = Date.now() + 150_000;
    const statuses = new Map<string, string>();
    while (Date.now() < deadline) {
      for (const run of runs) {
        if (statuses.get(run.runId) === 'succeeded') continue;
        const r = await json<{ status: string }>(
          'GET',
          `${apis[1]}/apps/shop/users/u/sessions/${run.sessionId}/runs/${run.runId}`,
        );
        statuses.set(run.runId, r.body.status);
      }
      if ([...statuses.values()].every((s) => s === 'succeeded') && statuses.size === runs.length) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    const notDone = runs.filter((r) => statuses.get(r.runId) !== 'succeeded');
    expect(notDone.map((r) => `${r.tag}: ${statuses.get(r.runId)}`)).toEqual([]);

    const lines = sideLines();
    const charges = lines.filter((l) => l.startsWith('charge ')).map((l) => l.split(' ')[1]);
    // The non-idempotent tool never ran twice for one call.
    expect(new Set(charges).size).toBe(charges.length);
    const interruptedCalls: string[] = [];
    const seen = new Set<string>();
    for (const id of ids) {
      const session = await json<{ events: WireEvent[] }>(
        'GET',
        `${apis[0]}/apps/shop/users/u/sessions/${id}`,
      );
      const events = session.body.events;
      for (const e of events) {
        expect(seen.has(e.id), `duplicate event ${e.id}`).toBe(false);
        seen.add(e.id);
      }
      // FIFO per session: the first message's run ends before the second one starts.
      const users = events.filter(
        (e) => e.author === 'user' && e.content?.parts[0]?.text?.startsWith('pay '),
      );
      expect(users.map((e) => e.content?.parts[0]?.text)).toEqual([`pay ${id}-0`, `pay ${id}-1`]);
      for (let n = 0; n < RUNS_PER_SESSION; n++) {
        const mine = events.filter((e) => e.invocationId === users[n]?.invocationId);
        const modelSteps = mine.filter(
          (e) => e.author === 'cashier' && !e.content?.parts[0]?.functionResponse,
        );
        // One committed model event per step: call charge, call receipt, answer.
        expect(modelSteps.length, `${id}-${n}`).toBe(3);
        expect(modelSteps.at(-1)?.content?.parts[0]?.text).toBe(`paid ${id}-${n}`);
        for (const e of mine)
          for (const p of e.content?.parts ?? [])
            if (p.functionResponse && typeof p.functionResponse.response.error === 'string')
              interruptedCalls.push(p.functionResponse.id);
      }
    }
    expect(seen.size).toBeGreaterThan(0);
    // A model step is repeated only when its process died before its answer was committed; each
    // repeat is backed by exactly one committed model event above. The kills landed inside charge.
    const modelCalls = lines.filter((l) => l.startsWith('model '));
    const byStep = new Map<string, number>();
    for (const l of modelCalls) byStep.set(l, (byStep.get(l) ?? 0) + 1);
    const repeated = [...byStep.entries()].filter(([, n]) => n > 1);
    expect(repeated.length).toBeLessThanOrEqual(4);
    // Charges cut off by a kill were answered as interrupted, never run again (a call whose
    // process died before the tool started is answered the same way, with no charge at all).
    expect(interruptedCalls.length).toBeGreaterThanOrEqual(1);
    for (const id of interruptedCalls) expect(charges.filter((c) => c === id).length).toBeLessThanOrEqual(1);
  }, 240_000);

  it('a cancel sent to an API instance stops the run a worker executes, within 500 ms', async (ctx) => {
    if (!target.url) return ctx.skip();
    const [a, b] = apis as [string, string];
    await json('POST', `${a}/apps/shop/users/u/sessions/cancel-me`);
    const started = await json<{ runId: string }>('POST', `${a}/apps/shop/users/u/sessions/cancel-me/runs`, {
      newMessage: { role: 'user', parts: [{ text: 'pay cancel-me' }] },
    });
    const runUrl = (api: string) => `${api}/apps/shop/users/u/sessions/cancel-me/runs/${started.body.runId}`;
    for (let i = 0; i < 400; i++) {
      if (sideLines().some((l) => l.startsWith('charge ') && l.includes(' cancel-me '))) break;
      await new Promise((r) => setTimeout(r, 10));
    }
    const sentAt = Date.now();
    const asked = await json<{ cancelRequested?: boolean; status: string }>('POST', `${runUrl(b)}/cancel`);
    expect(asked.status).toBe(200);
    let status = asked.body.status;
    while (status !== 'cancelled' && Date.now() - sentAt < 5000) {
      await new Promise((r) => setTimeout(r, 10));
      status = (await json<{ status: string }>('GET', runUrl(b))).body.status;
    }
    expect(status).toBe('cancelled');
    expect(Date.now() - sentAt).toBeLessThan(500);
  }, 60_000);
});
