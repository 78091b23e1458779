import { modelCapabilities } from '@adk/core';
import { describe, expect, it } from 'vitest';
import { Claude, claudeModelId, claudeModelProfile } from './index.js';

describe('Claude capabilities', () => {
  it('declares no response schema with tools (adk-python), the thinking style per family and server tools', () => {
    expect(modelCapabilities(new Claude('claude-opus-4-7'))).toEqual({
      responseSchemaWithTools: false,
      thinking: 'adaptive',
      parallelToolCalls: true,
      builtInTools: ['webSearch', 'webFetch', 'codeExecution'],
    });
    expect(new Claude('claude-sonnet-4-6').capabilities.thinking).toBe('adaptive');
    expect(new Claude('claude-sonnet-4-5-20250929').capabilities.thinking).toBe('budget');
    expect(new Claude('claude-3-7-sonnet-latest').capabilities.thinking).toBe('budget');
    expect(new Claude('claude-3-5-haiku-latest').capabilities.thinking).toBe('none');
  });

  it('reads the model id as Bedrock, Vertex AI and the registry spell it', () => {
    expect(claudeModelId('us.anthropic.claude-opus-4-6-v1:0')).toBe('claude-opus-4-6');
    expect(claudeModelId('anthropic.claude-sonnet-4-5-20250929-v1:0')).toBe('claude-sonnet-4-5-20250929');
    expect(claudeModelId('claude-sonnet-4-5@20250929')).toBe('claude-sonnet-4-5');
    expect(claudeModelId('anthropic/claude-haiku-4-5')).toBe('claude-haiku-4-5');
    expect(claudeModelProfile('us.anthropic.claude-opus-4-6-v1:0').adaptiveThinking).toBe(true);
  });

  it('gives a model newer than the table the newest request profile', () => {
    expect(claudeModelProfile('claude-opus-5')).toMatchObject({
      adaptiveThinking: true,
      budgetThinking: false,
    });
  });
});
