// Live test against the real Anthropic API. Opt-in: runs only when ANTHROPIC_API_KEY is set.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Claude } from './index.js';

const key = process.env.ANTHROPIC_API_KEY;
const modelName = process.env.CLAUDE_E2E_MODEL ?? 'claude-haiku-4-5';
if (!key) console.log('[models-claude e2e] skipped: set ANTHROPIC_API_KEY to run live tests.');

describe.skipIf(!key)('Claude live', () => {
  const model = new Claude(modelName, { maxTokens: 256 });
  const contents = [{ role: 'user' as const, parts: [{ text: 'Reply with the single word: pong' }] }];

  it('answers, streamed and not', async () => {
    for (const stream of [false, true]) {
      let last: string | undefined;
      for await (const r of model.generate({ model: modelName, contents, config: {} }, { stream }))
        if (!r.partial) last = r.content?.parts.map((p) => p.text ?? '').join('');
      expect(last?.toLowerCase()).toContain('pong');
    }
  }, 60_000);

  it('calls a tool (streamed input_json_delta)', async () => {
    const tools = [
      {
        name: 'get_weather',
        description: 'Weather for a city',
        parameters: z.toJSONSchema(z.object({ city: z.string() })),
      },
    ];
    let call: unknown;
    for await (const r of model.generate(
      {
        model: modelName,
        contents: [{ role: 'user', parts: [{ text: 'What is the weather in Paris?' }] }],
        tools,
        config: { toolChoice: 'required' },
      },
      { stream: true },
    ))
      if (!r.partial) call = r.content?.parts.find((p) => p.functionCall)?.functionCall;
    expect(call).toMatchObject({ name: 'get_weather', args: { city: expect.stringMatching(/paris/i) } });
  }, 60_000);
});
