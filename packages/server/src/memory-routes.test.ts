import {
  createEvent,
  HashingEmbedder,
  InMemoryMemoryJobQueue,
  InMemoryMemoryService,
  InMemorySessionService,
  LlmAgent,
  type MemoryEntry,
  OBSERVATION_METADATA_KEY,
  OBSERVER_AUTHOR,
  userContent,
} from '@adk/core';
import { ScriptedModel } from '@adk/core/testing';
import { kyselyFromUrl, SqlMemoryService } from '@adk/session-sql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { readSse, startServer, type TestServer } from './__fixtures__/apps.js';

// The dev UI's Memory tab routes (/dev/apps/{app}/users/{user}/…/memory), through HTTP.

const profileSchema = z.object({ name: z.string().optional(), boat: z.string().optional() });

function keeper() {
  return new LlmAgent({
    name: 'keeper',
    model: new ScriptedModel({ respond: () => 'noted' }),
    memory: {
      recall: true,
      profile: { schema: profileSchema },
      observe: { observeAtTokens: 5000, reflectAtTokens: 9000 },
    },
  });
}

async function say(url: string, sessionId: string, text: string) {
  const response = await fetch(`${url}/run_sse`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ appName: 'keeper', userId: 'u1', sessionId, newMessage: userContent(text) }),
  });
  expect(response.status).toBe(200);
  return readSse(response);
}

async function createSession(url: string): Promise<string> {
  const response = await fetch(`${url}/apps/keeper/users/u1/sessions`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: '{}',
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { id: string }).id;
}

describe('memory routes (in-memory stores)', () => {
  let server: TestServer;
  const memoryService = new InMemoryMemoryService();
  const sessionService = new InMemorySessionService();
  let oldFact = '';
  let newFact = '';
  beforeAll(async () => {
    server = await startServer({
      apps: { keeper: keeper() },
      sessionService,
      memoryService,
    });
    [oldFact = ''] = await memoryService.addMemory({
      appName: 'keeper',
      userId: 'u1',
      memories: [{ kind: 'fact', content: userContent("The user's boat is a sloop."), eventIds: ['e-old'] }],
    });
    [newFact = ''] = await memoryService.addMemory({
      appName: 'keeper',
      userId: 'u1',
      memories: [
        {
          kind: 'fact',
          content: userContent("The user's boat is a ketch."),
          eventIds: ['e-new'],
          supersedes: oldFact,
        },
      ],
    });
  });
  afterAll(async () => server?.close());

  it('shows the recall of a turn, the facts with sources and supersedes, thresholds and the profile', async () => {
    const sessionId = await createSession(server.url);
    await say(server.url, sessionId, 'What do you know about my boat?');
    const response = await fetch(`${server.url}/dev/apps/keeper/users/u1/sessions/${sessionId}/memory`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as {
      recalls: { eventId: string; query: string; memories: { id: string; kind: string }[] }[];
      facts: MemoryEntry[];
      observations: { thresholds: Record<string, number>; unobservedTokens: number; log: unknown[] };
      profile: { stateKey: string; value: unknown; history: unknown[]; format: string };
      jobs: unknown;
    };
    expect(body.recalls).toHaveLength(1);
    expect(body.recalls[0]?.query).toContain('boat');
    expect(body.recalls[0]?.memories.map((m) => m.id)).toContain(newFact);
    const facts = new Map(body.facts.map((f) => [f.id, f]));
    expect(facts.get(newFact)?.supersedes).toBe(oldFact);
    expect(facts.get(newFact)?.eventIds).toEqual(['e-new']);
    expect(facts.has(oldFact)).toBe(true);
    expect(body.observations.thresholds).toEqual({
      observeAtTokens: 5000,
      keepRecentTokens: 1000,
      reflectAtTokens: 9000,
    });
    expect(body.observations.unobservedTokens).toBeGreaterThan(0);
    expect(body.observations.log).toEqual([]);
    expect(body.profile).toMatchObject({ stateKey: 'user:profile', value: {}, history: [], format: 'json' });
    expect(body.jobs).toBeNull();
  });

  it('lists the observation log with token estimates and the tokens not yet observed', async () => {
    const sessionId = await createSession(server.url);
    await say(server.url, sessionId, 'I moved to Lisbon in March and I sail on weekends.');
    const key = { appName: 'keeper', userId: 'u1', sessionId };
    const session = await sessionService.getSession(key);
    if (!session) throw new Error('no session');
    const covered = session.events.map((e) => e.id);
    const log = '- 🔴 2026-03-01 user moved to Lisbon\n- 🟡 2026-03-01 user sails on weekends';
    const observation = createEvent({
      invocationId: 'obs-1',
      author: OBSERVER_AUTHOR,
      actions: {
        compaction: {
          startTimestamp: session.events[0]?.timestamp ?? 0,
          endTimestamp: session.events.at(-1)?.timestamp ?? 0,
          compactedContent: { role: 'user', parts: [{ text: 'Observations:' }, { text: log }] },
        },
      },
      customMetadata: {
        [OBSERVATION_METADATA_KEY]: {
          id: 'obs-1',
          kind: 'observation',
          eventIds: covered,
          blocks: ['obs-1'],
        },
      },
    });
    await sessionService.appendEvent(session, observation);
    const read = async () =>
      (
        (await (
          await fetch(`${server.url}/dev/apps/keeper/users/u1/sessions/${sessionId}/memory`)
        ).json()) as {
          observations: {
            unobservedTokens: number;
            logTokens: number;
            log: { eventId: string; kind: string; eventIds: string[]; text: string; tokens: number }[];
          };
        }
      ).observations;
    const first = await read();
    expect(first.log).toHaveLength(1);
    expect(first.log[0]).toMatchObject({
      eventId: observation.id,
      kind: 'observation',
      eventIds: covered,
      text: log,
    });
    expect(first.log[0]?.tokens).toBe(Math.ceil(log.length / 4));
    expect(first.logTokens).toBe(Math.ceil(log.length / 4));
    expect(first.unobservedTokens).toBe(0);
    await say(server.url, sessionId, 'Also, my sister lives in Porto.');
    expect((await read()).unobservedTokens).toBeGreaterThan(0);
  });

  it('edits the profile with an ordinary state event that shows in its history', async () => {
    const sessionId = await createSession(server.url);
    const base = `${server.url}/dev/apps/keeper/users/u1/sessions/${sessionId}/memory`;
    const post = (body: unknown) =>
      fetch(`${base}/profile`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
    const first = await post({ value: { name: 'Ada' } });
    expect(first.status).toBe(200);
    const second = await post({ patch: { boat: 'ketch' } });
    const { eventId, value } = (await second.json()) as { eventId: string; value: unknown };
    expect(value).toEqual({ name: 'Ada', boat: 'ketch' });
    const memory = (await (await fetch(base)).json()) as {
      profile: { value: unknown; history: { eventId: string; value: unknown; author: string }[] };
    };
    expect(memory.profile.value).toEqual({ name: 'Ada', boat: 'ketch' });
    expect(memory.profile.history.map((h) => h.value)).toEqual([
      { name: 'Ada' },
      { name: 'Ada', boat: 'ketch' },
    ]);
    expect(memory.profile.history.at(-1)?.eventId).toBe(eventId);
    // The edit is a state-change event of the session.
    const session = (await (
      await fetch(`${server.url}/apps/keeper/users/u1/sessions/${sessionId}`)
    ).json()) as {
      events: { id: string; actions: { stateDelta: Record<string, unknown> } }[];
      state: Record<string, unknown>;
    };
    expect(session.events.find((e) => e.id === eventId)?.actions.stateDelta['user:profile']).toEqual(value);
    expect(session.state['user:profile']).toEqual(value);

    // Refused: neither/both of value and patch, a schema violation, a string for a JSON profile, bad JSON.
    for (const bad of [{}, { value: {}, patch: {} }, { value: { name: 7 } }, { value: 'text' }]) {
      const r = await post(bad);
      expect(r.status).toBe(422);
      expect(((await r.json()) as { code: string }).code).toBe('VALIDATION');
    }
    const malformed = await fetch(`${base}/profile`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{"value":',
    });
    expect(malformed.status).toBe(400);
    const missing = await fetch(`${server.url}/dev/apps/keeper/users/u1/sessions/nope/memory`);
    expect(missing.status).toBe(404);
  });

  it('search playground: the keyword ranking and the fused answer; malformed queries are 422', async () => {
    const search = (q: string) => fetch(`${server.url}/dev/apps/keeper/users/u1/memory/search?${q}`);
    const response = await search('q=boat%20ketch&limit=5');
    expect(response.status).toBe(200);
    const body = (await response.json()) as { fullText: MemoryEntry[]; vector: null; fused: MemoryEntry[] };
    expect(body.vector).toBeNull();
    expect(body.fullText[0]?.id).toBe(newFact);
    expect(body.fullText[0]?.ranks?.fullText).toBe(1);
    expect(body.fused.map((m) => m.id)).toContain(newFact);
    for (const q of ['', 'q=', 'q=%20', 'q=boat&limit=abc', 'q=boat&limit=0', 'q=boat&kinds=dream']) {
      const r = await search(q);
      expect(r.status, q).toBe(422);
      expect(((await r.json()) as { code: string }).code).toBe('VALIDATION');
    }
  });
});

describe('memory routes (SQL memory on PGlite with vectors)', () => {
  let server: TestServer;
  let memoryService: SqlMemoryService;
  beforeAll(async () => {
    const embedder = new HashingEmbedder({ dimensions: 64 });
    memoryService = new SqlMemoryService({
      db: await kyselyFromUrl('pglite://memory'),
      destroyOnClose: true,
      embeddings: { dimensions: embedder.dimensions, embed: (texts, o) => embedder.embed(texts, o) },
    });
    await memoryService.addMemory({
      appName: 'keeper',
      userId: 'u1',
      memories: [
        { kind: 'fact', content: userContent("The user's boat is a ketch named Tern."), eventIds: ['e1'] },
        { kind: 'turn', content: userContent('We sailed the ketch to the islands in May.'), sessionId: 's0' },
        { kind: 'turn', content: userContent('Tapirs love melons.'), sessionId: 's0' },
      ],
    });
    server = await startServer({
      apps: { keeper: keeper() },
      sessionService: new InMemorySessionService(),
      memoryService,
    });
  }, 120_000);
  afterAll(async () => {
    await server?.close();
    await memoryService?.close();
  });

  it('answers the full-text, vector and fused rankings separately', async () => {
    const response = await fetch(`${server.url}/dev/apps/keeper/users/u1/memory/search?q=ketch&limit=3`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as {
      fullText: MemoryEntry[];
      vector: MemoryEntry[];
      fused: MemoryEntry[];
    };
    expect(body.fullText.length).toBeGreaterThanOrEqual(2);
    expect(body.fullText.every((m, i) => m.ranks?.fullText === i + 1)).toBe(true);
    expect(body.vector.length).toBeGreaterThanOrEqual(1);
    expect(body.vector.every((m, i) => m.ranks?.vector === i + 1)).toBe(true);
    expect(body.fused.length).toBeGreaterThanOrEqual(2);
    expect(body.fused[0]?.kind).toBe('fact');
    expect(body.fused.some((m) => m.ranks?.fullText !== undefined && m.ranks?.vector !== undefined)).toBe(
      true,
    );
  });

  it('lists the facts with their sources', async () => {
    const sessionId = await createSession(server.url);
    const body = (await (
      await fetch(`${server.url}/dev/apps/keeper/users/u1/sessions/${sessionId}/memory`)
    ).json()) as {
      facts: MemoryEntry[];
    };
    expect(body.facts).toHaveLength(1);
    expect(body.facts[0]).toMatchObject({ kind: 'fact', eventIds: ['e1'] });
  });
});

describe('memory routes: the job queue', () => {
  let server: TestServer;
  const jobs = new InMemoryMemoryJobQueue();
  beforeAll(async () => {
    server = await startServer({
      apps: { keeper: keeper() },
      sessionService: new InMemorySessionService(),
      memoryService: new InMemoryMemoryService({ jobs }),
      memoryWorker: false,
    });
  });
  afterAll(async () => server?.close());

  it('counts jobs per status and kind and lists the failures', async () => {
    await jobs.enqueue([
      { kind: 'facts', appName: 'keeper', userId: 'u1', eventIds: ['e1'] },
      { kind: 'index', appName: 'keeper', userId: 'u1', eventIds: ['e2'] },
      { kind: 'index', appName: 'keeper', userId: 'someone-else', eventIds: ['e3'] },
    ]);
    const [claimed] = await jobs.claim({ workerId: 'w', limit: 1, leaseMs: 60_000, kinds: ['facts'] });
    await jobs.fail(claimed?.id as string, 'w', 'extractor offline', undefined);
    const sessionId = await createSession(server.url);
    const body = (await (
      await fetch(`${server.url}/dev/apps/keeper/users/u1/sessions/${sessionId}/memory`)
    ).json()) as {
      jobs: {
        stats: { pending: number; failed: number };
        byKind: Record<string, Record<string, number>>;
        failures: { kind: string; lastError: string }[];
      };
    };
    expect(body.jobs.stats).toMatchObject({ pending: 1, failed: 1 });
    expect(body.jobs.byKind).toEqual({
      facts: { pending: 0, running: 0, done: 0, failed: 1 },
      index: { pending: 1, running: 0, done: 0, failed: 0 },
    });
    expect(body.jobs.failures).toMatchObject([{ kind: 'facts', lastError: 'extractor offline' }]);
  });
});
