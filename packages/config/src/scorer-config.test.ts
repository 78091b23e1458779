import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  defaultModelRegistry,
  defineScorer,
  type Event,
  InMemoryScoreStore,
  InMemorySessionService,
  isAdkError,
  Runner,
  ScorersPlugin,
  type ScorerTurn,
  scorersOf,
  userContent,
} from '@adk/core';
import { ScriptedModel } from '@adk/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadAgentFromConfig } from './index.js';

// `scorers:` in an agent's YAML: a function by code reference, an @adk/eval metric by name, an
// LLM judge by rubric; malformed entries are refused with the file and YAML path.

const temp = mkdtempSync(join(tmpdir(), 'adk-scorer-config-'));
afterAll(() => rmSync(temp, { recursive: true, force: true }));
let count = 0;
const references = {
  'scores.length': (turn: ScorerTurn) => turn.responseText.length,
  'scores.only_long': (turn: ScorerTurn) => turn.responseText.length > 3,
  'scores.ready_made': defineScorer({ name: 'ready_made', version: '7', score: () => 0.25 }),
  'scores.not_a_function': 42,
};
async function load(lines: string[]) {
  const file = join(temp, `agent${++count}.yaml`);
  writeFileSync(file, ['name: a', 'model: judge-agent', 'instruction: x', ...lines].join('\n'));
  return loadAgentFromConfig(file, { references });
}

beforeAll(() => {
  defaultModelRegistry.register({
    name: 'scorer-config-test',
    matches: (m) => m.startsWith('judge-'),
    create: (m) =>
      new ScriptedModel({
        model: m,
        respond: (request) => {
          const prompt = request.contents[0]?.parts[0]?.text ?? '';
          if (prompt.includes('Rubric:')) return '{"score": 0.9, "reason": "on topic"}';
          if (prompt.includes('safety reviewer')) return '{"rationale": "fine", "verdict": "safe"}';
          return 'hello';
        },
      }),
  });
});

describe('scorers: in an agent config', () => {
  it('declares a function, an eval metric and a rubric judge; they score the agent’s turns', async () => {
    const agent = await load([
      'scorers:',
      '  - code: { name: scores.length }',
      '    sample_rate: 1',
      '    version: "3"',
      '    filter: { name: scores.only_long }',
      '  - code: { name: scores.ready_made }',
      '  - metric: safety_v1',
      '    judge_model: judge-safety',
      '  - name: on_topic',
      '    rubric: The answer stays on topic.',
      '    judge_model: judge-rubric',
      '    timeout_ms: 5000',
    ]);
    const scorers = scorersOf(agent);
    expect(scorers.map((s) => [s.name, s.version])).toEqual([
      ['length', '3'],
      ['ready_made', '7'],
      ['safety_v1', '1'],
      ['on_topic', '1'],
    ]);
    const store = new InMemoryScoreStore();
    const plugin = new ScorersPlugin({ store });
    const runner = new Runner({
      appName: 'app',
      agent,
      sessionService: new InMemorySessionService(),
      autoCreateSession: true,
      plugins: [plugin],
    });
    const events: Event[] = [];
    for await (const e of runner.run({ userId: 'u', sessionId: 's', newMessage: userContent('hi') }))
      events.push(e);
    await plugin.flush();
    const byName = Object.fromEntries((await store.list({ appName: 'app' })).map((s) => [s.scorerName, s]));
    expect(byName.length).toMatchObject({ status: 'ok', score: 5, scorerVersion: '3' });
    expect(byName.ready_made).toMatchObject({ status: 'ok', score: 0.25 });
    expect(byName.safety_v1).toMatchObject({ status: 'ok', score: 1 });
    expect(byName.on_topic).toMatchObject({ status: 'ok', score: 0.9, reason: 'on topic' });
  });

  it('refuses malformed scorers with the YAML path', async () => {
    const cases: [string[], RegExp][] = [
      [['scorers:', '  - sample_rate: 0.5'], /scorers/],
      [['scorers:', '  - code: { name: scores.length }', '    metric: safety_v1'], /scorers/],
      [['scorers:', '  - code: { name: scores.length }', '    sample_rate: 2'], /sample_rate/],
      [['scorers:', '  - code: { name: scores.length }', '    colour: red'], /colour/],
      [['scorers:', '  - code: { name: scores.not_a_function }'], /a score function or a Scorer/],
      [['scorers:', '  - name: r', '    rubric: be nice'], /judge_model/],
      [['scorers:', '  - rubric: be nice', '    judge_model: judge-x'], /scorer name/],
      [['scorers:', '  - metric: no_such_metric'], /Unknown eval metric/],
      [
        ['scorers:', '  - name: r', '    rubric: be nice', '    judge_model: unknown-model-x'],
        /No model provider/,
      ],
      [['scorers:', '  - code: { name: scores.length }', '  - code: { name: scores.length }'], /used once/],
      [['scorers: 5'], /scorers/],
    ];
    for (const [lines, message] of cases) {
      const error = await load(lines).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(isAdkError(error, 'AGENT_CONFIG'), lines.join(' / ')).toBe(true);
      expect((error as Error).message, lines.join(' / ')).toMatch(message);
      expect((error as Error).message).toContain(`agent${count}.yaml`);
    }
  });
});
