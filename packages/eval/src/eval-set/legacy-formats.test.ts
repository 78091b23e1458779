import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isAdkError } from '@adk/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { weatherAgent } from '../__fixtures__/weather-agent.js';
import { EvalFormatError, EvalStatus, evaluate, loadEvalSetFile, parseEvalSet } from '../index.js';

// adk-python's two legacy `.test.json` formats: a list of named cases (its LocalEvalSetsManager) and,
// older still, the turns of one conversation (its AgentEvaluator, still used by its integration tests).

const fixture = (name: string) => new URL(`../__fixtures__/${name}`, import.meta.url).pathname;
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'adk-eval-legacy-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function file(name: string, content: unknown): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}

async function formatError(load: Promise<unknown>): Promise<EvalFormatError> {
  const error = await load.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(EvalFormatError);
  expect(isAdkError(error, 'EVAL_FORMAT')).toBe(true);
  return error as EvalFormatError;
}

describe('a legacy list of turns', () => {
  it('is one eval case, named after the file, whose invocations are the turns in order', async () => {
    const set = await loadEvalSetFile(fixture('turns/weather_turns.test.json'));
    expect(set.evalSetId).toBe('weather_turns');
    expect(set.evalCases).toHaveLength(1);
    const [evalCase] = set.evalCases;
    expect(evalCase?.evalId).toBe('weather_turns');
    expect(evalCase?.sessionInput).toBeUndefined();
    expect(evalCase?.conversation).toEqual([
      expect.objectContaining({
        userContent: { role: 'user', parts: [{ text: 'What is the weather in Paris?' }] },
        finalResponse: { role: 'model', parts: [{ text: 'It is sunny and 24 °C in Paris today.' }] },
        intermediateData: {
          toolUses: [{ id: '', name: 'get_weather', args: { city: 'Paris' } }],
          toolResponses: [],
          intermediateResponses: [],
        },
      }),
      expect.objectContaining({
        userContent: { role: 'user', parts: [{ text: 'And in London?' }] },
        finalResponse: { role: 'model', parts: [{ text: 'London has light rain today.' }] },
        intermediateData: expect.objectContaining({
          toolUses: [{ id: '', name: 'get_weather', args: { city: 'London' } }],
        }),
      }),
    ]);
    const ids = evalCase?.conversation?.map((i) => i.invocationId);
    expect(new Set(ids).size).toBe(2);
  });

  it('fills what adk-python leaves optional: no tool use, no reference; tool arguments keep their keys', async () => {
    const set = parseEvalSet([{ query: 'Hi' }, { query: 'Go', expected_tool_use: [{ tool_name: 'go' }] }], {
      evalSetId: 'minimal',
    });
    expect(set.evalCases[0]?.evalId).toBe('minimal');
    expect(set.evalCases[0]?.conversation?.map((i) => [i.finalResponse, i.intermediateData])).toEqual([
      [{ role: 'model', parts: [{ text: '' }] }, expect.objectContaining({ toolUses: [] })],
      [
        { role: 'model', parts: [{ text: '' }] },
        expect.objectContaining({ toolUses: [{ id: '', name: 'go', args: {} }] }),
      ],
    ]);
    const camel = parseEvalSet([
      { query: 'q', expected_tool_use: [{ tool_name: 't', tool_input: { snake_key: 1 } }] },
    ]);
    expect(camel.evalCases[0]?.conversation?.[0]?.intermediateData).toMatchObject({
      toolUses: [{ name: 't', args: { snake_key: 1 } }],
    });
  });

  it('starts from an initial session file, as AgentEvaluator(initial_session_file=…) does', async () => {
    const set = await loadEvalSetFile(fixture('turns/greeting.test.json'), {
      initialSessionFile: fixture('turns/initial.session.json'),
    });
    expect(set.evalCases[0]?.sessionInput).toEqual({
      appName: 'weather_agent',
      userId: 'ada',
      state: { user_name: 'Ada' },
    });
    // An EvalSet file carries its own session input: adk-python refuses an explicit one there too.
    const error = await formatError(
      loadEvalSetFile(fixture('passing.evalset.json'), {
        initialSessionFile: fixture('turns/initial.session.json'),
      }),
    );
    expect(error.message).toContain('applies only to a legacy list of turns');
    const notSession = await file('not-a-session.json', '[1, 2]');
    expect(
      (
        await formatError(
          loadEvalSetFile(fixture('turns/greeting.test.json'), { initialSessionFile: notSession }),
        )
      ).message,
    ).toContain('The initial session is not a JSON object');
  });

  it('names the file, the entry and the field that are wrong', async () => {
    const path = fixture('turns/malformed_turns.test.json');
    const error = await formatError(loadEvalSetFile(path));
    expect(error.message).toBe(
      `${path}: Not an eval set (legacy list of turns {query, expected_tool_use, reference}): ` +
        '[1].expected_tool_use[0].tool_name: Invalid input: expected string, received undefined',
    );
    expect(
      (await formatError(loadEvalSetFile(await file('no-query.test.json', [{ reference: 'x' }])))).message,
    ).toContain('[0].query: Invalid input: expected string, received undefined');
    expect(
      (await formatError(loadEvalSetFile(await file('strings.test.json', ['hello'])))).message,
    ).toContain('[0]: Invalid input: expected object');
    expect(
      (
        await formatError(
          loadEvalSetFile(
            await file('bad-args.test.json', [
              { query: 'q', expected_tool_use: [{ tool_name: 't', tool_input: 3 }] },
            ]),
          ),
        )
      ).message,
    ).toContain('[0].expected_tool_use[0].tool_input: Invalid input: expected record');
  });
});

describe('a legacy list of named cases', () => {
  it('still loads, one case per entry, and a malformed one names the entry and field that are wrong', async () => {
    const set = await loadEvalSetFile(fixture('legacy.test.json'));
    expect(set.evalCases.map((c) => [c.evalId, c.conversation?.length])).toEqual([['roll_twice', 2]]);
    const path = await file('cases.test.json', [
      { name: 'a', data: [{ query: 'q' }] },
      { name: 'b', data: [{}] },
    ]);
    const error = await formatError(loadEvalSetFile(path));
    expect(error.message).toBe(
      `${path}: Not an eval set (legacy list of named cases {name, data, initial_session}): ` +
        '[1].data[0].query: Invalid input: expected string, received undefined',
    );
  });
});

describe('evaluate() on legacy files', () => {
  it('runs a list of turns as one conversation and passes it', async () => {
    const result = await evaluate({
      agent: weatherAgent(),
      evalSets: [fixture('turns/weather_turns.test.json'), fixture('legacy.test.json')],
      progress: false,
    });
    const turns = result.evalSetResults.find((s) => s.evalSetId === 'weather_turns');
    expect(turns?.evalCaseResults).toHaveLength(1);
    const [caseResult] = turns?.evalCaseResults ?? [];
    expect(caseResult?.evalId).toBe('weather_turns');
    expect(caseResult?.finalEvalStatus).toBe(EvalStatus.PASSED);
    expect(caseResult?.evalMetricResultPerInvocation.map((p) => p.actualInvocation.finalResponse)).toEqual([
      expect.objectContaining({
        parts: [expect.objectContaining({ text: 'It is sunny and 24 °C in Paris today.' })],
      }),
      expect.objectContaining({ parts: [expect.objectContaining({ text: 'London has light rain today.' })] }),
    ]);
    expect(caseResult?.overallEvalMetricResults.map((m) => [m.metricName, m.score])).toEqual([
      ['tool_trajectory_avg_score', 1],
      ['response_match_score', 1],
    ]);
    // The named-cases file (a dice agent's) is loaded and run beside it.
    expect(result.evalSetResults.map((s) => s.evalSetId)).toEqual(['weather_turns', 'legacy']);
  });

  it('seeds the session from the initial session file: the greeting uses its state', async () => {
    const greeting = fixture('turns/greeting.test.json');
    const firstAnswer = (result: Awaited<ReturnType<typeof evaluate>>) =>
      result.evalSetResults[0]?.evalCaseResults[0]?.evalMetricResultPerInvocation[0]?.actualInvocation
        .finalResponse?.parts[0]?.text;
    const seeded = await evaluate({
      agent: weatherAgent(),
      evalSets: await loadEvalSetFile(greeting, {
        initialSessionFile: fixture('turns/initial.session.json'),
      }),
      progress: false,
    });
    expect(seeded.passed).toBe(true);
    expect(firstAnswer(seeded)).toBe('Hello Ada, which city?');
    expect(seeded.evalSetResults[0]?.evalCaseResults[0]?.userId).toBe('ada');
    // Without it the agent does not know the name.
    const bare = await evaluate({ agent: weatherAgent(), evalSets: greeting, progress: false });
    expect(firstAnswer(bare)).toBe('Hello there, which city?');
  });

  it('fails with the typed error when a file is malformed', async () => {
    const error = await formatError(
      evaluate({
        agent: weatherAgent(),
        evalSets: fixture('turns/malformed_turns.test.json'),
        progress: false,
      }),
    );
    expect(error.message).toContain('[1].expected_tool_use[0].tool_name');
  });
});
