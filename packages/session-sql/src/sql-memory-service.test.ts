import { createEvent, type Embedder, isAdkError, type Session } from '@adk/core';
import { memoryServiceConformance } from '@adk/core/testing';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { suiteTitle, testDatabases } from './__fixtures__/databases.js';
import { type AnyKysely, type MemoryEmbeddings, SqlMemoryService, storageTablesFor } from './index.js';

const tablePrefix = `mem_${process.pid}_`;

function session(id: string, texts: string[], userId = 'u1', appName = 'app'): Session {
  return {
    id,
    appName,
    userId,
    state: {},
    lastUpdateTime: 0,
    events: texts.map((text, i) =>
      createEvent({
        invocationId: 'i',
        author: i % 2 ? 'agent' : 'user',
        timestamp: 1_000 + i,
        content: { role: i % 2 ? 'model' : 'user', parts: [{ text }] },
      }),
    ),
  };
}

/** A toy embedding: a bag of letters, so similar words land near each other. */
const letterEmbeddings = (required = false): MemoryEmbeddings => ({
  dimensions: 26,
  required,
  async embed(texts) {
    return texts.map((text) => {
      const v: number[] = new Array(26).fill(0);
      for (const ch of text.toLowerCase()) {
        const i = ch.charCodeAt(0) - 97;
        if (i >= 0 && i < 26) v[i] = (v[i] ?? 0) + 1;
      }
      if (!v.some((x) => x !== 0)) v[0] = 1;
      return v;
    });
  },
});

for (const target of testDatabases()) {
  describe.skipIf(target.skipReason !== undefined)(suiteTitle(target, 'SqlMemoryService'), () => {
    let db: AnyKysely;
    let memory: SqlMemoryService;
    const clear = async () => {
      await sql`delete from ${sql.table(storageTablesFor(tablePrefix).memoryEntries)}`.execute(db);
    };
    beforeAll(async () => {
      db = await target.open();
      memory = new SqlMemoryService({ db, tablePrefix });
      await memory.migrate();
    });
    afterAll(async () => {
      await db?.destroy();
    });

    describe('conformance', () => {
      const fresh = async () => {
        await clear();
        return memory;
      };
      for (const c of memoryServiceConformance(fresh)) it(c.name, c.run);
    });

    it('finds the same memories with the memories held in process as through SQL alone', async () => {
      // The same rows, searched by two services: one ranks words and vectors and finds neighbours
      // in process (the default with embeddings), one in SQL (vectorCacheBytes 0). Rankings may
      // order ties differently; which rows each ranker finds, the filters and the windows agree.
      await clear();
      const embeddings = letterEmbeddings();
      const held = new SqlMemoryService({ db, tablePrefix, embeddings });
      const plain = new SqlMemoryService({ db, tablePrefix, embeddings, vectorCacheBytes: 0 });
      const texts = (n: number) =>
        Array.from(
          { length: n },
          (_, i) =>
            `turn ${i} of the trip: ${['hiking in the alps', 'a quiet museum day', 'lisbon trams and tiles', '東京の地下鉄に乗った'][i % 4]}`,
        );
      await held.addSessionToMemory(session('s1', texts(12)));
      await held.addSessionToMemory(session('s2', texts(9)));
      // A fact, then one that supersedes it.
      const [old] = await held.addMemory({
        appName: 'app',
        userId: 'u1',
        memories: [{ kind: 'fact', content: { role: 'user', parts: [{ text: 'the user lives in Porto' }] } }],
      });
      await plain.addMemory({
        appName: 'app',
        userId: 'u1',
        memories: [
          {
            kind: 'fact',
            content: { role: 'user', parts: [{ text: 'the user lives in Lisbon now' }] },
            ...(old ? { supersedes: old } : {}),
          },
        ],
      });
      const found = async (
        memory: SqlMemoryService,
        params: Partial<Parameters<SqlMemoryService['searchMemory']>[0]>,
      ) => {
        const { memories } = await memory.searchMemory({
          appName: 'app',
          userId: 'u1',
          query: '',
          limit: 100,
          ...params,
        });
        const byWords = memories
          .filter((m) => m.ranks?.fullText !== undefined)
          .map((m) => m.id)
          .sort();
        const windows = Object.fromEntries(
          memories.map((m) => [m.id, (m.neighbours ?? []).map((n) => n.content.parts[0]?.text)]),
        );
        return { ids: memories.map((m) => m.id).sort(), byWords, windows };
      };
      for (const params of [
        { query: 'lisbon trams' },
        { query: 'hiking alps', window: { before: 2, after: 1 } },
        { query: '地下鉄', window: { before: 1, after: 1 } },
        { query: 'lives in Lisbon Porto' },
        { query: 'museum', scope: 'session' as const, sessionId: 's2' },
        { query: 'museum', kinds: ['fact' as const] },
        { query: 'trip', timeRange: { from: 1_003, to: 1_006 } },
      ]) {
        const a = await found(held, params);
        const b = await found(plain, params);
        expect(a, JSON.stringify(params)).toEqual(b);
        expect(a.ids.length, JSON.stringify(params)).toBeGreaterThan(0);
      }
      // The superseded fact is found by neither.
      const facts = await held.searchMemory({
        appName: 'app',
        userId: 'u1',
        query: 'lives',
        kinds: ['fact'],
      });
      expect(facts.memories.map((m) => m.content.parts[0]?.text)).toEqual(['the user lives in Lisbon now']);
      // The phrase matches only where its characters are adjacent.
      const phrase = await held.searchMemory({ appName: 'app', userId: 'u1', query: '鉄地', limit: 100 });
      expect(phrase.memories.filter((m) => m.ranks?.fullText !== undefined)).toEqual([]);
      await clear();
    });

    it('is scoped by app and user, ranks entries matching more terms higher, and ignores events without text', async () => {
      await clear();
      const s = session('s1', ['pasta recipe with basil', 'basil grows in summer', 'a recipe for bread']);
      s.events.push(
        createEvent({ invocationId: 'i', author: 'agent', actions: { stateDelta: { basil: 1 } } }),
      );
      await memory.addSessionToMemory(s);
      await memory.addSessionToMemory(session('s2', ['basil recipe of someone else'], 'u2'));
      await memory.addSessionToMemory(session('s3', ['basil recipe in another app'], 'u1', 'other-app'));
      const { memories } = await memory.searchMemory({
        appName: 'app',
        userId: 'u1',
        query: 'Basil RECIPE!',
      });
      expect(memories.map((m) => m.content.parts[0]?.text)).toEqual([
        'pasta recipe with basil',
        // One matching term each; the newer comes first.
        'a recipe for bread',
        'basil grows in summer',
      ]);
      expect(memories[0]?.score).toBeGreaterThan(memories[1]?.score ?? Number.POSITIVE_INFINITY);
      expect(memories[0]).toMatchObject({ author: 'user', sessionId: 's1', timestamp: 1000 });
      expect(await memory.searchMemory({ appName: 'app', userId: 'u1', query: '!!! ...' })).toEqual({
        memories: [],
      });
      expect(
        (await memory.searchMemory({ appName: 'app', userId: 'u1', query: 'basil', limit: 1.5 })).memories,
      ).toHaveLength(1);
      const bad = await memory
        .searchMemory({ appName: 'app', userId: 'u1', query: 'basil', limit: Number.NaN })
        .catch((e) => e);
      expect(isAdkError(bad, 'VALIDATION')).toBe(true);
      expect(await memory.searchMemory({ appName: 'app', userId: 'u1', query: 'basil', limit: 0 })).toEqual({
        memories: [],
      });
    });

    it('adding a session again keeps one entry per event and drops entries of events that are gone', async () => {
      await clear();
      const s = session('s1', ['first note about kites', 'second note about kites']);
      await memory.addSessionToMemory(s);
      await memory.addSessionToMemory(s);
      expect(
        (await memory.searchMemory({ appName: 'app', userId: 'u1', query: 'kites' })).memories,
      ).toHaveLength(2);
      s.events.shift();
      s.events.push(...session('s1', ['', 'third note about kites']).events.slice(1));
      await memory.addSessionToMemory(s);
      const texts = (
        await memory.searchMemory({ appName: 'app', userId: 'u1', query: 'kites' })
      ).memories.map((m) => m.content.parts[0]?.text);
      expect(texts.sort()).toEqual(['second note about kites', 'third note about kites']);
    });

    it('matches across scripts and forms: Greek and Cyrillic case, German umlauts, compatibility forms, Japanese phrases', async () => {
      await clear();
      await memory.addSessionToMemory(
        session('s1', ['ΟΔΥΣΣΕΑΣ ταξίδεψε', 'Москва зимой', 'Grüße aus Köln', 'ﬁle ①', '京都で抹茶を飲んだ']),
      );
      const find = async (query: string) =>
        (await memory.searchMemory({ appName: 'app', userId: 'u1', query })).memories.map(
          (m) => m.content.parts[0]?.text,
        );
      expect(await find('οδυσσεας')).toEqual(['ΟΔΥΣΣΕΑΣ ταξίδεψε']);
      expect(await find('Οδυσσεασ ΤΑΞΙΔΕΨΕ')).toEqual(['ΟΔΥΣΣΕΑΣ ταξίδεψε']);
      expect(await find('МОСКВА')).toEqual(['Москва зимой']);
      expect(await find('koln')).toEqual(['Grüße aus Köln']);
      expect(await find('FILE')).toEqual(['ﬁle ①']);
      expect(await find('抹茶')).toEqual(['京都で抹茶を飲んだ']);
      // A phrase of CJK characters must appear in order, not merely share characters.
      expect(await find('茶抹')).toEqual([]);
    });

    it('searches 2,000 entries through the index, quickly enough to be interactive', async () => {
      await clear();
      const texts = Array.from({ length: 2000 }, (_, i) => `entry ${i} about topic${i % 50} and word${i}`);
      await memory.addSessionToMemory(session('big', texts));
      const { memories } = await memory.searchMemory({
        appName: 'app',
        userId: 'u1',
        query: 'word1234',
        limit: 5,
      });
      expect(memories.map((m) => m.content.parts[0]?.text)).toEqual([
        'entry 1234 about topic34 and word1234',
      ]);
      const topic = await memory.searchMemory({ appName: 'app', userId: 'u1', query: 'topic7', limit: 100 });
      expect(topic.memories).toHaveLength(40);
    });

    it('vector search through an embedding function (pgvector, else Float32 blobs scanned exactly)', async () => {
      const probe = new SqlMemoryService({
        db,
        tablePrefix,
        embeddings: letterEmbeddings(true),
        migrate: false,
      });
      const mode = await probe.vectorMode();
      // PGlite 0.5, SQLite and a Postgres without the extension keep vectors as blobs (SQLite
      // ranks them with sqlite-vec when it is installed).
      expect(mode).toMatch(
        target.name === 'postgres'
          ? /^(pgvector|blob)$/
          : target.name === 'sqlite'
            ? /^(sqlite-vec|blob)$/
            : /^blob$/,
      );
      await clear();
      await probe.addSessionToMemory(session('s1', ['the lighthouse keeper', 'zzz qqq', 'a red apple']));
      // No word matches, but the letters of "lighthouses" are closest to the first entry.
      const { memories } = await probe.searchMemory({
        appName: 'app',
        userId: 'u1',
        query: 'lighthouses',
        limit: 1,
      });
      expect(memories[0]?.content.parts[0]?.text).toBe('the lighthouse keeper');
    });
  });
}

// PGlite 0.5 ships no `vector` extension; 0.4 was its last release with pgvector built in. It runs
// the vector path for real here (a dev dependency alias; users bring their own PGlite or Postgres).
describe('pgvector on PGlite 0.4 (with its vector extension)', () => {
  let db: AnyKysely;
  beforeAll(async () => {
    const pgliteModule = await import('pglite-with-vector');
    const { vector } = await import('pglite-with-vector/vector');
    const { Kysely } = await import('kysely');
    const { PgliteDialect, pgliteProtocol } = await import('./index.js');
    const pglite = new pgliteModule.PGlite({ extensions: { vector } });
    // With PGlite 0.4's protocol helpers: prepared statements on the older release too.
    const protocol = pgliteProtocol(pgliteModule);
    expect(protocol).toBeDefined();
    db = new Kysely<unknown>({ dialect: new PgliteDialect({ pglite, ...(protocol ? { protocol } : {}) }) });
  });
  afterAll(async () => {
    await db?.destroy();
  });

  it('embeds entries as they are added and fuses vector similarity with full-text ranking', async () => {
    let embedded = 0;
    const embeddings = letterEmbeddings(true);
    const tasks: (string | undefined)[] = [];
    // Core's Embedder contract, as the provider packages' embedders implement it.
    const counting: Embedder & { required: boolean } = {
      model: 'letters',
      dimensions: embeddings.dimensions,
      required: true,
      embed: async (texts, options) => {
        embedded += texts.length;
        tasks.push(options?.taskType);
        return embeddings.embed([...texts]);
      },
    };
    const memory = new SqlMemoryService({ db, tablePrefix: 'vec_', embeddings: counting });
    expect(await memory.vectorSearchEnabled()).toBe(true);
    const s = session('s1', ['the lighthouse keeper', 'zzz qqq', 'a red apple']);
    await memory.addSessionToMemory(s);
    await memory.addSessionToMemory(s); // already embedded: not embedded again
    expect(embedded).toBe(3);
    // No word matches "lighthouses"; its letters are closest to the first entry.
    const nearest = await memory.searchMemory({
      appName: 'app',
      userId: 'u1',
      query: 'lighthouses',
      limit: 1,
    });
    expect(nearest.memories.map((m) => m.content.parts[0]?.text)).toEqual(['the lighthouse keeper']);
    expect(tasks).toEqual(['RETRIEVAL_DOCUMENT', 'RETRIEVAL_QUERY']);
    // An entry found by both rankings comes before one found by vectors alone.
    const both = await memory.searchMemory({ appName: 'app', userId: 'u1', query: 'apple', limit: 3 });
    expect(both.memories[0]?.content.parts[0]?.text).toBe('a red apple');
    const scores = both.memories.map((m) => m.score ?? 0);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    // Other users see nothing of it.
    expect((await memory.searchMemory({ appName: 'app', userId: 'u2', query: 'apple' })).memories).toEqual(
      [],
    );
    // The stored column's dimension is checked against the embedding function's.
    const wrong = new SqlMemoryService({
      db,
      tablePrefix: 'vec_',
      embeddings: { ...embeddings, dimensions: 3 },
    });
    expect(isAdkError(await wrong.vectorSearchEnabled().catch((e) => e), 'CONFIG')).toBe(true);
  });
});
