import { randomBytes } from 'node:crypto';
import {
  type AuthConfig,
  type AuthCredential,
  type Event,
  FunctionTool,
  InMemorySessionService,
  isAdkError,
  LlmAgent,
  REQUEST_CREDENTIAL,
  Runner,
  userContent,
} from '@adk/core';
import { functionCallResponse, ScriptedModel, type ScriptStep } from '@adk/core/testing';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { suiteTitle, testDatabases } from './__fixtures__/databases.js';
import { type AnyKysely, CREDENTIAL_KEY_ENV, SqlCredentialService } from './index.js';

const tablePrefix = `cred_${process.pid}_`;
const key = randomBytes(32).toString('base64');
const scope = { appName: 'app', userId: 'u1' };
const secret = `sk-${randomBytes(8).toString('hex')}`;
const token: AuthCredential = {
  authType: 'oauth2',
  oauth2: { accessToken: `at-${secret}`, refreshToken: `rt-${secret}`, expiresAt: 1_900_000_000 },
};

for (const target of testDatabases()) {
  describe.skipIf(target.skipReason !== undefined)(suiteTitle(target, 'SqlCredentialService'), () => {
    let db: AnyKysely;
    let service: SqlCredentialService;
    beforeAll(async () => {
      db = await target.open();
      service = new SqlCredentialService({ db, tablePrefix, encryptionKey: key });
      await service.migrate();
    });
    afterAll(async () => {
      await db?.destroy();
    });

    it('saves, loads, replaces and deletes a credential per app, user and key', async () => {
      await service.saveCredential({ ...scope, key: 'k1', credential: token });
      expect(await service.loadCredential({ ...scope, key: 'k1' })).toEqual(token);
      expect(await service.loadCredential({ ...scope, userId: 'u2', key: 'k1' })).toBeUndefined();
      const replaced: AuthCredential = { authType: 'apiKey', apiKey: secret };
      await service.saveCredential({ ...scope, key: 'k1', credential: replaced });
      expect(await service.loadCredential({ ...scope, key: 'k1' })).toEqual(replaced);
      await service.deleteCredential({ ...scope, key: 'k1' });
      expect(await service.loadCredential({ ...scope, key: 'k1' })).toBeUndefined();
    });

    it('stores only ciphertext: no secret in the table, a fresh IV per write', async () => {
      await service.saveCredential({ ...scope, key: 'k2', credential: token });
      const first = await sql<{
        ciphertext: string;
      }>`select ciphertext from ${sql.table(`${tablePrefix}credentials`)}`.execute(db);
      await service.saveCredential({ ...scope, key: 'k2', credential: token });
      const second = await sql<{
        ciphertext: string;
      }>`select ciphertext from ${sql.table(`${tablePrefix}credentials`)}`.execute(db);
      const dump = JSON.stringify([first.rows, second.rows]);
      expect(dump).not.toContain(secret);
      expect(dump).not.toContain(Buffer.from(secret).toString('base64').slice(0, 12));
      expect(first.rows[0]?.ciphertext).not.toBe(second.rows[0]?.ciphertext);
    });

    it('refuses another key, and a row moved to another user', async () => {
      await service.saveCredential({ ...scope, key: 'k3', credential: token });
      const other = new SqlCredentialService({ db, tablePrefix, encryptionKey: randomBytes(32) });
      const wrongKey = await other.loadCredential({ ...scope, key: 'k3' }).catch((e: unknown) => e);
      expect(isAdkError(wrongKey, 'CREDENTIAL_KEY')).toBe(true);
      expect(String(wrongKey)).toContain('encrypted with another key');
      await sql`update ${sql.table(`${tablePrefix}credentials`)} set user_id = 'mallory' where credential_key = 'k3'`.execute(
        db,
      );
      const moved = await service
        .loadCredential({ ...scope, userId: 'mallory', key: 'k3' })
        .catch((e: unknown) => e);
      expect(isAdkError(moved, 'CREDENTIAL_KEY')).toBe(true);
      expect(String(moved)).toContain('could not be decrypted');
    });
  });
}

describe('SqlCredentialService key', () => {
  it('fails with a clear typed error naming the variable when no key is set', () => {
    const saved = process.env[CREDENTIAL_KEY_ENV];
    delete process.env[CREDENTIAL_KEY_ENV];
    try {
      const error = (() => {
        try {
          new SqlCredentialService({ db: {} as AnyKysely, dialect: 'sqlite' });
        } catch (e) {
          return e;
        }
      })();
      expect(isAdkError(error, 'CREDENTIAL_KEY')).toBe(true);
      expect((error as Error).message).toContain(CREDENTIAL_KEY_ENV);
      expect(
        () => new SqlCredentialService({ db: {} as AnyKysely, dialect: 'sqlite', encryptionKey: 'c2hvcnQ=' }),
      ).toThrow(/32 bytes/);
    } finally {
      if (saved !== undefined) process.env[CREDENTIAL_KEY_ENV] = saved;
    }
  });

  it('keeps a credential the client supplied across a restart of the runner (key from the environment)', async () => {
    process.env[CREDENTIAL_KEY_ENV] = randomBytes(32).toString('hex');
    const service = await SqlCredentialService.fromUrl('sqlite://:memory:', { tablePrefix: 'restart_' });
    const config: AuthConfig = { authScheme: { type: 'apiKey', in: 'header', name: 'X-API-Key' } };
    const used: string[] = [];
    const tool = new FunctionTool({
      name: 'call_api',
      description: 'Calls the API',
      parameters: z.object({}),
      execute: async (_args, ctx) => {
        const credential = await ctx.getCredential(config);
        if (!credential) return { pending: true };
        used.push(credential.apiKey ?? '');
        return { ok: true };
      },
    });
    const sessions = new InMemorySessionService();
    const makeRunner = (steps: ScriptStep[]) =>
      new Runner({
        appName: 'app',
        agent: new LlmAgent({ name: 'agent', model: new ScriptedModel(steps), tools: [tool] }),
        sessionService: sessions,
        credentialService: service,
        autoCreateSession: true,
      });
    const collect = async (it: AsyncIterable<Event>) => {
      const out: Event[] = [];
      for await (const e of it) out.push(e);
      return out;
    };
    const first = makeRunner([functionCallResponse('call_api', {}, 'c1'), 'done']);
    const asked = await collect(first.run({ userId: 'u', sessionId: 's', newMessage: userContent('go') }));
    const request = asked.at(-1)?.content?.parts[0]?.functionCall;
    expect(request?.name).toBe(REQUEST_CREDENTIAL);
    const answer = {
      ...(request?.args.authConfig as AuthConfig),
      exchangedAuthCredential: { authType: 'apiKey', apiKey: secret },
    };
    await collect(
      first.run({
        userId: 'u',
        sessionId: 's',
        newMessage: {
          role: 'user',
          parts: [
            { functionResponse: { id: request?.id ?? '', name: REQUEST_CREDENTIAL, response: answer } },
          ],
        },
      }),
    );
    // A new runner (a restarted process) finds the stored credential: no second request.
    const second = makeRunner([functionCallResponse('call_api', {}, 'c2'), 'done again']);
    const events = await collect(
      second.run({ userId: 'u', sessionId: 's2', newMessage: userContent('again') }),
    );
    expect(events.at(-1)?.content?.parts[0]?.text).toBe('done again');
    expect(used).toEqual([secret, secret]);
    await service.close();
  });
});
