import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type Content,
  type Event,
  FunctionTool,
  InMemoryRunner,
  LlmAgent,
  LoopAgent,
  REQUEST_CONFIRMATION,
  SequentialAgent,
  userContent,
} from '../index.js';
import { functionCallResponse, ScriptedModel } from '../testing/index.js';

async function collect(iterable: AsyncIterable<Event>): Promise<Event[]> {
  const out: Event[] = [];
  for await (const e of iterable) out.push(e);
  return out;
}

const texts = (events: Event[]) =>
  events
    .filter((e) => e.author !== 'user' && !e.partial && e.content?.parts[0]?.text)
    .map((e) => `${e.author}: ${e.content?.parts[0]?.text}`);

function confirmationAnswer(events: Event[], confirmed: boolean): Content {
  const call = events
    .flatMap((e) => e.content?.parts ?? [])
    .find((p) => p.functionCall?.name === REQUEST_CONFIRMATION);
  return {
    role: 'user',
    parts: [
      {
        functionResponse: {
          id: call?.functionCall?.id as string,
          name: REQUEST_CONFIRMATION,
          response: { confirmed },
        },
      },
    ],
  };
}

describe('resuming through workflow agents', () => {
  it('a LoopAgent resumes the paused step, continues the iteration and still honours maxIterations', async () => {
    const approvals: number[] = [];
    const approve = new FunctionTool({
      name: 'approve',
      description: 'needs a human',
      parameters: z.object({ n: z.number() }),
      requireConfirmation: true,
      execute: ({ n }) => {
        approvals.push(n);
        return { approved: n };
      },
    });
    const drafter = new LlmAgent({
      name: 'drafter',
      model: new ScriptedModel({ respond: (_r, i) => `draft ${i + 1}` }),
    });
    const checker = new LlmAgent({
      name: 'checker',
      model: new ScriptedModel([
        functionCallResponse('approve', { n: 1 }),
        'checked 1',
        functionCallResponse('approve', { n: 2 }),
        'checked 2',
      ]),
      tools: [approve],
    });
    const publisher = new LlmAgent({
      name: 'publisher',
      model: new ScriptedModel({ respond: (_r, i) => `published ${i + 1}` }),
    });
    const loop = new LoopAgent({ name: 'loop', subAgents: [drafter, checker], maxIterations: 2 });
    const runner = new InMemoryRunner({
      agent: new SequentialAgent({ name: 'pipeline', subAgents: [loop, publisher] }),
    });
    const send = (message: Content) =>
      collect(runner.run({ userId: 'u', sessionId: 's', newMessage: message }));

    // Iteration 1 pauses in the checker: nothing after it runs.
    const first = await send(userContent('start'));
    expect(texts(first)).toEqual(['drafter: draft 1']);
    expect(first.at(-1)?.actions.agentState).toEqual({ iteration: 0 });

    // Approval: the checker finishes, iteration 2 starts and pauses again.
    const second = await send(confirmationAnswer(first, true));
    expect(approvals).toEqual([1]);
    expect(texts(second)).toEqual(['checker: checked 1', 'drafter: draft 2']);
    expect(second.at(-1)?.actions.agentState).toEqual({ iteration: 1 });

    // Second approval: the loop ends after maxIterations (2) and the sequence goes on.
    const third = await send(confirmationAnswer(second, true));
    expect(approvals).toEqual([1, 2]);
    expect(texts(third)).toEqual(['checker: checked 2', 'publisher: published 1']);
  });
});
