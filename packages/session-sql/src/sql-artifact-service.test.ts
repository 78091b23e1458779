import { randomBytes } from 'node:crypto';
import { isAdkError } from '@adk/core';
import { artifactServiceConformance } from '@adk/core/testing';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { suiteTitle, testDatabases } from './__fixtures__/databases.js';
import { type AnyKysely, SqlArtifactService, storageTablesFor } from './index.js';

const tablePrefix = `art_${process.pid}_`;
const scope = { appName: 'app', userId: 'u1', sessionId: 's1' };

for (const target of testDatabases()) {
  describe.skipIf(target.skipReason !== undefined)(suiteTitle(target, 'SqlArtifactService'), () => {
    let db: AnyKysely;
    let service: SqlArtifactService;
    beforeAll(async () => {
      db = await target.open();
      service = new SqlArtifactService({ db, tablePrefix, maxArtifactBytes: 2 * 1024 * 1024 });
      await service.migrate();
    });
    afterAll(async () => {
      await db?.destroy();
    });

    describe('conformance', () => {
      // Every case starts from empty tables.
      const fresh = async () => {
        const t = storageTablesFor(tablePrefix);
        await sql`delete from ${sql.table(t.artifacts)}`.execute(db);
        await sql`delete from ${sql.table(t.artifactNames)}`.execute(db);
        return service;
      };
      for (const c of artifactServiceConformance(fresh)) it(c.name, c.run);
    });

    it('50 concurrent saves of one name get 50 distinct versions, with no error', async () => {
      const filename = `race-${Date.now()}.txt`;
      const results = await Promise.allSettled(
        Array.from({ length: 50 }, (_, i) =>
          service.saveArtifact({ ...scope, filename, artifact: { text: `v${i}` } }),
        ),
      );
      expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
      const versions = results.map((r) => (r as PromiseFulfilledResult<number>).value);
      expect([...versions].sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i));
      expect(await service.listVersions({ ...scope, filename })).toEqual(
        Array.from({ length: 50 }, (_, i) => i),
      );
      // Each version holds what its own save wrote.
      for (const [i, version] of versions.entries()) {
        expect(await service.loadArtifact({ ...scope, filename, version })).toEqual({ text: `v${i}` });
      }
    });

    it('stores binary content as bytea/blob and returns it byte for byte (1 MiB)', async () => {
      const bytes = randomBytes(1024 * 1024);
      const artifact = {
        inlineData: { mimeType: 'application/octet-stream', data: bytes.toString('base64') },
      };
      const version = await service.saveArtifact({ ...scope, filename: 'blob.bin', artifact });
      const loaded = await service.loadArtifact({ ...scope, filename: 'blob.bin', version });
      expect(Buffer.from(loaded?.inlineData?.data ?? '', 'base64').equals(bytes)).toBe(true);
      const t = storageTablesFor(tablePrefix);
      const { rows } = await sql<{ n: number | string; kind: string }>`
        select ${target.name === 'sqlite' ? sql`length(data)` : sql`octet_length(data)`} as n,
          ${target.name === 'sqlite' ? sql`typeof(data)` : sql`pg_typeof(data)::text`} as kind
        from ${sql.table(t.artifacts)} where filename = 'blob.bin'`.execute(db);
      expect(Number(rows[0]?.n)).toBe(bytes.length);
      expect(rows[0]?.kind).toBe(target.name === 'sqlite' ? 'blob' : 'bytea');
      const info = await service.getArtifactVersion({ ...scope, filename: 'blob.bin' });
      expect(info).toMatchObject({ version, mimeType: 'application/octet-stream', sizeBytes: bytes.length });
    });

    it('accepts base64 without padding or in the URL-safe alphabet, and returns canonical base64', async () => {
      const bytes = Buffer.from([251, 255, 190, 1]);
      for (const data of [bytes.toString('base64url'), bytes.toString('base64').replace(/=+$/, '')]) {
        const version = await service.saveArtifact({
          ...scope,
          filename: 'b64',
          artifact: { inlineData: { mimeType: 'x/y', data } },
        });
        const loaded = await service.loadArtifact({ ...scope, filename: 'b64', version });
        expect(loaded?.inlineData?.data).toBe(bytes.toString('base64'));
      }
    });

    it.skipIf(target.name === 'sqlite')(
      'metadata with a NUL character (jsonb cannot hold it) is a VALIDATION error naming the artifact',
      async () => {
        const error = await service
          .saveArtifact({
            ...scope,
            filename: 'nul-meta.txt',
            artifact: { text: 'fine' },
            customMetadata: { note: 'a\u0000b' },
          })
          .catch((e) => e);
        expect(isAdkError(error, 'VALIDATION')).toBe(true);
        expect(error.message).toContain('customMetadata of artifact "nul-meta.txt"');
        expect(await service.listVersions({ ...scope, filename: 'nul-meta.txt' })).toEqual([]);
      },
    );

    it('rejects content over the size limit with ARTIFACT_TOO_LARGE and stores nothing', async () => {
      const small = new SqlArtifactService({ db, tablePrefix, maxArtifactBytes: 1000, migrate: false });
      const data = Buffer.alloc(1001).toString('base64');
      const error = await small
        .saveArtifact({ ...scope, filename: 'huge.bin', artifact: { inlineData: { mimeType: 'x/y', data } } })
        .catch((e) => e);
      expect(isAdkError(error, 'ARTIFACT_TOO_LARGE')).toBe(true);
      expect(error.details).toEqual({ sizeBytes: 1001, maxBytes: 1000 });
      expect(await small.listVersions({ ...scope, filename: 'huge.bin' })).toEqual([]);
      const textError = await small
        .saveArtifact({ ...scope, filename: 'huge.txt', artifact: { text: 'ü'.repeat(501) } })
        .catch((e) => e);
      expect(isAdkError(textError, 'ARTIFACT_TOO_LARGE')).toBe(true);
      expect(
        await small.saveArtifact({
          ...scope,
          filename: 'fits.bin',
          artifact: { inlineData: { mimeType: 'x/y', data: Buffer.alloc(1000).toString('base64') } },
        }),
      ).toBe(0);
    });

    it('keeps names of different apps, users and sessions apart', async () => {
      await service.saveArtifact({
        ...scope,
        appName: 'other-app',
        filename: 'user:p',
        artifact: { text: 'other app' },
      });
      await service.saveArtifact({
        ...scope,
        userId: 'u2',
        filename: 'user:p',
        artifact: { text: 'other user' },
      });
      await service.saveArtifact({ ...scope, filename: 'user:p', artifact: { text: 'mine' } });
      expect(await service.loadArtifact({ ...scope, sessionId: 'sX', filename: 'user:p' })).toEqual({
        text: 'mine',
      });
      expect(await service.listVersions({ ...scope, filename: 'user:p' })).toEqual([0]);
      await service.deleteArtifact({ ...scope, filename: 'user:p' });
      expect(await service.loadArtifact({ ...scope, userId: 'u2', filename: 'user:p' })).toEqual({
        text: 'other user',
      });
    });
  });
}
