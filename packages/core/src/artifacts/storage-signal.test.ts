import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type ArtifactService,
  CancelledError,
  FunctionTool,
  InMemoryArtifactService,
  InMemoryCredentialService,
  InMemorySessionService,
  LlmAgent,
  Runner,
  userContent,
} from '../index.js';
import { FileArtifactService } from '../node/index.js';
import { ScriptedModel } from '../testing/index.js';

const key = { appName: 'app', userId: 'u', sessionId: 's' };

function aborted(): AbortSignal {
  const controller = new AbortController();
  controller.abort(new Error('gone'));
  return controller.signal;
}

async function expectCancelled(call: Promise<unknown>): Promise<void> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(CancelledError);
  expect((error as CancelledError).code).toBe('CANCELLED');
}

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

describe('artifact and credential stores take { signal }', () => {
  const stores: [string, () => Promise<ArtifactService>][] = [
    ['in memory', async () => new InMemoryArtifactService()],
    [
      'files',
      async () => {
        const dir = await mkdtemp(join(tmpdir(), 'adk-signal-'));
        dirs.push(dir);
        return new FileArtifactService({ rootDir: dir });
      },
    ],
  ];
  for (const [name, open] of stores) {
    it(`${name}: an aborted signal rejects every call with CancelledError and stores nothing`, async () => {
      const store = await open();
      const signal = aborted();
      await expectCancelled(
        store.saveArtifact({ ...key, filename: 'a.txt', artifact: { text: 'x' }, signal }),
      );
      await expectCancelled(store.loadArtifact({ ...key, filename: 'a.txt', signal }));
      await expectCancelled(store.listArtifactKeys({ ...key, signal }));
      await expectCancelled(store.listVersions({ ...key, filename: 'a.txt', signal }));
      await expectCancelled(store.deleteArtifact({ ...key, filename: 'a.txt', signal }));
      await expectCancelled(store.getArtifactVersion!({ ...key, filename: 'a.txt', signal }));
      await expectCancelled(store.listArtifactVersions!({ ...key, filename: 'a.txt', signal }));
      expect(await store.listArtifactKeys(key)).toEqual([]);
      const live = new AbortController().signal;
      expect(
        await store.saveArtifact({ ...key, filename: 'a.txt', artifact: { text: 'x' }, signal: live }),
      ).toBe(0);
      expect(await store.loadArtifact({ ...key, filename: 'a.txt', signal: live })).toEqual({ text: 'x' });
    });
  }

  it('in-memory credentials: an aborted signal rejects load, save and delete', async () => {
    const store = new InMemoryCredentialService();
    const scope = { appName: 'app', userId: 'u', key: 'k' };
    const signal = aborted();
    await expectCancelled(
      store.saveCredential({ ...scope, credential: { authType: 'apiKey', apiKey: 'x' }, signal }),
    );
    await expectCancelled(store.loadCredential({ ...scope, signal }));
    await expectCancelled(store.deleteCredential({ ...scope, signal }));
    expect(await store.loadCredential(scope)).toBeUndefined();
  });
});

describe('context reads pass the invocation signal', () => {
  it('a tool reading an artifact after its run was aborted gets CancelledError', async () => {
    const controller = new AbortController();
    let settle: (value: unknown) => void = () => undefined;
    const read = new Promise((resolve) => {
      settle = resolve;
    });
    const tool = new FunctionTool({
      name: 'read_notes',
      description: 'reads the notes',
      parameters: z.object({}),
      execute: async (_args, ctx) => {
        await ctx.saveArtifact('notes.txt', { text: 'x' });
        controller.abort(new Error('user left'));
        settle(await ctx.loadArtifact('notes.txt').catch((e: unknown) => e));
        return { ok: true };
      },
    });
    const runner = new Runner({
      appName: 'app',
      agent: new LlmAgent({
        name: 'a',
        model: new ScriptedModel([[{ functionCall: { id: '1', name: 'read_notes', args: {} } }], 'done']),
        tools: [tool],
      }),
      sessionService: new InMemorySessionService(),
      artifactService: new InMemoryArtifactService(),
      autoCreateSession: true,
    });
    for await (const _ of runner.run({
      userId: 'u',
      sessionId: 's',
      newMessage: userContent('read'),
      signal: controller.signal,
    })) {
      // drained
    }
    expect(await read).toBeInstanceOf(CancelledError);
  });
});
