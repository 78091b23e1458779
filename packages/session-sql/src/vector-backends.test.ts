import { createEvent, type EmbedOptions, HashingEmbedder, userContent } from '@adk/core';
import { describe, expect, inject, it } from 'vitest';
import { kyselyFromUrl, SqlMemoryService } from './index.js';
import { loadSqliteVec, locateSqliteVec } from './sqlite-vec.js';

// Vectors per backend: SQLite ranks the Float32 blobs with sqlite-vec when it loads and scans them
// in JS when it does not; Postgres uses pgvector's HNSW only where the extension exists.

const postgres = inject('postgres');

const TEXTS = [
  'My pet tapir is called Bartholomew',
  'We sailed the sloop to Porto in May',
  'The quarterly report is due on Friday',
  'Tapirs love melons and swimming',
  'Remind me to water the ferns',
];

function counting(embedder = new HashingEmbedder({ dimensions: 128 })) {
  const calls: { texts: readonly string[]; taskType: string | undefined }[] = [];
  return {
    calls,
    embeddings: {
      dimensions: embedder.dimensions,
      embed: (texts: string[], options?: EmbedOptions) => {
        calls.push({ texts, taskType: options?.taskType });
        return embedder.embed(texts, options);
      },
    },
  };
}

async function seeded(url: string, options: { sqliteVec?: boolean; queryCacheSize?: number } = {}) {
  const db = await kyselyFromUrl(
    url,
    options.sqliteVec === undefined ? {} : { sqliteVec: options.sqliteVec },
  );
  const { calls, embeddings } = counting();
  const tablePrefix = `vb_${process.pid}_${Math.random().toString(36).slice(2, 8)}_`;
  const memory = new SqlMemoryService({
    db,
    tablePrefix,
    embeddings,
    ...(options.queryCacheSize === undefined ? {} : { queryCacheSize: options.queryCacheSize }),
    destroyOnClose: true,
  });
  await memory.addEventsToMemory({
    appName: 'a',
    userId: 'u',
    sessionId: 's',
    events: TEXTS.map((text, i) => ({
      ...createEvent({ invocationId: 'i', author: 'user', content: userContent(text) }),
      id: `e${i}`,
    })),
  });
  return { memory, calls };
}

async function vectorRanking(memory: SqlMemoryService, query: string): Promise<string[]> {
  const { memories } = await memory.searchMemory({ appName: 'a', userId: 'u', query, limit: 5 });
  return memories
    .filter((m) => m.ranks?.vector !== undefined)
    .sort((a, b) => (a.ranks?.vector ?? 0) - (b.ranks?.vector ?? 0))
    .map((m) => m.id ?? '');
}

describe('SQLite vectors', () => {
  it('ranks with sqlite-vec when it loads, and the JS scan gives the same ranking without it', async () => {
    const withVec = await seeded('sqlite://:memory:');
    const without = await seeded('sqlite://:memory:', { sqliteVec: false });
    try {
      expect(await withVec.memory.vectorMode()).toBe('sqlite-vec');
      expect(await without.memory.vectorMode()).toBe('blob');
      // "tapirs" shares no full-text token with the first turn; vectors (character n-grams) find it.
      for (const query of ['tapirs called Bartholomew', 'sloop Porto', 'ferns']) {
        const a = await vectorRanking(withVec.memory, query);
        const b = await vectorRanking(without.memory, query);
        expect(a.length).toBeGreaterThan(0);
        expect(a).toEqual(b);
      }
      expect((await vectorRanking(withVec.memory, 'tapirs called Bartholomew'))[0]).toBe('e0');
    } finally {
      await withVec.memory.close();
      await without.memory.close();
    }
  });

  it('falls back to the JS scan when the package is missing or its binary does not load', async () => {
    const missing = await locateSqliteVec(async () => {
      throw new Error("Cannot find package 'sqlite-vec'");
    });
    expect(missing).toEqual({ loaded: false, reason: "Cannot find package 'sqlite-vec'" });
    const toggles: boolean[] = [];
    const broken = loadSqliteVec(
      {
        loadExtension: () => {
          throw new Error('wrong ELF class');
        },
        enableLoadExtension: (allow) => toggles.push(allow),
      },
      { loaded: true, path: '/nowhere/vec0.so' },
    );
    expect(broken).toEqual({ loaded: false, reason: 'wrong ELF class' });
    // Extension loading is switched off again whatever happened.
    expect(toggles).toEqual([false]);
    // A service on a connection without the extension uses blobs: `sqliteVec: false` on the service too.
    const db = await kyselyFromUrl('sqlite://:memory:');
    const memory = new SqlMemoryService({
      db,
      embeddings: counting().embeddings,
      sqliteVec: false,
      destroyOnClose: true,
    });
    expect(await memory.vectorMode()).toBe('blob');
    await memory.close();
  });

  it('load_extension() is not callable from SQL once sqlite-vec is in', async () => {
    const { memory } = await seeded('sqlite://:memory:');
    const db = await kyselyFromUrl('sqlite://:memory:');
    const { sql } = await import('kysely');
    await expect(sql`select load_extension('/tmp/none.so')`.execute(db)).rejects.toThrow(/not authorized/i);
    await db.destroy();
    await memory.close();
  });
});

describe('recall details', () => {
  it('caches query embeddings in a bounded LRU; documents are embedded once per batch', async () => {
    const { memory, calls } = await seeded('sqlite://:memory:', { queryCacheSize: 2 });
    try {
      expect(calls).toHaveLength(1);
      expect(calls[0]?.taskType).toBe('RETRIEVAL_DOCUMENT');
      expect(calls[0]?.texts).toHaveLength(TEXTS.length);
      const search = (query: string) => memory.searchMemory({ appName: 'a', userId: 'u', query });
      await search('tapir');
      await search('tapir');
      expect(calls.filter((c) => c.taskType === 'RETRIEVAL_QUERY')).toHaveLength(1);
      await search('sloop');
      await search('ferns');
      // Bounded: 'tapir' was evicted by the third query.
      await search('tapir');
      expect(calls.filter((c) => c.taskType === 'RETRIEVAL_QUERY')).toHaveLength(4);
    } finally {
      await memory.close();
    }
  });

  it('stores each turn with the keywords extracted from its text', async () => {
    const { memory } = await seeded('sqlite://:memory:');
    try {
      const { memories } = await memory.searchMemory({ appName: 'a', userId: 'u', query: 'Bartholomew' });
      expect(memories[0]?.id).toBe('e0');
      expect(memories[0]?.keywords).toEqual(['pet', 'tapir', 'called', 'bartholomew']);
    } finally {
      await memory.close();
    }
  });
});

describe.skipIf(!postgres.url)('Postgres vectors', () => {
  it('detects whether pgvector is available and falls back to Float32 blobs without it', async () => {
    const { memory } = await seeded(postgres.url ?? '');
    try {
      const db = await kyselyFromUrl(postgres.url ?? '');
      const { sql } = await import('kysely');
      const { rows } = await sql<{
        name: string;
      }>`select name from pg_available_extensions where name = 'vector'`.execute(db);
      await db.destroy();
      expect(await memory.vectorMode()).toBe(rows.length > 0 ? 'pgvector' : 'blob');
      expect((await vectorRanking(memory, 'tapirs called Bartholomew'))[0]).toBe('e0');
    } finally {
      await memory.close();
    }
  });
});
