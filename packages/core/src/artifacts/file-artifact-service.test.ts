import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isAdkError } from '../index.js';
import { FileArtifactService } from '../node/index.js';
import { artifactServiceConformance } from '../testing/index.js';

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'adk-file-artifacts-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

let n = 0;
const fresh = () => new FileArtifactService({ rootDir: join(root, `store-${n++}`) });
const scope = { appName: 'app', userId: 'u1', sessionId: 's1' };

describe('FileArtifactService conformance', () => {
  for (const c of artifactServiceConformance(fresh)) it(c.name, c.run);
});

describe('FileArtifactService', () => {
  it('keeps bytes in a data file and the metadata in a JSON sidecar, both inside the root', async () => {
    const rootDir = join(root, 'layout');
    const store = new FileArtifactService({ rootDir });
    const data = Buffer.from([1, 2, 3, 250]);
    await store.saveArtifact({
      ...scope,
      filename: 'img.png',
      artifact: { inlineData: { mimeType: 'image/png', data: data.toString('base64') } },
      customMetadata: { by: 'test' },
    });
    const dir = join(rootDir, 'app', 'u1', 'sessions', 's1', 'img.png');
    const files = (await readdir(dir)).sort();
    expect(files).toHaveLength(2);
    expect(files[1]).toBe('v0.json');
    expect(await readFile(join(dir, files[0] as string))).toEqual(data);
    const sidecar = JSON.parse(await readFile(join(dir, 'v0.json'), 'utf8'));
    expect(sidecar).toMatchObject({
      version: 0,
      mimeType: 'image/png',
      customMetadata: { by: 'test' },
      sizeBytes: 4,
    });
    await store.saveArtifact({ ...scope, filename: 'user:avatar', artifact: { text: 'x' } });
    expect(await readdir(join(rootDir, 'app', 'u1', 'user'))).toEqual(['avatar']);
  });

  it('rejects path traversal, absolute paths, NUL and reserved device names with a typed error', async () => {
    const store = fresh();
    const badNames = [
      '../x',
      '..',
      '/etc/passwd',
      'C:\\Windows\\win.ini',
      'C:evil',
      'a\u0000b',
      'CON',
      'nul.txt',
      'com1',
      'LPT9.log',
      'user:../x',
      'user:aux',
      'trailing.',
      'trailing ',
      'what?',
    ];
    for (const filename of badNames) {
      const error = await store.saveArtifact({ ...scope, filename, artifact: { text: 'x' } }).catch((e) => e);
      expect(isAdkError(error, 'VALIDATION'), filename).toBe(true);
      const loadError = await store.loadArtifact({ ...scope, filename }).catch((e) => e);
      expect(isAdkError(loadError, 'VALIDATION'), filename).toBe(true);
    }
    for (const bad of [
      { appName: '..' },
      { userId: '/root' },
      { sessionId: '..' },
      { userId: 'PRN' },
      { appName: 'a\u0000' },
    ]) {
      const error = await store
        .saveArtifact({ ...scope, ...bad, filename: 'ok.txt', artifact: { text: 'x' } })
        .catch((e) => e);
      expect(isAdkError(error, 'VALIDATION'), JSON.stringify(bad)).toBe(true);
    }
    expect(await readdir(store.rootDir).catch(() => [])).toEqual([]);
    // Names that merely look like device names are fine.
    expect(await store.saveArtifact({ ...scope, filename: 'console.log', artifact: { text: 'x' } })).toBe(0);
    expect(await store.saveArtifact({ ...scope, filename: 'com10', artifact: { text: 'x' } })).toBe(0);
  });

  it('rejects an artifact over the size limit with ARTIFACT_TOO_LARGE and stores nothing', async () => {
    const store = new FileArtifactService({ rootDir: join(root, 'limit'), maxArtifactBytes: 1024 });
    const big = Buffer.alloc(1025).toString('base64');
    const error = await store
      .saveArtifact({
        ...scope,
        filename: 'big.bin',
        artifact: { inlineData: { mimeType: 'application/octet-stream', data: big } },
      })
      .catch((e) => e);
    expect(isAdkError(error, 'ARTIFACT_TOO_LARGE')).toBe(true);
    expect(await store.listArtifactKeys(scope)).toEqual([]);
    const textError = await store
      .saveArtifact({ ...scope, filename: 'big.txt', artifact: { text: 'é'.repeat(513) } })
      .catch((e) => e);
    expect(isAdkError(textError, 'ARTIFACT_TOO_LARGE')).toBe(true);
    expect(
      await store.saveArtifact({ ...scope, filename: 'ok.bin', artifact: { text: 'a'.repeat(1024) } }),
    ).toBe(0);
  });

  it('gives 50 concurrent saves of one name 50 distinct versions, and leaves no temporary files', async () => {
    const store = fresh();
    const versions = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        store.saveArtifact({ ...scope, filename: 'log.txt', artifact: { text: `entry ${i}` } }),
      ),
    );
    expect([...versions].sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i));
    // Two services on the same folder (as two processes would be) share the numbering too.
    const other = new FileArtifactService({ rootDir: store.rootDir });
    const more = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        (i % 2 ? store : other).saveArtifact({
          ...scope,
          filename: 'log.txt',
          artifact: { text: `more ${i}` },
        }),
      ),
    );
    expect([...more].sort((a, b) => a - b)).toEqual(Array.from({ length: 10 }, (_, i) => 50 + i));
    for (const [i, version] of versions.entries()) {
      expect(await store.loadArtifact({ ...scope, filename: 'log.txt', version })).toEqual({
        text: `entry ${i}`,
      });
    }
    const dir = join(store.rootDir, 'app', 'u1', 'sessions', 's1', 'log.txt');
    expect((await readdir(dir)).filter((f) => f.includes('tmp'))).toEqual([]);
  });

  it('survives a new service instance on the same folder (a restart)', async () => {
    const rootDir = join(root, 'restart');
    const first = new FileArtifactService({ rootDir });
    await first.saveArtifact({ ...scope, filename: 'user:notes.md', artifact: { text: '# hi' } });
    const second = new FileArtifactService({ rootDir });
    expect(await second.loadArtifact({ ...scope, sessionId: 'other', filename: 'user:notes.md' })).toEqual({
      text: '# hi',
    });
    expect(
      await second.saveArtifact({ ...scope, filename: 'user:notes.md', artifact: { text: '# v2' } }),
    ).toBe(1);
  });
});
