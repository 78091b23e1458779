import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Event, LlmAgent, Runner, UPDATE_PROFILE_TOOL_NAME, userContent } from '@adk/core';
import { functionCallResponse, ScriptedModel } from '@adk/core/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { SqlSessionService } from './index.js';

const dir = mkdtempSync(join(tmpdir(), 'adk-session-sql-profile-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const schema = z.object({ name: z.string().optional(), boat: z.string().optional() });

async function start(url: string, script: ConstructorParameters<typeof ScriptedModel>[0]) {
  const sessionService = await SqlSessionService.fromUrl(url);
  const model = new ScriptedModel(script);
  const agent = new LlmAgent({ name: 'a', model, memory: { profile: { schema } } });
  const runner = new Runner({ appName: 'profiles', agent, sessionService, autoCreateSession: true });
  const run = async (sessionId: string, text: string) => {
    const events: Event[] = [];
    for await (const e of runner.run({ userId: 'u', sessionId, newMessage: userContent(text) }))
      events.push(e);
    return events;
  };
  return { sessionService, model, run };
}

for (const target of [{ name: 'sqlite', url: `sqlite://${join(dir, 'sessions.db')}` }]) {
  describe(`${target.name}: the profile (memory.profile)`, () => {
    it('survives a restart and reaches the system instruction of a new session', async () => {
      const first = await start(target.url, [
        functionCallResponse(UPDATE_PROFILE_TOOL_NAME, { patch: { name: 'Ada', boat: 'sloop' } }),
        'Noted.',
      ]);
      await first.run('s1', 'I am Ada and I sail a sloop');
      await first.sessionService.close();

      const second = await start(target.url, ['Hello Ada.']);
      await second.run('s2', 'hello again');
      const system = second.model.requests[0]?.systemInstruction ?? '';
      expect(system).toContain('<user_profile>');
      expect(system).toContain('"name": "Ada"');
      expect(system).toContain('"boat": "sloop"');
      await second.sessionService.close();
    }, 60_000);
  });
}
