import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type Content,
  type Event,
  FunctionTool,
  InMemorySessionService,
  LlmAgent,
  llmSummarizer,
  Runner,
  slidingWindow,
  tokenBudget,
  truncate,
  userContent,
} from '../index.js';
import { functionCallResponse, ScriptedModel } from '../testing/index.js';

const lookup = new FunctionTool({
  name: 'lookup',
  description: '',
  parameters: z.object({ q: z.string() }),
  execute: ({ q }) => ({ answer: `about ${q}` }),
});

/** Each turn: user → model calls lookup → response → model answers (4 contents a turn). */
function turnModel() {
  return new ScriptedModel({
    respond: (req) => {
      const last = req.contents.at(-1);
      if (last?.parts[0]?.functionResponse) return `answer ${req.contents.length}`;
      return functionCallResponse('lookup', { q: last?.parts[0]?.text ?? '' });
    },
  });
}

async function talk(runner: Runner, turns: number) {
  for (let i = 1; i <= turns; i++) {
    for await (const _ of runner.run({
      userId: 'u',
      sessionId: 's',
      newMessage: userContent(`question ${i}`),
    })) {
      // drain
    }
  }
}

const roles = (contents: Content[]) =>
  contents.map((c) =>
    c.parts[0]?.functionCall ? 'call' : c.parts[0]?.functionResponse ? 'response' : c.role,
  );

function pairsIntact(contents: Content[]): boolean {
  const calls = new Set<string>();
  for (const c of contents) {
    for (const p of c.parts) {
      if (p.functionCall) calls.add(p.functionCall.id);
      if (p.functionResponse && !calls.has(p.functionResponse.id)) return false;
    }
  }
  return true;
}

describe('context compression through the Runner', () => {
  it('truncate keeps the newest contents and never starts with an orphaned function response', async () => {
    const model = turnModel();
    const agent = new LlmAgent({
      name: 'a',
      model,
      tools: [lookup],
      contextCompression: truncate({ maxContents: 5 }),
    });
    const runner = new Runner({
      appName: 'app',
      agent,
      sessionService: new InMemorySessionService(),
      autoCreateSession: true,
    });
    await talk(runner, 3);
    // Request 6 (turn 3, after the tool) would have 11 contents; the 5 newest start with a response,
    // so its call is kept too.
    const last = model.requests.at(-1)!.contents;
    expect(last.length).toBe(6);
    expect(roles(last).slice(0, 2)).toEqual(['call', 'response']);
    for (const r of model.requests) expect(pairsIntact(r.contents)).toBe(true);
  });

  it('slidingWindow keeps whole turns', async () => {
    const model = turnModel();
    const agent = new LlmAgent({ name: 'a', model, tools: [lookup] });
    const runner = new Runner({
      appName: 'app',
      agent,
      sessionService: new InMemorySessionService(),
      autoCreateSession: true,
      contextCompression: slidingWindow({ maxTurns: 2 }),
    });
    await talk(runner, 4);
    const last = model.requests.at(-1)!.contents;
    expect(roles(last)).toEqual(['user', 'call', 'response', 'model', 'user', 'call', 'response']);
    expect(last[0]?.parts[0]?.text).toBe('question 3');
  });

  it('tokenBudget keeps the newest contents within the budget, by estimate or by the model’s count', async () => {
    const model = turnModel();
    const agent = new LlmAgent({
      name: 'a',
      model,
      tools: [lookup],
      contextCompression: tokenBudget({ maxTokens: 40 }),
    });
    const runner = new Runner({
      appName: 'app',
      agent,
      sessionService: new InMemorySessionService(),
      autoCreateSession: true,
    });
    await talk(runner, 5);
    for (const r of model.requests) expect(pairsIntact(r.contents)).toBe(true);
    expect(model.requests.at(-1)!.contents.length).toBeLessThan(19);

    const counted: number[] = [];
    const model2 = turnModel();
    const agent2 = new LlmAgent({
      name: 'b',
      model: model2,
      tools: [lookup],
      contextCompression: tokenBudget({
        maxTokens: 3,
        keepNewest: 2,
        countTokens: (contents) => {
          counted.push(contents.length);
          return contents.length;
        },
      }),
    });
    const runner2 = new Runner({
      appName: 'app',
      agent: agent2,
      sessionService: new InMemorySessionService(),
      autoCreateSession: true,
    });
    await talk(runner2, 3);
    expect(counted.length).toBeGreaterThan(0);
    for (const r of model2.requests) {
      expect(r.contents.length).toBeLessThanOrEqual(3);
      expect(pairsIntact(r.contents)).toBe(true);
    }
  });

  it('llmSummarizer commits a compaction event; later requests use the summary while raw events stay', async () => {
    const summarizer = new ScriptedModel({
      respond: (req) => `SUMMARY(${req.contents[0]?.parts[0]?.text?.split('\n').length} lines)`,
    });
    const model = new ScriptedModel({ respond: (req) => `reply to ${req.contents.at(-1)?.parts[0]?.text}` });
    const sessionService = new InMemorySessionService();
    const agent = new LlmAgent({
      name: 'a',
      model,
      contextCompression: llmSummarizer({ model: summarizer, triggerEvents: 6, keepRecentEvents: 2 }),
    });
    const runner = new Runner({ appName: 'app', agent, sessionService, autoCreateSession: true });
    await talk(runner, 4);
    expect(summarizer.requests).toHaveLength(1);
    const session = await sessionService.getSession({ appName: 'app', userId: 'u', sessionId: 's' });
    const events = session!.events;
    const compaction = events.find((e: Event) => e.actions.compaction);
    expect(compaction?.actions.compaction?.compactedContent.parts[0]?.text).toBe('SUMMARY(5 lines)');
    // all raw events are still in the session
    expect(events.filter((e) => e.content).length).toBe(8);
    const last = model.requests.at(-1)!.contents;
    expect(last[0]?.parts.map((p) => p.text)).toEqual([
      'Summary of the earlier conversation:',
      'SUMMARY(5 lines)',
    ]);
    expect(last.slice(1).map((c) => c.parts[0]?.text)).toEqual(['reply to question 3', 'question 4']);
  });
});
