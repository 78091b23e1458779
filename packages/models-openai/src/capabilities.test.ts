import { modelCapabilities } from '@adk/core';
import { describe, expect, it } from 'vitest';
import { OpenAIChat } from './index.js';

describe('OpenAI Chat Completions capabilities', () => {
  it('declares Structured Outputs with tools and reasoning effort per OpenAI model family', () => {
    const gpt5 = new OpenAIChat('gpt-5-mini', { apiKey: 'k' });
    expect(modelCapabilities(gpt5)).toEqual({
      responseSchemaWithTools: true,
      thinking: 'effort',
      parallelToolCalls: true,
      builtInTools: [],
    });
    expect(new OpenAIChat('gpt-4o-mini', { apiKey: 'k' }).capabilities).toMatchObject({
      responseSchemaWithTools: true,
      thinking: 'none',
    });
    expect(new OpenAIChat('gpt-3.5-turbo', { apiKey: 'k' }).capabilities.responseSchemaWithTools).toBe(false);
    expect(new OpenAIChat('o1-mini', { apiKey: 'k' }).capabilities).toMatchObject({
      responseSchemaWithTools: false,
      parallelToolCalls: false,
    });
  });

  it('gives other OpenAI-compatible servers the safe defaults unless told otherwise', () => {
    const local = new OpenAIChat('llama3.1', { baseURL: 'http://127.0.0.1:11434/v1', apiKey: null });
    expect(modelCapabilities(local).responseSchemaWithTools).toBe(false);
    const told = new OpenAIChat('gpt-4o', {
      baseURL: 'http://127.0.0.1:4000/v1',
      capabilities: { responseSchemaWithTools: true },
    });
    expect(told.capabilities.responseSchemaWithTools).toBe(true);
  });
});
