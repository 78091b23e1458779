import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  findPostgresBinDir,
  findRunuser,
  type PostgresTarget,
  PostgresUnavailableError,
  SYSTEM_BIN_DIRS,
  startTestPostgres,
} from './postgres-cluster.js';

// The test harness itself: where it finds the tools, and what it does when Postgres cannot start.

const scratch = mkdtempSync(join(tmpdir(), 'adk-pg-harness-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function executable(path: string): string {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, '#!/bin/sh\nexit 0\n');
  chmodSync(path, 0o755);
  return path;
}

describe('finding the tools', () => {
  it('finds runuser in a system folder when PATH leaves it out', () => {
    const sbin = join(scratch, 'sbin');
    const runuser = executable(join(sbin, 'runuser'));
    const env = { PATH: [join(scratch, 'bin'), join(scratch, 'local-bin')].join(':') };
    expect(findRunuser({ env, systemDirs: [join(scratch, 'nowhere'), sbin] })).toBe(runuser);
    // The usual system folders are searched by default, /usr/sbin and /sbin among them.
    expect(SYSTEM_BIN_DIRS).toEqual(expect.arrayContaining(['/usr/sbin', '/sbin', '/usr/bin', '/bin']));
  });

  it('prefers PATH, and ignores files that are not executable', () => {
    const onPath = executable(join(scratch, 'path-first', 'runuser'));
    const plain = join(scratch, 'plain');
    mkdirSync(plain, { recursive: true });
    writeFileSync(join(plain, 'runuser'), '');
    expect(findRunuser({ env: { PATH: join(scratch, 'path-first') }, systemDirs: [plain] })).toBe(onPath);
    expect(findRunuser({ env: { PATH: '' }, systemDirs: [plain] })).toBeUndefined();
  });

  it('takes the newest packaged server version', () => {
    const root = join(scratch, 'postgresql');
    executable(join(root, '9', 'bin', 'initdb'));
    executable(join(root, '16', 'bin', 'initdb'));
    mkdirSync(join(root, '17'), { recursive: true }); // a version without a server
    expect(findPostgresBinDir({ env: { PATH: '' }, postgresRoots: [root], systemDirs: [] })).toBe(
      join(root, '16', 'bin'),
    );
  });
});

describe('when Postgres cannot be started', () => {
  const nothing = {
    postgresRoots: [join(scratch, 'no-postgres')],
    systemDirs: [join(scratch, 'no-tools')],
  };

  it('fails the run in CI, with the reason', async () => {
    const provided: PostgresTarget[] = [];
    const started = startTestPostgres(
      { provide: (_key, value) => provided.push(value) },
      { ...nothing, env: { CI: 'true', PATH: '' }, warn: () => {} },
    );
    await expect(started).rejects.toThrow(PostgresUnavailableError);
    await expect(started).rejects.toThrow(
      /not skipped there: no PostgreSQL server binaries \(initdb\) found/,
    );
    expect(provided).toEqual([]);
  });

  it('skips with the reason printed outside CI', async () => {
    const provided: PostgresTarget[] = [];
    const printed: string[] = [];
    const teardown = await startTestPostgres(
      { provide: (_key, value) => provided.push(value) },
      { ...nothing, env: { PATH: '' }, warn: (message) => printed.push(message) },
    );
    expect(teardown).toBeUndefined();
    expect(provided).toEqual([{ skipReason: expect.stringContaining('no PostgreSQL server binaries') }]);
    expect(printed).toEqual([
      expect.stringMatching(/Postgres suites skipped: no PostgreSQL server binaries/),
    ]);
  });
});
