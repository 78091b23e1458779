import { modelCapabilities } from '@adk/core';
import { describe, expect, it } from 'vitest';
import { Gemini } from './index.js';

const vertex = { project: 'p', location: 'us-central1', accessToken: 't' };

describe('Gemini capabilities', () => {
  it('combines a response schema with tools only on Vertex AI with Gemini 2 or later (as adk-python)', () => {
    expect(new Gemini('gemini-2.5-flash', { vertexai: vertex }).capabilities.responseSchemaWithTools).toBe(
      true,
    );
    expect(
      new Gemini('gemini-3-pro-preview', { vertexai: vertex }).capabilities.responseSchemaWithTools,
    ).toBe(true);
    expect(new Gemini('gemini-early-exp', { vertexai: vertex }).capabilities.responseSchemaWithTools).toBe(
      true,
    );
    expect(new Gemini('gemini-1.5-pro', { vertexai: vertex }).capabilities.responseSchemaWithTools).toBe(
      false,
    );
    expect(new Gemini('gemini-2.5-flash', { apiKey: 'k' }).capabilities.responseSchemaWithTools).toBe(false);
    expect(new Gemini('gemma-3-27b-it', { vertexai: vertex }).capabilities.responseSchemaWithTools).toBe(
      false,
    );
  });

  it('declares the thinking style per generation, parallel calls and the built-in tools', () => {
    expect(modelCapabilities(new Gemini('gemini-3-flash-preview'))).toEqual({
      responseSchemaWithTools: false,
      thinking: 'effort',
      parallelToolCalls: true,
      builtInTools: ['googleSearch', 'urlContext', 'codeExecution'],
    });
    expect(new Gemini('models/gemini-2.5-pro').capabilities.thinking).toBe('budget');
    expect(new Gemini('gemini-2.0-flash').capabilities.thinking).toBe('none');
    expect(new Gemini('gemma-3-4b-it').capabilities).toMatchObject({ thinking: 'none', builtInTools: [] });
  });

  it('lets options override what the family declares', () => {
    const model = new Gemini('gemini-2.5-flash', { capabilities: { responseSchemaWithTools: true } });
    expect(model.capabilities).toMatchObject({ responseSchemaWithTools: true, thinking: 'budget' });
  });
});
