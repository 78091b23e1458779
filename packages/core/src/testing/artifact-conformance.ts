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
