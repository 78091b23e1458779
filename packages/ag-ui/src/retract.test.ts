import { type Guardrail, InMemorySessionService, LlmAgent, Runner } from '@adk/core';
import { ScriptedModel } from '@adk/core/testing';
import { HttpAgent as HttpAgentV1 } from '@ag-ui/client';
import { EventSchemas as EventSchemasV1 } from '@ag-ui/core/schemas';
import { HttpAgent as HttpAgentV0 } from 'ag-ui-client-v0';
import { EventSchemas as EventSchemasV0 } from 'ag-ui-core-v0';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serve } from './__fixtures__/ag-ui-app.js';
import { createAgUiHandler, RETRACT_EVENT } from './index.js';

// A streamed answer an output guardrail withdraws (guardrailStreaming: 'retract'): the official
// clients end up without the withdrawn text, by the MESSAGES_SNAPSHOT every client applies.

const SECRET = 'hunter2';

/** Rewrites the secret; trips on "forbidden". */
const guard: Guardrail = {
  name: 'secrets',
  points: ['output'],
  check(subject) {
    if (subject.point !== 'output') return;
    const text = subject.content.parts.map((p) => p.text ?? '').join('');
    if (text.includes('forbidden')) return { action: 'tripwire', reason: 'forbidden topic' };
    if (!text.includes(SECRET)) return;
    return {
      action: 'rewrite',
      value: { role: 'model', parts: [{ text: text.replaceAll(SECRET, '[redacted]') }] },
    };
  },
};

function runner(): Runner {
  return new Runner({
    appName: 'guarded',
    sessionService: new InMemorySessionService(),
    agent: new LlmAgent({
      name: 'guarded',
      instruction: 'Help.',
      outputGuardrails: [guard],
      guardrailStreaming: 'retract',
      model: new ScriptedModel({
        chunkSize: 4,
        respond: (request) => {
          const text =
            request.contents
              .at(-1)
              ?.parts.map((p) => p.text ?? '')
              .join('') ?? '';
          if (/password/.test(text)) return `The password is ${SECRET}, keep it safe.`;
          if (/forbidden/.test(text)) return 'Here is the forbidden answer in full.';
          return `You said: ${text}`;
        },
      }),
    }),
  });
}

const clients = [
  { name: '@ag-ui/client 1.0.0', HttpAgent: HttpAgentV1, schemas: EventSchemasV1 },
  { name: '@ag-ui/client 0.0.59', HttpAgent: HttpAgentV0, schemas: EventSchemasV0 },
] as const;

describe.each(clients)('retraction with $name', ({ HttpAgent, schemas }) => {
  let server: Awaited<ReturnType<typeof serve>>;
  let thread = 0;
  beforeAll(async () => {
    server = await serve(createAgUiHandler({ runner: runner() }));
  });
  afterAll(async () => {
    await server.close();
  });

  async function ask(text: string) {
    const from = server.log.frames.length;
    const agent = new HttpAgent({ url: server.url, threadId: `t-${thread++}` });
    agent.addMessage({ id: 'earlier', role: 'user', content: 'hello' });
    agent.addMessage({ id: 'earlier-a', role: 'assistant', content: 'hi' });
    agent.addMessage({ id: 'u', role: 'user', content: text });
    const contents: string[] = [];
    const custom: unknown[] = [];
    let failed: string | undefined;
    await agent
      .runAgent(
        {},
        {
          onTextMessageContentEvent: ({ event }) => void contents.push(event.delta),
          onCustomEvent: ({ event }) => void custom.push(event),
          onRunErrorEvent: ({ event }) => {
            failed = event.message;
          },
        },
      )
      .catch(() => undefined);
    await server.settle();
    const frames = server.log.frames.slice(from);
    for (const frame of frames) expect(schemas.safeParse(frame).success, JSON.stringify(frame)).toBe(true);
    return { agent, frames, contents, custom, failed };
  }

  it('a rewritten answer: the streamed text is withdrawn and the rewrite shown', async () => {
    const { agent, frames, contents, custom } = await ask('the password please');
    // The secret did stream (retract mode), and was then withdrawn.
    expect(contents.join('')).toContain('hunter');
    const retract = frames.find((f) => f.type === 'CUSTOM') as { value: { messageId: string } };
    expect(custom).toHaveLength(1);
    expect(retract).toMatchObject({ name: RETRACT_EVENT, value: { guardrail: 'secrets' } });
    const snapshot = frames.find((f) => f.type === 'MESSAGES_SNAPSHOT') as { messages: { id: string }[] };
    expect(snapshot.messages.map((m) => m.id)).toEqual(['earlier', 'earlier-a', 'u']);
    expect(frames.at(-1)?.type).toBe('RUN_FINISHED');
    const texts = agent.messages.map((m) => (typeof m.content === 'string' ? m.content : ''));
    expect(texts.join('\n')).not.toContain(SECRET);
    expect(texts.at(-1)).toBe('The password is [redacted], keep it safe.');
    expect(agent.messages.map((m) => m.id)).not.toContain(retract.value.messageId);
    expect(agent.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
  });

  it('a tripped answer: the streamed text is withdrawn and the run ends with RUN_ERROR', async () => {
    const { agent, frames, contents, failed } = await ask('something forbidden');
    expect(contents.join('')).toContain('Here is');
    expect(frames.map((f) => f.type).slice(-3)).toEqual(['MESSAGES_SNAPSHOT', 'STEP_FINISHED', 'RUN_ERROR']);
    expect(failed).toMatch(/forbidden topic/);
    expect(agent.messages.map((m) => m.id)).toEqual(['earlier', 'earlier-a', 'u']);
  });
});
