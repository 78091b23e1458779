import { describe, expect, it } from 'vitest';
import {
  contentText,
  type Event,
  InMemorySessionService,
  LlmAgent,
  llmSummarizer,
  Runner,
  userContent,
} from '../index.js';
import { ScriptedModel } from '../testing/index.js';

describe('compaction after a rewind', () => {
  it('summarizes only the visible history: rewound turns never reach the summary', async () => {
    const summarizer = new ScriptedModel({ respond: () => 'SUMMARY' });
    const model = new ScriptedModel({ respond: (req) => `reply to ${contentText(req.contents.at(-1))}` });
    const sessionService = new InMemorySessionService();
    const agent = new LlmAgent({
      name: 'a',
      model,
      contextCompression: llmSummarizer({ model: summarizer, triggerEvents: 6, keepRecentEvents: 2 }),
    });
    const runner = new Runner({ appName: 'app', agent, sessionService, autoCreateSession: true });
    const send = async (text: string) => {
      const out: Event[] = [];
      for await (const e of runner.run({ userId: 'u', sessionId: 's', newMessage: userContent(text) }))
        out.push(e);
      return out;
    };
    await send('alpha');
    const secret = await send('SECRET plan');
    await runner.rewind({
      userId: 'u',
      sessionId: 's',
      rewindBeforeInvocationId: secret[0]?.invocationId ?? '',
    });
    for (const text of ['beta', 'gamma', 'delta']) await send(text);
    expect(summarizer.requests.length).toBeGreaterThan(0);
    const summarized = summarizer.requests.flatMap((r) => r.contents.map((c) => contentText(c))).join('\n');
    expect(summarized).toContain('alpha');
    expect(summarized).not.toContain('SECRET');
    for (const r of model.requests.slice(2))
      expect(r.contents.map((c) => contentText(c)).join('\n')).not.toContain('SECRET');
  });
});
