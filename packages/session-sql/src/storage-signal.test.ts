import { randomBytes } from 'node:crypto';
import { type AuthCredential, CancelledError, type Event, isAdkError } from '@adk/core';
import type {
  KyselyPlugin,
  PluginTransformQueryArgs,
  PluginTransformResultArgs,
  RootOperationNode,
} from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { suiteTitle, testDatabases } from './__fixtures__/databases.js';
import { type AnyKysely, SqlArtifactService, SqlCredentialService, SqlSessionService } from './index.js';

const tablePrefix = `sig_${process.pid}_`;
const encryptionKey = randomBytes(32).toString('base64');
const credential: AuthCredential = { authType: 'apiKey', apiKey: 'secret' };

/** Aborts its controller when the next query is sent once armed: the abort lands between queries. */
class AbortOnNextQuery implements KyselyPlugin {
  controller = new AbortController();
  private armed = false;
  arm(): AbortSignal {
    this.controller = new AbortController();
    this.armed = true;
    return this.controller.signal;
  }
  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    if (this.armed) {
      this.armed = false;
      this.controller.abort(new Error('stop'));
    }
    return args.node;
  }
  async transformResult(args: PluginTransformResultArgs) {
    return args.result;
  }
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (error: unknown) => error,
  );
}

function expectCancelled(error: unknown): void {
  expect(error).toBeInstanceOf(CancelledError);
  expect(isAdkError(error) && error.code).toBe('CANCELLED');
  expect((error as Error).cause).toBeInstanceOf(Error);
}

for (const target of testDatabases()) {
  describe.skipIf(target.skipReason !== undefined)(
    suiteTitle(target, 'storage calls and their signal'),
    () => {
      let db: AnyKysely;
      const plugin = new AbortOnNextQuery();
      let sessions: SqlSessionService;
      let artifacts: SqlArtifactService;
      let credentials: SqlCredentialService;
      const key = { appName: 'app', userId: 'u', sessionId: 's' };
      beforeAll(async () => {
        db = (await target.open()).withPlugin(plugin);
        sessions = new SqlSessionService({ db, tablePrefix });
        artifacts = new SqlArtifactService({ db, tablePrefix });
        credentials = new SqlCredentialService({ db, tablePrefix, encryptionKey });
        await sessions.migrate();
      });
      afterAll(async () => {
        await db?.destroy();
      });

      it('an aborted signal rejects every call with CancelledError before any query', async () => {
        const controller = new AbortController();
        controller.abort(new Error('gone'));
        const signal = controller.signal;
        const calls: Promise<unknown>[] = [
          sessions.createSession({ ...key, signal }),
          sessions.getSession({ ...key, signal }),
          sessions.listSessions({ appName: 'app', signal }),
          sessions.deleteSession({ ...key, signal }),
          artifacts.saveArtifact({ ...key, filename: 'a.txt', artifact: { text: 'x' }, signal }),
          artifacts.loadArtifact({ ...key, filename: 'a.txt', signal }),
          artifacts.listArtifactKeys({ ...key, signal }),
          artifacts.listVersions({ ...key, filename: 'a.txt', signal }),
          artifacts.listArtifactVersions({ ...key, filename: 'a.txt', signal }),
          artifacts.getArtifactVersion({ ...key, filename: 'a.txt', signal }),
          artifacts.deleteArtifact({ ...key, filename: 'a.txt', signal }),
          credentials.saveCredential({ appName: 'app', userId: 'u', key: 'k', credential, signal }),
          credentials.loadCredential({ appName: 'app', userId: 'u', key: 'k', signal }),
          credentials.deleteCredential({ appName: 'app', userId: 'u', key: 'k', signal }),
        ];
        for (const call of calls) expectCancelled(await rejection(call));
        // Nothing was written.
        expect(await sessions.getSession(key)).toBeUndefined();
        expect(await artifacts.listArtifactKeys(key)).toEqual([]);
        expect(await credentials.loadCredential({ appName: 'app', userId: 'u', key: 'k' })).toBeUndefined();
      });

      it('an abort between the queries of a call rolls its transaction back', async () => {
        // saveArtifact: the version counter is taken by the first query, then the abort is seen.
        expectCancelled(
          await rejection(
            artifacts.saveArtifact({
              ...key,
              filename: 'b.txt',
              artifact: { text: 'x' },
              signal: plugin.arm(),
            }),
          ),
        );
        expect(await artifacts.listVersions({ ...key, filename: 'b.txt' })).toEqual([]);
        // The counter was rolled back with it: the first stored version is still 0.
        expect(await artifacts.saveArtifact({ ...key, filename: 'b.txt', artifact: { text: 'y' } })).toBe(0);

        // createSession: the session row is inserted, then the abort is seen before the shared state.
        expectCancelled(await rejection(sessions.createSession({ ...key, signal: plugin.arm() })));
        expect(await sessions.getSession(key)).toBeUndefined();

        // appendEvent: an aborted signal leaves the log as it was; a live one commits.
        const session = await sessions.createSession(key);
        const event: Event = {
          id: 'e1',
          invocationId: 'i',
          author: 'user',
          timestamp: Date.now(),
          content: { role: 'user', parts: [{ text: 'hi' }] },
          actions: { stateDelta: { n: 1 }, artifactDelta: {} },
        };
        const aborted = new AbortController();
        aborted.abort(new Error('gone'));
        expectCancelled(await rejection(sessions.appendEvent(session, event, { signal: aborted.signal })));
        expect((await sessions.getSession(key))?.events).toEqual([]);
        await sessions.appendEvent(session, event, { signal: new AbortController().signal });
        expect((await sessions.getSession(key))?.state).toEqual({ n: 1 });
      });
    },
  );
}
