import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type Event, FunctionTool, InMemorySessionService, LlmAgent, Runner, userContent } from '../index.js';
import { functionCallsResponse, ScriptedModel } from '../testing/index.js';

describe('cancellation', () => {
  it('an abort ends the run at once even when a tool ignores the signal; open calls get cancelled responses', async () => {
    // Long enough that "at once" stays far from it on a loaded machine.
    const TOOL_MS = 4000;
    let finished = 0;
    // Ignores ctx.signal on purpose, and writes state when it finally returns.
    const slow = new FunctionTool({
      name: 'slow',
      description: 'takes its time',
      parameters: z.object({}),
      execute: async (_args, ctx) => {
        await new Promise((resolve) => setTimeout(resolve, TOOL_MS));
        finished++;
        ctx.state.set('late', true);
        return { done: true };
      },
    });
    const fast = new FunctionTool({
      name: 'fast',
      description: '',
      parameters: z.object({}),
      execute: () => ({ ok: true }),
    });
    const agent = new LlmAgent({
      name: 'a',
      model: new ScriptedModel([
        functionCallsResponse([
          { name: 'slow', id: 'c1' },
          { name: 'fast', id: 'c2' },
        ]),
      ]),
      tools: [slow, fast],
    });
    const sessions = new InMemorySessionService();
    const runner = new Runner({ appName: 'app', agent, sessionService: sessions, autoCreateSession: true });
    const controller = new AbortController();
    const started = performance.now();
    const events: Event[] = [];
    for await (const event of runner.run({
      userId: 'u',
      sessionId: 's',
      newMessage: userContent('go'),
      signal: controller.signal,
    })) {
      events.push(event);
      if (event.content?.parts[0]?.functionCall) setTimeout(() => controller.abort(), 30);
    }
    const elapsed = performance.now() - started;
    expect(elapsed).toBeLessThan(TOOL_MS / 2);
    expect(finished).toBe(0);

    const last = events.at(-1);
    expect(last).toMatchObject({ errorCode: 'CANCELLED', interrupted: true });
    const responses = events.flatMap((e) => e.content?.parts.flatMap((p) => p.functionResponse ?? []) ?? []);
    expect(responses.map((r) => [r.id, r.name])).toEqual([
      ['c1', 'slow'],
      ['c2', 'fast'],
    ]);
    for (const r of responses) expect(String(r.response.error)).toMatch(/cancelled/);

    // The late result is discarded: nothing reaches the session once the tool finally returns.
    const before = await sessions.getSession({ appName: 'app', userId: 'u', sessionId: 's' });
    await new Promise((resolve) => setTimeout(resolve, TOOL_MS));
    expect(finished).toBe(1);
    const after = await sessions.getSession({ appName: 'app', userId: 'u', sessionId: 's' });
    expect(after?.events.length).toBe(before?.events.length);
    expect(after?.state.late).toBeUndefined();
    // History stays paired: every call in the session has exactly one response.
    const calls = after?.events.flatMap((e) => e.content?.parts.flatMap((p) => p.functionCall ?? []) ?? []);
    const answered = after?.events.flatMap(
      (e) => e.content?.parts.flatMap((p) => p.functionResponse ?? []) ?? [],
    );
    expect(answered?.map((r) => r.id).sort()).toEqual(calls?.map((c) => c.id).sort());
  });
});
