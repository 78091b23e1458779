import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HashingEmbedder, userContent } from '@adk/core';
import { afterAll, describe, expect, it } from 'vitest';
import { kyselyFromUrl, SqlMemoryService } from './index.js';

// The vectors held in memory for search must never hide what another process stored or keep what
// it deleted: two services on one SQLite file stand for two processes.

const folder = mkdtempSync(join(tmpdir(), 'adk-vector-cache-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const embeddings = new HashingEmbedder({ dimensions: 64 });
const key = { appName: 'app', userId: 'u' };
const text = (t: string) => userContent(t);

async function pair(name: string) {
  const url = `sqlite://${join(folder, `${name}.db`)}`;
  const first = new SqlMemoryService({ db: await kyselyFromUrl(url), embeddings, destroyOnClose: true });
  await first.addMemory({
    ...key,
    memories: [{ id: 'm1', content: text('My pet tapir is called Bartholomew') }],
  });
  const second = new SqlMemoryService({
    db: await kyselyFromUrl(url),
    embeddings,
    destroyOnClose: true,
    vectorRecheckMs: 0,
  });
  return { first, second };
}

const ids = async (memory: SqlMemoryService, query: string) =>
  (await memory.searchMemory({ ...key, query, limit: 5 })).memories.map((m) => m.id);

describe('vectors held in memory for search', () => {
  it("sees another process's new memories on the next search", async () => {
    const { first, second } = await pair('new');
    expect(await ids(second, 'tapir')).toEqual(['m1']);
    await first.addMemory({ ...key, memories: [{ id: 'm2', content: text('The heron nests by the weir') }] });
    // A query that only the vectors can match (no word in common): the cache must hold m2 now.
    const found = (await second.searchMemory({ ...key, query: 'herons nesting', limit: 5 })).memories;
    expect(found.map((m) => m.id)).toContain('m2');
    expect(found.find((m) => m.id === 'm2')?.ranks?.vector).toBeDefined();
    await first.close();
    await second.close();
  });

  it("drops another process's deletes within the recheck, and its own at once", async () => {
    const { first, second } = await pair('deleted');
    await first.addMemory({ ...key, memories: [{ id: 'm2', content: text('Tapirs love melons') }] });
    expect((await ids(second, 'tapirs')).sort()).toEqual(['m1', 'm2']);
    await first.deleteMemory({ ...key, id: 'm2' });
    expect(await ids(second, 'tapirs')).toEqual(['m1']);
    await second.deleteMemory({ ...key, id: 'm1' });
    expect(await ids(second, 'tapirs')).toEqual([]);
    await first.close();
    await second.close();
  });

  it('filters held vectors by session, kind and time as the store does', async () => {
    const { first, second } = await pair('filters');
    await first.addMemory({
      ...key,
      memories: [
        { id: 'f1', kind: 'fact', content: text('The tapir is called Bartholomew'), timestamp: 2_000 },
        { id: 's1', sessionId: 's', content: text('A tapir in session s'), timestamp: 3_000 },
      ],
    });
    const only = async (params: Record<string, unknown>) =>
      (await second.searchMemory({ ...key, query: 'tapir', limit: 5, ...params })).memories.map((m) => m.id);
    expect(await only({ kinds: ['fact'] })).toEqual(['f1']);
    expect(await only({ scope: 'session', sessionId: 's' })).toEqual(['s1']);
    expect((await only({ timeRange: { from: 1_500, to: 2_500 } })).sort()).toEqual(['f1']);
    await first.close();
    await second.close();
  });
});
