import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from './__fixtures__/apps.js';

// Sessions at scale through real HTTP: the paged session list and ADK's GetSessionConfig on
// getSession, one server (PGlite in a temp folder) for the file.

let t: TestServer;
const user = '/apps/assistant/users/pager/sessions';

beforeAll(async () => {
  t = await startServer();
  // Six sessions, created one after the other so their update times differ.
  for (let i = 0; i < 6; i++) await json('POST', user, { sessionId: `s${i}` });
  await json('POST', user, { sessionId: '___eval___session___x' });
  await json('POST', user, {
    sessionId: 'long',
    events: Array.from({ length: 5 }, (_, i) => ({
      author: 'user',
      content: { role: 'user', parts: [{ text: `m${i}` }] },
    })),
  });
});
afterAll(async () => {
  await t?.close();
});

async function json<T = Record<string, unknown>>(
  method: string,
  path: string,
  body?: unknown,
  status = 200,
): Promise<T> {
  const response = await fetch(`${t.url}${path}`, {
    method,
    ...(body === undefined
      ? {}
      : { headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) }),
  });
  const text = await response.text();
  expect(response.status, text).toBe(status);
  return JSON.parse(text) as T;
}

type SessionJson = { id: string; events: unknown[]; lastUpdateTime: number };
type Page = { sessions: SessionJson[]; nextPageToken?: string };
type EventJson = { id: string; timestamp: number; content: { parts: { text: string }[] } };

describe('GET …/sessions with pageSize / pageToken', () => {
  it('answers the whole list as an array without paging params (ADK shape)', async () => {
    const list = await json<SessionJson[]>('GET', user);
    expect(Array.isArray(list)).toBe(true);
    expect(list.map((s) => s.id).sort()).toEqual(['long', 's0', 's1', 's2', 's3', 's4', 's5']);
  });

  it('pages newest first with a cursor, covering every session once, without events', async () => {
    const seen: string[] = [];
    let token: string | undefined;
    let pages = 0;
    do {
      const page = await json<Page>(
        'GET',
        `${user}?pageSize=3${token ? `&pageToken=${encodeURIComponent(token)}` : ''}`,
      );
      pages++;
      expect(page.sessions.length).toBeLessThanOrEqual(3);
      for (const s of page.sessions) expect(s.events).toEqual([]);
      seen.push(...page.sessions.map((s) => s.id));
      token = page.nextPageToken;
    } while (token);
    // Eight sessions in the store (one an eval session, left out): three pages.
    expect(pages).toBe(3);
    expect(seen).toEqual(['long', 's5', 's4', 's3', 's2', 's1', 's0']);
  });

  it('takes snake_case spellings', async () => {
    const first = await json<Page>('GET', `${user}?page_size=2`);
    expect(first.sessions.map((s) => s.id)).toEqual(['long']);
    const second = await json<Page>('GET', `${user}?page_size=2&page_token=${first.nextPageToken}`);
    expect(second.sessions.map((s) => s.id)).toEqual(['s5', 's4']);
  });

  it('answers an empty page for a user without sessions', async () => {
    expect(await json('GET', '/apps/assistant/users/nobody/sessions?pageSize=10')).toEqual({ sessions: [] });
  });

  it.each([
    ['pageSize=0'],
    ['pageSize=1001'],
    ['pageSize=abc'],
    ['pageSize=2.5'],
    ['pageSize='],
    ['pageToken='],
    ['pageSize=2&pageToken=not-a-token'],
    ['pageToken=bm90LWpzb24'],
  ])('refuses %s with a 400', async (query) => {
    const body = await json<{ code: string; detail: string }>('GET', `${user}?${query}`, undefined, 400);
    expect(body.code).toBe('BAD_REQUEST');
    expect(body.detail).toMatch(/page(Size|Token)/);
  });
});

describe('GET …/sessions/{id} with numRecentEvents / afterTimestamp', () => {
  const texts = (s: { events: EventJson[] }) => s.events.map((e) => e.content.parts[0]?.text);

  it('answers every event without them', async () => {
    expect(texts(await json('GET', `${user}/long`))).toEqual(['m0', 'm1', 'm2', 'm3', 'm4']);
  });

  it('answers only the last N events', async () => {
    expect(texts(await json('GET', `${user}/long?numRecentEvents=2`))).toEqual(['m3', 'm4']);
    expect(texts(await json('GET', `${user}/long?num_recent_events=0`))).toEqual([]);
    const session = await json<SessionJson>('GET', `${user}/long?numRecentEvents=0`);
    // The state and update time stay those of the whole session.
    expect(session.lastUpdateTime).toBeGreaterThan(0);
  });

  it('answers only events after a time in seconds, then the last N of those', async () => {
    const all = await json<{ events: EventJson[] }>('GET', `${user}/long`);
    const cut = all.events[1]?.timestamp as number;
    expect(texts(await json('GET', `${user}/long?afterTimestamp=${cut}`))).toEqual(['m2', 'm3', 'm4']);
    expect(texts(await json('GET', `${user}/long?after_timestamp=${cut}&numRecentEvents=1`))).toEqual(['m4']);
  });

  it.each([
    ['numRecentEvents=-1'],
    ['numRecentEvents=two'],
    ['numRecentEvents=1.5'],
    ['afterTimestamp=yesterday'],
    ['afterTimestamp='],
  ])('refuses %s with a 400', async (query) => {
    const body = await json<{ code: string; detail: string }>('GET', `${user}/long?${query}`, undefined, 400);
    expect(body.code).toBe('BAD_REQUEST');
    expect(body.detail).toMatch(/numRecentEvents|afterTimestamp/);
  });

  it('is still a 404 for an unknown session', async () => {
    await json('GET', `${user}/ghost?numRecentEvents=1`, undefined, 404);
  });
});
