import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isAdkError, LlmAgent } from '@adk/core';
import { afterAll, describe, expect, it } from 'vitest';
import { loadAgentFromConfig, parseAgentConfig } from './index.js';

const temp = mkdtempSync(join(tmpdir(), 'adk-memory-config-'));
afterAll(() => rmSync(temp, { recursive: true, force: true }));
let count = 0;
async function loadAgentFromConfigText(text: string): Promise<LlmAgent> {
  const file = join(temp, `agent${++count}.yaml`);
  writeFileSync(file, text);
  return (await loadAgentFromConfig(file)) as LlmAgent;
}

describe('memory: in an LlmAgent config', () => {
  it('is off by default; recall is turned on alone, as true or with settings', async () => {
    const plain = await loadAgentFromConfigText('name: a\ninstruction: x\n');
    expect(plain.memory).toBeUndefined();
    const on = await loadAgentFromConfigText('name: a\ninstruction: x\nmemory:\n  recall: true\n');
    expect(on.memory).toEqual({ recall: true });
    const tuned = await loadAgentFromConfigText(
      [
        'name: a',
        'instruction: x',
        'memory:',
        '  recall: { top_k: 3, neighbours: 2, min_score: 0.2, kinds: [fact, turn] }',
      ].join('\n'),
    );
    expect(tuned).toBeInstanceOf(LlmAgent);
    expect(tuned.memory).toEqual({
      recall: { topK: 3, neighbours: 2, minScore: 0.2, kinds: ['fact', 'turn'] },
    });
  });

  it('profile: a template or a code-referenced zod schema, with scope, state key and update mode', async () => {
    const agent = await loadAgentFromConfigText(
      [
        'name: a',
        'instruction: x',
        'memory:',
        '  profile:',
        '    template: "## Name\\n\\n## Boat\\n"',
        '    scope: session',
        '    state_key: about',
        '    update: background',
      ].join('\n'),
    );
    expect(agent.memory?.profile).toEqual({
      template: '## Name\n\n## Boat\n',
      scope: 'session',
      stateKey: 'about',
      update: 'background',
    });
    expect(agent.tools).toHaveLength(0);
    const withTool = await loadAgentFromConfigText(
      'name: a\ninstruction: x\nmemory:\n  profile: { template: "## Name" }\n',
    );
    expect(withTool.tools.map((t) => (t as { name: string }).name)).toEqual(['update_profile']);
  });

  it('malformed memory settings are a typed error naming the path', () => {
    for (const text of [
      'name: a\ninstruction: x\nmemory:\n  recall: { top_k: -1 }\n',
      'name: a\ninstruction: x\nmemory:\n  recall: { kinds: [dream] }\n',
      'name: a\ninstruction: x\nmemory:\n  recall: yes please\n',
      'name: a\ninstruction: x\nmemory:\n  remember_everything: true\n',
      'name: a\ninstruction: x\nmemory: [recall]\n',
      'name: a\ninstruction: x\nmemory:\n  profile: { scope: everyone }\n',
      'name: a\ninstruction: x\nmemory:\n  profile: { update: never }\n',
    ]) {
      let caught: unknown;
      try {
        parseAgentConfig(text, 'bad.yaml');
      } catch (error) {
        caught = error;
      }
      expect(isAdkError(caught), text).toBe(true);
      expect((caught as { code: string }).code).toBe('AGENT_CONFIG');
      expect(String((caught as Error).message)).toContain('memory');
    }
  });

  it('observe and facts: true for the defaults, or their settings; observe adds the recall tool', async () => {
    const on = await loadAgentFromConfigText(
      'name: a\ninstruction: x\nmemory:\n  observe: true\n  facts: true\n',
    );
    expect(on.memory).toEqual({ observe: {}, facts: {} });
    expect(on.tools.map((t) => (t as { name: string }).name)).toEqual(['recall']);
    const tuned = await loadAgentFromConfigText(
      [
        'name: a',
        'instruction: x',
        'memory:',
        '  observe:',
        '    model: gemini-2.5-flash',
        '    observe_at_tokens: 8000',
        '    keep_recent_tokens: 1000',
        '    reflect_at_tokens: 12000',
        '    min_chars: 40',
        '    max_attempts: 2',
        '    backoff_ms: 500',
        '    max_backoff_ms: 60000',
        '    instruction: Observe.',
        '    reflect_instruction: Reflect.',
        '  facts: { model: gemini-2.5-flash, context_facts: 10, instruction: Extract. }',
      ].join('\n'),
    );
    expect(tuned.memory).toEqual({
      observe: {
        model: 'gemini-2.5-flash',
        observeAtTokens: 8000,
        keepRecentTokens: 1000,
        reflectAtTokens: 12000,
        minChars: 40,
        maxAttempts: 2,
        backoffMs: 500,
        maxBackoffMs: 60000,
        instruction: 'Observe.',
        reflectInstruction: 'Reflect.',
      },
      facts: { model: 'gemini-2.5-flash', contextFacts: 10, instruction: 'Extract.' },
    });
    const off = await loadAgentFromConfigText('name: a\ninstruction: x\nmemory:\n  observe: false\n');
    expect(off.memory).toEqual({});
    expect(off.tools).toHaveLength(0);
  });

  it('malformed observe and facts settings are a typed error naming the path', () => {
    for (const text of [
      'name: a\ninstruction: x\nmemory:\n  observe: { observe_at_tokens: 0 }\n',
      'name: a\ninstruction: x\nmemory:\n  observe: { observe_at_tokens: lots }\n',
      'name: a\ninstruction: x\nmemory:\n  observe: { keep_recent_tokens: -5 }\n',
      'name: a\ninstruction: x\nmemory:\n  observe: { max_attempts: 0 }\n',
      'name: a\ninstruction: x\nmemory:\n  observe: { summarise: always }\n',
      'name: a\ninstruction: x\nmemory:\n  observe: sometimes\n',
      'name: a\ninstruction: x\nmemory:\n  facts: { context_facts: 2.5 }\n',
      'name: a\ninstruction: x\nmemory:\n  facts: { model: "" }\n',
      'name: a\ninstruction: x\nmemory:\n  facts: [all]\n',
    ]) {
      let caught: unknown;
      try {
        parseAgentConfig(text, 'bad.yaml');
      } catch (error) {
        caught = error;
      }
      expect(isAdkError(caught), text).toBe(true);
      expect((caught as { code: string }).code).toBe('AGENT_CONFIG');
      expect(String((caught as Error).message)).toContain('memory');
    }
  });
});
