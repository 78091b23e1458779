import { type Event, InMemorySessionService, Runner, userContent } from '@adk/core';
import { functionCallResponse, ScriptedModel } from '@adk/core/testing';
import { describe, expect, it } from 'vitest';
import { guardedShopAgent } from './shop.js';

async function converse(runner: Runner, text: string): Promise<Event[]> {
  const events: Event[] = [];
  for await (const e of runner.run({ userId: 'u', sessionId: 's', newMessage: userContent(text) }))
    events.push(e);
  return events;
}

describe('the guardrails example', () => {
  it('redacts a card number, blocks an injection hidden in a tool result, and trips the budget', async () => {
    const usage = { promptTokenCount: 300, candidatesTokenCount: 100, totalTokenCount: 400 };
    const model = new ScriptedModel([
      {
        content: { role: 'model', parts: [{ text: 'Thanks, I never need your card.' }] },
        usageMetadata: usage,
      },
      functionCallResponse('fetch_page', { url: 'https://shop.example/reviews' }),
      { content: { role: 'model', parts: [{ text: 'The headphones cost 249 EUR.' }] }, usageMetadata: usage },
    ]);
    const sessions = new InMemorySessionService();
    const runner = new Runner({
      appName: 'shop',
      agent: guardedShopAgent(model, 700),
      sessionService: sessions,
      autoCreateSession: true,
    });

    await converse(runner, 'My card is 4111 1111 1111 1111, is it stored?');
    expect(model.lastUserText(0)).toBe('My card is [PAYMENT_CARD], is it stored?');

    const injected = await converse(runner, 'What do the reviews say?');
    expect(injected.at(-1)).toMatchObject({ errorCode: 'GUARDRAIL_TRIPPED' });
    expect(injected.at(-1)?.errorMessage).toContain('prompt injection suspected in a tool result');
    expect(model.requests).toHaveLength(2);

    const spent = await converse(runner, 'How much are the headphones?');
    expect(spent.at(-1)?.errorMessage).toContain('session budget is spent (800 tokens)');
    const refused = await converse(runner, 'And delivery?');
    expect(refused.at(-1)?.errorMessage).toContain('session budget is spent');
    expect(model.requests).toHaveLength(3);

    const session = await sessions.getSession({ appName: 'shop', userId: 'u', sessionId: 's' });
    expect(JSON.stringify(session)).not.toContain('4111 1111');
  });
});
