import { describe, expect, it } from 'vitest';
import { type ContextCompressor, InMemorySessionService, LlmAgent, Runner, userContent } from '../index.js';
import { ScriptedModel } from '../testing/index.js';

function asking(name: string, options: Record<string, unknown>): ContextCompressor {
  return { name, compress: ({ contents }) => ({ contents, providerOptions: { vendor: options } }) };
}

describe('compressors that ask the provider to compress', () => {
  it('merge their provider options into the request, under the request’s own', async () => {
    const model = new ScriptedModel({ respond: () => 'ok' });
    const agent = new LlmAgent({
      name: 'a',
      model,
      generateConfig: { providerOptions: { vendor: { mine: 1, shared: 'agent' } } },
      contextCompression: [
        asking('first', { first: true, shared: 'first' }),
        asking('second', { second: true, first: false }),
      ],
    });
    const runner = new Runner({
      appName: 'app',
      agent,
      sessionService: new InMemorySessionService(),
      autoCreateSession: true,
    });
    for await (const _ of runner.run({ userId: 'u', sessionId: 's', newMessage: userContent('hi') })) {
      // drain
    }
    expect(model.requests[0]?.config.providerOptions).toEqual({
      vendor: { first: false, second: true, mine: 1, shared: 'agent' },
    });
    expect(model.requests[0]?.contents).toHaveLength(1);
    // The agent's own config object is left as it was.
    expect(agent.generateConfig?.providerOptions).toEqual({ vendor: { mine: 1, shared: 'agent' } });
  });
});
