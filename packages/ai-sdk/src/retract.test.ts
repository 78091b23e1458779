import { type Guardrail, InMemorySessionService, LlmAgent, Runner } from '@adk/core';
import { ScriptedModel } from '@adk/core/testing';
import { type UIMessageChunk as AiChunk, readUIMessageStream, type UIMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { chunkLog, recordChunks } from './__fixtures__/chat-app.js';
import { createChatHandler } from './index.js';

// A streamed answer an output guardrail withdraws (guardrailStreaming: 'retract'), read by the AI
// SDK's own readUIMessageStream: the withdrawn text part is followed by a `data-adk-retract` part.

const SECRET = 'hunter2';

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

const handler = createChatHandler({
  runner: new Runner({
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
  }),
});

/** What a client shows: every text part except the one a `data-adk-retract` part follows. */
function shown(message: UIMessage | undefined): string[] {
  const parts = message?.parts ?? [];
  return parts.flatMap((p, i) =>
    p.type === 'text' && parts[i + 1]?.type !== 'data-adk-retract' ? [p.text] : [],
  );
}

async function ask(id: string, text: string) {
  const response = await handler(
    new Request('http://127.0.0.1/apps/guarded/chat', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        id,
        trigger: 'submit-message',
        messages: [{ id: `u-${id}`, role: 'user', parts: [{ type: 'text', text }] }],
      }),
    }),
  );
  expect(response.status).toBe(200);
  const log = chunkLog();
  const [a, b] = (response.body as ReadableStream<Uint8Array>).tee();
  const recorded = recordChunks(a, log);
  const { parseJsonEventStream, uiMessageChunkSchema } = await import('ai');
  const chunks = parseJsonEventStream({ stream: b, schema: uiMessageChunkSchema }).pipeThrough(
    new TransformStream<{ success: boolean; value?: unknown }, AiChunk>({
      transform(parsed, controller) {
        if (parsed.success) controller.enqueue(parsed.value as AiChunk);
      },
    }),
  );
  let last: UIMessage | undefined;
  for await (const message of readUIMessageStream({ stream: chunks, onError: () => undefined }))
    last = message;
  await recorded;
  await Promise.all(log.pending);
  expect(log.invalid).toEqual([]);
  return { chunks: log.chunks, message: last };
}

describe('retraction in the UI message stream', () => {
  it('a rewritten answer: the streamed text part is withdrawn, the rewrite follows', async () => {
    const { chunks, message } = await ask('s-rewrite', 'the password please');
    const streamed = chunks
      .filter((c) => c.type === 'text-delta')
      .map((c) => c.delta)
      .join('');
    expect(streamed).toContain('hunter');
    const retract = chunks.find((c) => c.type === 'data-adk-retract') as { data: { textId: string } };
    expect(retract.data).toMatchObject({ guardrail: 'secrets' });
    // The withdrawn text part ended right before it.
    const at = chunks.indexOf(retract);
    expect(chunks[at - 1]).toEqual({ type: 'text-end', id: retract.data.textId });
    expect(shown(message)).toEqual(['The password is [redacted], keep it safe.']);
    expect(message?.parts.map((p) => p.type)).toEqual(['step-start', 'text', 'data-adk-retract', 'text']);
    expect(chunks.at(-1)).toMatchObject({ type: 'finish' });
  });

  it('a tripped answer: the streamed text part is withdrawn and the error told', async () => {
    const { chunks, message } = await ask('s-trip', 'something forbidden');
    expect(chunks.some((c) => c.type === 'text-delta')).toBe(true);
    const types = chunks.map((c) => c.type);
    expect(types.indexOf('data-adk-retract')).toBeLessThan(types.indexOf('error'));
    expect(chunks.find((c) => c.type === 'data-adk-retract')).toMatchObject({
      data: { guardrail: 'secrets', reason: 'forbidden topic' },
    });
    expect(shown(message)).toEqual([]);
    expect(chunks.at(-1)).toMatchObject({ type: 'finish', finishReason: 'error' });
  });
});
