import { describe, expect, it } from 'vitest';
import { genAiProviderName } from './gen-ai-provider.js';

describe('genAiProviderName', () => {
  it('names the vendor of bare and registry model names', () => {
    expect(genAiProviderName('gemini-2.5-flash')).toBe('gcp.gemini');
    expect(genAiProviderName('claude-sonnet-4-5')).toBe('anthropic');
    expect(genAiProviderName('gpt-4.1-mini')).toBe('openai');
    expect(genAiProviderName('o3')).toBe('openai');
    expect(genAiProviderName('openai/gpt-4o')).toBe('openai');
    expect(genAiProviderName('ollama/llama3')).toBe('ollama');
    expect(genAiProviderName('vertex/gemini-2.5-pro')).toBe('gcp.vertex_ai');
    expect(genAiProviderName('scripted')).toBeUndefined();
    // Asked again (answered from what was worked out the first time): the same.
    expect(genAiProviderName('scripted')).toBeUndefined();
    expect(genAiProviderName('gpt-4.1-mini')).toBe('openai');
    expect(genAiProviderName(' Claude-Sonnet-4-5 ')).toBe('anthropic');
  });
});
