import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LlmAgent, RECALL_METADATA_KEY, type RecallRecord } from '@adk/core';
import { ScriptedModel } from '@adk/core/testing';
import { kyselyFromUrl, SqlMemoryJobQueue, SqlMemoryService } from '@adk/session-sql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSse, startServer, type TestServer } from './__fixtures__/apps.js';

// A server on a database indexes every committed turn in the background (the memory job outbox
// and its worker start with the server): no worker is started by hand.

const folder = mkdtempSync(join(tmpdir(), 'adk-server-memory-'));
const databaseUrl = `sqlite://${join(folder, 'adk.db')}`;
let server: TestServer;

beforeAll(async () => {
  const model = new ScriptedModel({ respond: () => 'noted' });
  // The fact extractor: one fact per turn that names a boat.
  const extractor = new ScriptedModel({
    respond: (request) => {
      const asked = JSON.stringify(request.contents);
      return asked.includes('ketch')
        ? JSON.stringify({ facts: [{ text: "The user's boat is a ketch." }] })
        : '{"facts":[]}';
    },
  });
  server = await startServer({
    databaseUrl,
    apps: {
      keeper: new LlmAgent({ name: 'keeper', model, memory: { recall: true } }),
      archivist: new LlmAgent({ name: 'archivist', model, memory: { facts: { model: extractor } } }),
    },
  });
});
afterAll(async () => {
  await server?.close();
  rmSync(folder, { recursive: true, force: true });
});

async function say(sessionId: string, text: string) {
  const response = await fetch(`${server.url}/run_sse`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({
      appName: 'keeper',
      userId: 'u1',
      sessionId,
      newMessage: { role: 'user', parts: [{ text }] },
    }),
  });
  expect(response.status).toBe(200);
  return readSse(response);
}

async function until(check: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('memory jobs in the server', () => {
  it('indexes a turn without any manual worker start, and a later session recalls it', {
    timeout: 120_000,
  }, async () => {
    for (const sessionId of ['first', 'second']) {
      const created = await fetch(`${server.url}/apps/keeper/users/u1/sessions`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ sessionId }),
      });
      expect(created.status).toBe(200);
    }
    await say('first', 'My pet tapir is called Bartholomew');
    // A second connection to the same database sees the outbox and the index.
    const db = await kyselyFromUrl(databaseUrl);
    const queue = new SqlMemoryJobQueue({ db, migrate: false });
    const memory = new SqlMemoryService({ db, migrate: false });
    await until(async () => (await queue.stats({ appName: 'keeper' })).done >= 1);
    const found = await memory.searchMemory({ appName: 'keeper', userId: 'u1', query: 'tapir Bartholomew' });
    expect(found.memories.map((m) => m.sessionId)).toContain('first');
    expect(found.memories[0]?.keywords).toEqual(expect.arrayContaining(['tapir', 'bartholomew']));

    const { events } = await say('second', 'what is my tapir called?');
    const recall = events
      .map((e) => (e.customMetadata as Record<string, unknown> | undefined)?.[RECALL_METADATA_KEY])
      .find(Boolean) as RecallRecord | undefined;
    expect(recall?.memories.some((m) => m.sessionId === 'first')).toBe(true);
    await db.destroy();
  });

  it("runs each app's fact jobs on the server's worker with that app's agent options", {
    timeout: 120_000,
  }, async () => {
    const created = await fetch(`${server.url}/apps/archivist/users/u1/sessions`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ sessionId: 'boats' }),
    });
    expect(created.status).toBe(200);
    const response = await fetch(`${server.url}/run_sse`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        appName: 'archivist',
        userId: 'u1',
        sessionId: 'boats',
        newMessage: { role: 'user', parts: [{ text: 'I bought a ketch' }] },
      }),
    });
    expect(response.status).toBe(200);
    await readSse(response);
    const db = await kyselyFromUrl(databaseUrl);
    const memory = new SqlMemoryService({ db, migrate: false });
    const facts = async () =>
      (await memory.searchMemory({ appName: 'archivist', userId: 'u1', query: 'boat', kinds: ['fact'] }))
        .memories;
    await until(async () => (await facts()).length > 0);
    expect((await facts()).map((m) => m.content?.parts?.[0]?.text)).toEqual(["The user's boat is a ketch."]);
    await db.destroy();
  });
});
