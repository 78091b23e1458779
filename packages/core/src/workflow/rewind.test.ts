import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type Content,
  type Event,
  InMemoryRunner,
  type NodeContext,
  REQUEST_INPUT,
  RequestInput,
  START,
  userContent,
  Workflow,
} from '../index.js';

async function collect(iterable: AsyncIterable<Event>): Promise<Event[]> {
  const out: Event[] = [];
  for await (const e of iterable) out.push(e);
  return out;
}

const reply = (id: string, response: Record<string, unknown>): Content => ({
  role: 'user',
  parts: [{ functionResponse: { id, name: REQUEST_INPUT, response } }],
});

describe('Workflow after a rewind', () => {
  it('does not resume a rewound question: an answer to it continues nothing', async () => {
    let shipped = 0;
    const approve = (_ctx: NodeContext, input: unknown) =>
      new RequestInput({
        interruptId: 'approval',
        message: `Approve ${input}?`,
        responseSchema: z.object({ approved: z.boolean() }),
      });
    const ship = () => {
      shipped++;
      return 'shipped';
    };
    const wf = new Workflow({ name: 'wf', edges: [START, approve, ship] });
    const runner = new InMemoryRunner({ agent: wf });
    const send = (message: Content) =>
      collect(runner.run({ userId: 'u', sessionId: 's', newMessage: message }));
    const first = await send(userContent('order 1'));
    const paused = first[0]?.invocationId ?? '';
    await runner.rewind({ userId: 'u', sessionId: 's', rewindBeforeInvocationId: paused });
    const late = await send(reply('approval', { approved: true }));
    expect(shipped).toBe(0);
    expect(late.some((e) => e.invocationId === paused)).toBe(false);
    // A typed error event instead: the question is not open any more.
    expect(late.find((e) => e.errorCode)?.errorCode).toBe('WORKFLOW_RESUME');
  });
});
