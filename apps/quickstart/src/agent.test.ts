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
