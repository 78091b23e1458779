import {
  ConcurrentInvocationError,
  type Event,
  InMemorySessionService,
  Runner,
  type RunParams,
} from '@adk/core';
import { describe, expect, it } from 'vitest';
import { chatAgent } from './__fixtures__/chat-app.js';
import { createChatHandler, toUIMessages } from './index.js';

// `trigger: 'regenerate-message'` asks the last answer again: the history rewinds to before it only
// for a run that is accepted; a refused run leaves the history as it was.

/** A runner that refuses its runs while `refuse` is set (as a busy session or a plugin would). */
class RefusingRunner extends Runner {
  refuse = false;
  override run(params: RunParams): AsyncGenerator<Event, void, undefined> {
    if (!this.refuse) return super.run(params);
    // biome-ignore lint/correctness/useYield: a run refused before its first event yields nothing
    return (async function* (): AsyncGenerator<Event, void, undefined> {
      throw new ConcurrentInvocationError('Session is busy');
    })();
  }
}

const runner = new RefusingRunner({
  appName: 'chat',
  agent: chatAgent(),
  sessionService: new InMemorySessionService(),
});
const handler = createChatHandler({ runner });

async function post(body: Record<string, unknown>): Promise<Response> {
  const response = await handler(
    new Request('http://127.0.0.1/apps/chat/chat', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }),
  );
  if (response.ok) await response.text();
  return response;
}

async function history(id: string) {
  const session = await runner.sessionService.getSession({ appName: 'chat', userId: 'user', sessionId: id });
  return toUIMessages(session as NonNullable<typeof session>).map((m) => ({
    role: m.role,
    text: m.parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join(''),
  }));
}

const hello = { id: 'u1', role: 'user', parts: [{ type: 'text', text: 'hello' }] };

describe('regenerate-message', () => {
  it('a refused regeneration leaves the history; an accepted one replaces the answer', async () => {
    expect((await post({ id: 'regen', messages: [hello], trigger: 'submit-message' })).status).toBe(200);
    const before = await history('regen');
    expect(before.map((m) => m.role)).toEqual(['user', 'assistant']);

    runner.refuse = true;
    const refused = await post({ id: 'regen', messages: [hello], trigger: 'regenerate-message' });
    expect(refused.status).toBe(409);
    expect(await history('regen')).toEqual(before);

    runner.refuse = false;
    const accepted = await post({ id: 'regen', messages: [hello], trigger: 'regenerate-message' });
    expect(accepted.status).toBe(200);
    const after = await history('regen');
    expect(after.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(after[0]).toEqual(before[0]);
  });
});
