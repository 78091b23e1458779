import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEvent } from '@adk/core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createSqlStores } from './index.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'adk-stores-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const postgres = inject('postgres');
const targets = [
  { name: 'pglite', url: () => `pglite://${join(dir, 'pglite-data')}`, skip: undefined },
  { name: 'sqlite', url: () => `sqlite://${join(dir, 'stores.db')}`, skip: undefined },
  { name: 'postgres', url: () => postgres.url ?? '', skip: postgres.url ? undefined : postgres.skipReason },
];

for (const target of targets) {
  if (target.skip) console.warn(`[session-sql] ${target.name}: restart test skipped: ${target.skip}`);
  describe.skipIf(target.skip !== undefined)(`${target.name}: createSqlStores`, () => {
    const tablePrefix = `st_${process.pid}_`;
    const key = { appName: 'app', userId: 'u', sessionId: 's' };

    it('artifacts, memory and sessions survive closing every connection and reopening', async () => {
      const first = await createSqlStores(target.url(), { tablePrefix });
      const session = await first.sessions.createSession(key);
      await first.sessions.appendEvent(
        session,
        createEvent({
          invocationId: 'i',
          author: 'user',
          content: { role: 'user', parts: [{ text: 'my boat is called Aurora' }] },
        }),
      );
      const png = Buffer.from([137, 80, 78, 71, 0, 1, 2]).toString('base64');
      await first.artifacts.saveArtifact({
        ...key,
        filename: 'boat.png',
        artifact: { inlineData: { mimeType: 'image/png', data: png } },
        customMetadata: { camera: 'phone' },
      });
      await first.artifacts.saveArtifact({ ...key, filename: 'user:profile.md', artifact: { text: '# Me' } });
      await first.memory.addSessionToMemory(session);
      await first.close();
      await first.close(); // closing twice is fine

      const second = await createSqlStores(target.url(), { tablePrefix });
      try {
        expect(await second.artifacts.loadArtifact({ ...key, filename: 'boat.png' })).toEqual({
          inlineData: { mimeType: 'image/png', data: png },
        });
        expect(await second.artifacts.getArtifactVersion({ ...key, filename: 'boat.png' })).toMatchObject({
          version: 0,
          mimeType: 'image/png',
          customMetadata: { camera: 'phone' },
        });
        expect(await second.artifacts.listArtifactKeys({ ...key, sessionId: 'other' })).toEqual([
          'user:profile.md',
        ]);
        const { memories } = await second.memory.searchMemory({
          appName: 'app',
          userId: 'u',
          query: 'aurora',
        });
        expect(memories.map((m) => m.content.parts[0]?.text)).toEqual(['my boat is called Aurora']);
        const reloaded = await second.sessions.getSession(key);
        expect(reloaded?.events).toHaveLength(1);
        // The second open found the schema current: nothing left to migrate, numbering continues.
        expect(
          await second.artifacts.saveArtifact({ ...key, filename: 'boat.png', artifact: { text: 'x' } }),
        ).toBe(1);
      } finally {
        await second.close();
      }
    });
  });
}
