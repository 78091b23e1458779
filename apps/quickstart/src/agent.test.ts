import { runAgent } from '@adk/core';
import { describe, expect, it } from 'vitest';
import { createAgent, offlineModel } from './agent.js';

describe('quickstart agent', () => {
  it('answers a weather question through the tool with the offline model', async () => {
    const result = await runAgent(createAgent(offlineModel()), 'What is the weather in Paris?');
    expect(result.text).toBe('The weather in Paris is sunny, 24 °C.');
    expect(result.session.state['user:last_city']).toBe('Paris');
  });
});

describe('provider selection', () => {
  it('uses the offline model without keys and a registered provider when a key is set', async () => {
    const { pickProviderModel } = await import('./providers.js');
    expect(pickProviderModel({})).toBeUndefined();
    const live = pickProviderModel({ ANTHROPIC_API_KEY: 'k' });
    expect(live?.model).toBe('claude-sonnet-4-5');
    expect(live?.registry.resolve('claude-sonnet-4-5').model).toBe('claude-sonnet-4-5');
  });
});
