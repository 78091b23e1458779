import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEvent, isAdkError } from '@adk/core';
import { afterAll, describe, expect, it } from 'vitest';
import { parseDatabaseUrl, SqlSessionService } from './index.js';

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'adk-session-sql-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('parseDatabaseUrl', () => {
  it.each([
    ['postgres://u:p@localhost:5432/db', { kind: 'postgres', url: 'postgres://u:p@localhost:5432/db' }],
    ['postgresql://localhost/db', { kind: 'postgres', url: 'postgresql://localhost/db' }],
    ['pglite://memory', { kind: 'pglite', dataDir: undefined }],
    ['pglite://', { kind: 'pglite', dataDir: undefined }],
    ['pglite://./.adk/sessions', { kind: 'pglite', dataDir: './.adk/sessions' }],
    ['pglite:///var/lib/adk', { kind: 'pglite', dataDir: '/var/lib/adk' }],
    ['sqlite://:memory:', { kind: 'sqlite', path: ':memory:' }],
    ['sqlite://sessions.db', { kind: 'sqlite', path: 'sessions.db' }],
    ['sqlite:///tmp/my%20sessions.db', { kind: 'sqlite', path: '/tmp/my sessions.db' }],
  ])('%s', (url, expected) => {
    expect(parseDatabaseUrl(url)).toEqual(expected);
  });

  it('rejects other schemes with a CONFIG error that hides the password', () => {
    let error: unknown;
    try {
      parseDatabaseUrl('mysql://root:secret@localhost/db');
    } catch (e) {
      error = e;
    }
    expect(isAdkError(error, 'CONFIG')).toBe(true);
    expect((error as Error).message).not.toContain('secret');
  });
});

describe('SqlSessionService.fromUrl', () => {
  it('defaults to PGlite in memory', async () => {
    const service = await SqlSessionService.fromUrl();
    try {
      expect(service.family).toBe('postgres');
      const s = await service.createSession({ appName: 'a', userId: 'u' });
      expect(await service.getSession({ appName: 'a', userId: 'u', sessionId: s.id })).toEqual(s);
    } finally {
      await service.close();
    }
  });

  it.each([
    ['sqlite', (dir: string) => `sqlite://${join(dir, 'nested', 'sessions.db')}`],
    ['pglite', (dir: string) => `pglite://${join(dir, 'pgdata')}`],
  ])('%s files keep sessions across service instances', async (_name, urlFor) => {
    const url = urlFor(tempDir());
    const first = await SqlSessionService.fromUrl(url);
    const session = await first.createSession({
      appName: 'a',
      userId: 'u',
      sessionId: 's',
      state: { 'user:x': 1 },
    });
    await first.appendEvent(
      session,
      createEvent({
        invocationId: 'i',
        author: 'user',
        content: { role: 'user', parts: [{ text: 'kept' }] },
      }),
    );
    await first.close();
    const second = await SqlSessionService.fromUrl(url);
    try {
      const again = await second.getSession({ appName: 'a', userId: 'u', sessionId: 's' });
      expect(again).toEqual(session);
    } finally {
      await second.close();
    }
  });
});
