import assert from 'node:assert/strict';
import type { ArtifactService } from '../artifacts/artifact-service.js';
import { isAdkError } from '../errors/errors.js';
import type { ConformanceSuite } from './conformance.js';

/** The behaviour every ArtifactService must have. */
export function artifactServiceConformance(
  factory: () => ArtifactService | Promise<ArtifactService>,
): ConformanceSuite {
  const scope = (sessionId = 's1') => ({ appName: 'conf-artifacts', userId: 'u1', sessionId });
  const text = (t: string) => ({ text: t });
  return [
    {
      name: 'saves versions 0, 1, 2 and loads the latest or a given version',
      run: async () => {
        const s = await factory();
        assert.equal(await s.saveArtifact({ ...scope(), filename: 'a.txt', artifact: text('v0') }), 0);
        assert.equal(await s.saveArtifact({ ...scope(), filename: 'a.txt', artifact: text('v1') }), 1);
        const bytes = Buffer.from([0, 255, 7]).toString('base64');
        assert.equal(
          await s.saveArtifact({
            ...scope(),
            filename: 'a.txt',
            artifact: { inlineData: { mimeType: 'application/octet-stream', data: bytes } },
          }),
          2,
        );
        assert.deepEqual(await s.loadArtifact({ ...scope(), filename: 'a.txt' }), {
          inlineData: { mimeType: 'application/octet-stream', data: bytes },
        });
        assert.deepEqual(await s.loadArtifact({ ...scope(), filename: 'a.txt', version: 0 }), text('v0'));
        assert.equal(await s.loadArtifact({ ...scope(), filename: 'a.txt', version: 9 }), undefined);
        assert.equal(await s.loadArtifact({ ...scope(), filename: 'missing' }), undefined);
        assert.deepEqual(await s.listVersions({ ...scope(), filename: 'a.txt' }), [0, 1, 2]);
      },
    },
    {
      name: 'session names are private to the session; user: names are shared across the user’s sessions',
      run: async () => {
        const s = await factory();
        await s.saveArtifact({ ...scope('s1'), filename: 'notes', artifact: text('mine') });
        await s.saveArtifact({ ...scope('s1'), filename: 'user:profile', artifact: text('shared') });
        assert.deepEqual(await s.listArtifactKeys(scope('s1')), ['notes', 'user:profile']);
        assert.deepEqual(await s.listArtifactKeys(scope('s2')), ['user:profile']);
        assert.deepEqual(await s.loadArtifact({ ...scope('s2'), filename: 'user:profile' }), text('shared'));
        assert.equal(await s.loadArtifact({ ...scope('s2'), filename: 'notes' }), undefined);
        assert.deepEqual(await s.listArtifactKeys({ ...scope('s1'), userId: 'u2' }), []);
      },
    },
    {
      name: 'delete removes every version',
      run: async () => {
        const s = await factory();
        await s.saveArtifact({ ...scope(), filename: 'gone', artifact: text('x') });
        await s.deleteArtifact({ ...scope(), filename: 'gone' });
        assert.equal(await s.loadArtifact({ ...scope(), filename: 'gone' }), undefined);
        assert.deepEqual(await s.listVersions({ ...scope(), filename: 'gone' }), []);
        await s.deleteArtifact({ ...scope(), filename: 'gone' });
      },
    },
    {
      name: 'deleting one version keeps the others, and version numbers are not reused',
      run: async () => {
        const s = await factory();
        for (const t of ['a', 'b', 'c'])
          await s.saveArtifact({ ...scope(), filename: 'v', artifact: text(t) });
        await s.deleteArtifact({ ...scope(), filename: 'v', version: 2 });
        await s.deleteArtifact({ ...scope(), filename: 'v', version: 0 });
        await s.deleteArtifact({ ...scope(), filename: 'v', version: 7 });
        assert.deepEqual(await s.listVersions({ ...scope(), filename: 'v' }), [1]);
        assert.deepEqual(await s.loadArtifact({ ...scope(), filename: 'v' }), text('b'));
        assert.equal(await s.loadArtifact({ ...scope(), filename: 'v', version: 2 }), undefined);
        assert.equal(await s.saveArtifact({ ...scope(), filename: 'v', artifact: text('d') }), 3);
        assert.deepEqual(await s.listArtifactKeys(scope()), ['v']);
        await s.deleteArtifact({ ...scope(), filename: 'v' });
        assert.deepEqual(await s.listArtifactKeys(scope()), []);
        assert.equal(await s.saveArtifact({ ...scope(), filename: 'v', artifact: text('e') }), 0);
      },
    },
    {
      name: 'parts round-trip exactly: Unicode text, inline data with its display name, file references',
      run: async () => {
        const s = await factory();
        const parts = [
          { text: 'Zürich — 東京 🙂\n' },
          {
            inlineData: {
              mimeType: 'image/png',
              data: Buffer.from('png!').toString('base64'),
              displayName: 'a.png',
            },
          },
          { fileData: { mimeType: 'application/pdf', fileUri: 'gs://bucket/doc.pdf' } },
          { inlineData: { mimeType: 'application/octet-stream', data: '' } },
        ];
        for (const [i, artifact] of parts.entries()) {
          await s.saveArtifact({ ...scope(), filename: `p${i}`, artifact });
          assert.deepEqual(await s.loadArtifact({ ...scope(), filename: `p${i}` }), artifact);
        }
      },
    },
    {
      name: 'text with NUL and other control characters round-trips (a valid JavaScript string is a valid text)',
      run: async () => {
        const s = await factory();
        const artifact = text('a\u0000b\u0001\u0000\r\n\u001f end \u0000');
        assert.equal(await s.saveArtifact({ ...scope(), filename: 'zero-bytes.txt', artifact }), 0);
        assert.equal(
          await s.saveArtifact({ ...scope(), filename: 'zero-bytes.txt', artifact: text('\u0000') }),
          1,
        );
        assert.deepEqual(
          await s.loadArtifact({ ...scope(), filename: 'zero-bytes.txt', version: 0 }),
          artifact,
        );
        assert.deepEqual(await s.loadArtifact({ ...scope(), filename: 'zero-bytes.txt' }), text('\u0000'));
      },
    },
    {
      name: 'MIME type and custom metadata are kept per version (stores that expose version metadata)',
      run: async () => {
        const s = await factory();
        // getArtifactVersion is optional in the contract; a store without it has nothing to check.
        if (!s.getArtifactVersion || !s.listArtifactVersions) return;
        const before = Date.now();
        await s.saveArtifact({
          ...scope(),
          filename: 'user:report.csv',
          artifact: {
            inlineData: { mimeType: 'text/csv', data: Buffer.from('a,b\n1,2\n').toString('base64') },
          },
          customMetadata: { source: 'export', rows: 1, tags: ['q3'], nested: { ok: true } },
        });
        await s.saveArtifact({ ...scope(), filename: 'user:report.csv', artifact: text('plain') });
        const first = await s.getArtifactVersion({ ...scope('s9'), filename: 'user:report.csv', version: 0 });
        assert.equal(first?.version, 0);
        assert.equal(first?.mimeType, 'text/csv');
        assert.equal(first?.sizeBytes, 8);
        assert.deepEqual(first?.customMetadata, {
          source: 'export',
          rows: 1,
          tags: ['q3'],
          nested: { ok: true },
        });
        assert.ok((first?.createTime ?? 0) >= before - 1000 && (first?.createTime ?? 0) <= Date.now() + 1000);
        const latest = await s.getArtifactVersion({ ...scope(), filename: 'user:report.csv' });
        assert.equal(latest?.version, 1);
        assert.equal(latest?.mimeType, 'text/plain');
        assert.equal(latest?.customMetadata, undefined);
        const all = await s.listArtifactVersions({ ...scope(), filename: 'user:report.csv' });
        assert.deepEqual(
          all.map((v) => v.version),
          [0, 1],
        );
        assert.equal(await s.getArtifactVersion({ ...scope(), filename: 'missing' }), undefined);
      },
    },
    {
      name: 'unsafe names are rejected with a typed VALIDATION error',
      run: async () => {
        const s = await factory();
        for (const filename of ['', '../etc/passwd', 'a/b', 'a\\b', '..', 'user:', 'bad\u0000name']) {
          await assert.rejects(s.saveArtifact({ ...scope(), filename, artifact: text('x') }), (e) =>
            isAdkError(e, 'VALIDATION'),
          );
        }
      },
    },
  ];
}
