import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Content, type Event, FunctionTool, LlmAgent, Runner, userContent } from '@adk/core';
import { functionCallResponse, ScriptedModel } from '@adk/core/testing';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { z } from 'zod';
import { SqlSessionService } from './index.js';

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'adk-session-sql-runner-'));
  dirs.push(dir);
  return dir;
};

const postgres = inject('postgres');
const targets: { name: string; url: () => string; skipReason?: string | undefined }[] = [
  { name: 'pglite', url: () => `pglite://${join(tempDir(), 'pgdata')}` },
  { name: 'sqlite', url: () => `sqlite://${join(tempDir(), 'sessions.db')}` },
  {
    name: 'postgres',
    url: () => postgres.url ?? '',
    skipReason: postgres.url ? undefined : postgres.skipReason,
  },
];

const weather = new FunctionTool({
  name: 'get_weather',
  description: 'Weather for a city',
  parameters: z.object({ city: z.string() }),
  execute: ({ city }, context) => {
    context.state.set('user:last_city', city);
    return { city, forecast: 'sunny' };
  },
});
const askManager = new FunctionTool({
  name: 'ask_manager',
  description: 'Asks a human to approve a refund; the answer arrives later',
  parameters: z.object({ amount: z.number() }),
  isLongRunning: true,
  execute: () => undefined,
});

async function collect(iterable: AsyncIterable<Event>): Promise<Event[]> {
  const out: Event[] = [];
  for await (const event of iterable) out.push(event);
  return out;
}

/** One "process": a fresh service on the database, a fresh runner, a scripted model. */
async function start(url: string, appName: string, script: ConstructorParameters<typeof ScriptedModel>[0]) {
  const sessionService = await SqlSessionService.fromUrl(url);
  const model = new ScriptedModel(script);
  const agent = new LlmAgent({ name: 'assistant', model, tools: [weather, askManager] });
  const runner = new Runner({ appName, agent, sessionService, autoCreateSession: true });
  const run = (newMessage: Content) => collect(runner.run({ userId: 'u', sessionId: 's', newMessage }));
  return { sessionService, model, run };
}

for (const target of targets) {
  const title = `${target.name}: a Runner conversation survives restarts`;
  if (target.skipReason) console.warn(`[session-sql] ${title} skipped: ${target.skipReason}`);
  describe.skipIf(target.skipReason !== undefined)(
    target.skipReason ? `${title} (skipped: ${target.skipReason})` : title,
    () => {
      it('continues a conversation with a tool, and resumes a paused long-running call', async () => {
        const url = target.url();
        const appName = `runner-${process.pid}-${Date.now()}`;

        // Process 1: a tool call and its answer.
        const first = await start(url, appName, [
          functionCallResponse('get_weather', { city: 'Paris' }),
          'Sunny in Paris.',
        ]);
        const turn1 = await first.run(userContent('Weather in Paris?'));
        expect(turn1.at(-1)?.content?.parts[0]?.text).toBe('Sunny in Paris.');
        await first.sessionService.close();

        // Process 2: the history is there; a long-running call pauses the invocation.
        const second = await start(url, appName, [functionCallResponse('ask_manager', { amount: 100 })]);
        const turn2 = await second.run(userContent('Refund 100, please'));
        const pausedCall = turn2.at(-1);
        const callId = pausedCall?.content?.parts[0]?.functionCall?.id as string;
        expect(pausedCall?.longRunningToolIds).toEqual([callId]);
        const history = second.model.requests[0]?.contents ?? [];
        expect(history.map((c) => c.parts.map((p) => p.text ?? Object.keys(p)[0]))).toEqual([
          ['Weather in Paris?'],
          ['functionCall'],
          ['functionResponse'],
          ['Sunny in Paris.'],
          ['Refund 100, please'],
        ]);
        await second.sessionService.close();

        // Process 3: the human's answer arrives for the paused call; the agent picks it up.
        const third = await start(url, appName, ['Your refund of 100 is approved.']);
        const answer: Content = {
          role: 'user',
          parts: [{ functionResponse: { id: callId, name: 'ask_manager', response: { approved: true } } }],
        };
        const turn3 = await third.run(answer);
        expect(turn3.at(-1)?.content?.parts[0]?.text).toBe('Your refund of 100 is approved.');
        const request = third.model.requests[0]?.contents ?? [];
        const call = request.find((c) => c.parts.some((p) => p.functionCall?.id === callId));
        const response = request.find((c) => c.parts.some((p) => p.functionResponse?.id === callId));
        expect(call?.role).toBe('model');
        expect(response?.parts[0]?.functionResponse?.response).toEqual({ approved: true });

        const session = await third.sessionService.getSession({ appName, userId: 'u', sessionId: 's' });
        expect(session?.state['user:last_city']).toBe('Paris');
        expect(session?.events.map((e) => e.author)).toEqual([
          'user',
          'assistant',
          'assistant',
          'assistant',
          'user',
          'assistant',
          'user',
          'assistant',
        ]);
        expect(session?.events.every((e) => e.partial !== true)).toBe(true);
        await third.sessionService.close();
      });
    },
  );
}

const wire = new FunctionTool({
  name: 'wire_money',
  description: 'Sends money; needs the user’s confirmation',
  parameters: z.object({ amount: z.number() }),
  requireConfirmation: true,
  execute: ({ amount }) => ({ sent: amount }),
});

for (const target of targets) {
  const title = `${target.name}: a tool confirmation survives a restart`;
  describe.skipIf(target.skipReason !== undefined)(
    target.skipReason ? `${title} (skipped: ${target.skipReason})` : title,
    () => {
      it('pauses for confirmation in one process and runs the tool after approval in the next', async () => {
        const url = target.url();
        const appName = `confirm-${process.pid}-${Date.now()}`;
        const boot = async (script: ConstructorParameters<typeof ScriptedModel>[0]) => {
          const sessionService = await SqlSessionService.fromUrl(url);
          const model = new ScriptedModel(script);
          const agent = new LlmAgent({ name: 'bank', model, tools: [wire] });
          const runner = new Runner({ appName, agent, sessionService, autoCreateSession: true });
          const run = (newMessage: Content) =>
            collect(runner.run({ userId: 'u', sessionId: 's', newMessage }));
          return { sessionService, model, run };
        };

        const first = await boot([functionCallResponse('wire_money', { amount: 250 }, 'call-w')]);
        const paused = (await first.run(userContent('wire 250'))).at(-1);
        const request = paused?.content?.parts[0]?.functionCall;
        expect(request?.name).toBe('adk_request_confirmation');
        expect(paused?.longRunningToolIds).toEqual([request?.id]);
        await first.sessionService.close();

        const second = await boot(['Sent 250.']);
        const turn = await second.run({
          role: 'user',
          parts: [
            {
              functionResponse: {
                id: request?.id as string,
                name: 'adk_request_confirmation',
                response: { confirmed: true },
              },
            },
          ],
        });
        expect(turn.at(-1)?.content?.parts[0]?.text).toBe('Sent 250.');
        expect(second.model.requests[0]?.contents.at(-1)?.parts[0]?.functionResponse).toEqual({
          id: 'call-w',
          name: 'wire_money',
          response: { sent: 250 },
        });
        await second.sessionService.close();
      });
    },
  );
}
