import { type Event, InMemoryRunner, REQUEST_INPUT, userContent } from '@adk/core';
import { expect, it } from 'vitest';
import { rootAgent } from './agent.js';

async function collect(events: AsyncIterable<Event>): Promise<Event[]> {
  const out: Event[] = [];
  for await (const event of events) out.push(event);
  return out;
}

it('routes a refund through both checks and the join to a question, and settles on the answer', async () => {
  const runner = new InMemoryRunner({ agent: rootAgent });
  const run = (newMessage: Parameters<typeof runner.run>[0]['newMessage']) =>
    collect(runner.run({ userId: 'u', sessionId: 's', newMessage }));

  const first = await run(userContent('Please refund order 1001'));
  expect(first.find((e) => e.nodeInfo?.path.endsWith('/classify@1'))?.actions.route).toBe('refund');
  const ask = first
    .flatMap((e) => e.content?.parts ?? [])
    .find((p) => p.functionCall?.name === REQUEST_INPUT)?.functionCall;
  expect(ask?.args).toMatchObject({
    message: 'Refund 249 EUR for order 1001 (noise-cancelling headphones)?',
    payload: { policy: { within_30_days: true, needs_manager: true } },
    response_schema: { type: 'object', required: expect.arrayContaining(['approve', 'amount', 'method']) },
  });

  const second = await run({
    role: 'user',
    parts: [
      {
        functionResponse: {
          id: String(ask?.id),
          name: REQUEST_INPUT,
          response: { approve: true, amount: 200, method: 'store_credit' },
        },
      },
    ],
  });
  const settled = second.find((e) => e.nodeInfo?.path.endsWith('/settle@1'));
  expect(settled?.output).toBe('Refunded 200 EUR for order 1001 as store credit.');
  expect(second.some((e) => e.errorCode)).toBe(false);
});

it('sends other messages down the default route to the model', async () => {
  const runner = new InMemoryRunner({ agent: rootAgent });
  const events = await collect(
    runner.run({ userId: 'u', sessionId: 's', newMessage: userContent('What are your opening hours?') }),
  );
  expect(events.find((e) => e.nodeInfo?.path.endsWith('/classify@1'))?.actions.route).toBe('other');
  expect(events.some((e) => e.nodeInfo?.path.endsWith('/answer@1'))).toBe(true);
  expect(events.some((e) => e.errorCode)).toBe(false);
});
