import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readSse, startServer } from './__fixtures__/apps.js';
import { normalizeDatabaseUrl } from './index.js';

// Sessions survive a restart of the server with its data folder kept (PGlite by default; SQLite URL).

const folders: string[] = [];
afterAll(() => {
  for (const f of folders) rmSync(f, { recursive: true, force: true });
});

async function converse(url: string, sessionId: string, text: string) {
  const response = await fetch(`${url}/run_sse`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({
      appName: 'assistant',
      userId: 'u1',
      sessionId,
      newMessage: { role: 'user', parts: [{ text }] },
    }),
  });
  return readSse(response);
}

describe('restart with the data folder kept', () => {
  it('keeps sessions, events, state and a paused confirmation in embedded PGlite', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'adk-server-restart-'));
    folders.push(dataDir);
    const first = await startServer({ dataDir }, true);
    expect(first.server.storage).toBe(`pglite://${join(dataDir, 'pglite')}`);
    await fetch(`${first.url}/apps/assistant/users/u1/sessions`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ sessionId: 'kept', state: { 'user:name': 'Ada', topic: 'files' } }),
    });
    await converse(first.url, 'kept', 'hello');
    await converse(first.url, 'kept', 'save plan');
    const paused = await converse(first.url, 'kept', 'delete old.log');
    const confirmation = paused.events
      .flatMap(
        (e) =>
          (e.content as { parts: { functionCall?: { id: string; name: string } }[] } | undefined)?.parts ??
          [],
      )
      .find((p) => p.functionCall?.name === 'adk_request_confirmation')?.functionCall;
    expect(confirmation).toBeDefined();
    await first.close();

    const second = await startServer({ dataDir }, true);
    try {
      const session = (await (await fetch(`${second.url}/apps/assistant/users/u1/sessions/kept`)).json()) as {
        state: Record<string, unknown>;
        events: { author: string }[];
      };
      expect(session.state).toMatchObject({ 'user:name': 'Ada', topic: 'files' });
      expect(session.events.length).toBe(paused.events.length + 6);
      // Artifacts are in the same database.
      const artifact = await fetch(`${second.url}/apps/assistant/users/u1/sessions/kept/artifacts/plan`);
      expect(await artifact.json()).toEqual({ text: 'note plan' });
      // The confirmation asked before the restart is answered after it.
      const resumed = await fetch(`${second.url}/run`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({
          appName: 'assistant',
          userId: 'u1',
          sessionId: 'kept',
          newMessage: {
            role: 'user',
            parts: [
              {
                functionResponse: {
                  id: confirmation?.id,
                  name: 'adk_request_confirmation',
                  response: { confirmed: true },
                },
              },
            ],
          },
        }),
      });
      const events = (await resumed.json()) as { content?: { parts: { text?: string }[] } }[];
      expect(events.at(-1)?.content?.parts[0]?.text).toBe('Result of delete_file: {"deleted":"old.log"}');
      const list = (await (await fetch(`${second.url}/apps/assistant/users/u1/sessions`)).json()) as {
        id: string;
      }[];
      expect(list.map((s) => s.id)).toContain('kept');
    } finally {
      await second.close();
    }
  });

  it('keeps sessions in SQLite for sqlite: URLs', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'adk-server-sqlite-'));
    folders.push(dir);
    const databaseUrl = `sqlite:${join(dir, 'adk.db')}`;
    const first = await startServer({ databaseUrl }, true);
    expect(first.server.storage).toBe(databaseUrl);
    await fetch(`${first.url}/apps/assistant/users/u1/sessions/lite`, { method: 'POST' });
    await converse(first.url, 'lite', 'remember me');
    await first.close();
    const second = await startServer({ databaseUrl }, true);
    try {
      const session = (await (await fetch(`${second.url}/apps/assistant/users/u1/sessions/lite`)).json()) as {
        events: { content?: { parts: { text?: string }[] } }[];
      };
      expect(session.events.map((e) => e.content?.parts[0]?.text)).toEqual([
        'remember me',
        'You said: remember me',
      ]);
    } finally {
      await second.close();
    }
  });

  it('reads database URLs: postgres and sqlite as given, anything else a PGlite folder', () => {
    expect(normalizeDatabaseUrl('postgres://u:p@h/db')).toBe('postgres://u:p@h/db');
    expect(normalizeDatabaseUrl('sqlite:data/x.db')).toBe('sqlite:data/x.db');
    expect(normalizeDatabaseUrl('pglite://memory')).toBe('pglite://memory');
    expect(normalizeDatabaseUrl('/var/lib/adk')).toBe('pglite:///var/lib/adk');
  });
});
