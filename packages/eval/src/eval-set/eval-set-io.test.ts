import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  DEFAULT_EVAL_CONFIG,
  EvalFormatError,
  EvalStatus,
  LocalEvalSetResultsManager,
  LocalEvalSetsManager,
  loadEvalConfig,
  loadEvalSetFile,
  metricsFromConfig,
  parseEvalConfig,
  parseEvalSet,
  parseEvalSetResult,
  serializeEvalSet,
  serializeEvalSetResult,
  toCamelKeys,
} from '../index.js';

const fixture = (name: string) => new URL(`../__fixtures__/${name}`, import.meta.url).pathname;
const json = (name: string) => JSON.parse(readFileSync(fixture(name), 'utf8')) as unknown;
const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

describe('EvalSet JSON (adk-python format)', () => {
  it('round-trips a snake_case file exactly as adk-python writes it', () => {
    const original = json('adk-python-sample.evalset.json');
    const set = parseEvalSet(original);
    expect(serializeEvalSet(set)).toEqual(original);
  });

  it('reads camelCase (the HTTP shape) to the same eval set, and writes it back in camelCase', () => {
    const snake = parseEvalSet(json('adk-python-sample.evalset.json'));
    const camelJson = serializeEvalSet(snake, { keys: 'camel' });
    expect(JSON.stringify(camelJson)).not.toContain('eval_cases');
    expect(parseEvalSet(camelJson)).toEqual(snake);
    expect(serializeEvalSet(parseEvalSet(camelJson), { keys: 'camel' })).toEqual(camelJson);
  });

  it('keeps user data as written: tool args, tool responses and state keep their own key spelling', () => {
    const set = parseEvalSet(json('adk-python-sample.evalset.json'));
    const first = set.evalCases[0];
    expect(first?.sessionInput?.state).toEqual({ homeAirport: 'SFO', loyalty_tier: 'gold' });
    const data = first?.conversation?.[0]?.intermediateData;
    expect(data && 'toolUses' in data ? data.toolUses[0] : undefined).toEqual({
      id: 'call-1',
      name: 'search_flights',
      args: { destination_code: 'LAX', maxPrice: 150 },
    });
    expect(data && 'toolUses' in data ? data.intermediateResponses : undefined).toEqual([
      ['flight_agent', [{ text: 'Searching flights.' }]],
    ]);
    expect(first?.conversation?.[0]?.rubrics?.[0]?.rubricContent.textProperty).toBe(
      'The agent confirms the flight number.',
    );
    expect(set.evalCases[1]?.conversationScenario?.userPersona).toBe('NOVICE');
    const events = set.evalCases[2]?.conversation?.[0]?.intermediateData;
    expect(
      events && 'invocationEvents' in events ? events.invocationEvents[1]?.content?.parts[0] : undefined,
    ).toEqual({
      functionResponse: { id: 'c1', name: 'get_weather', response: { sky_state: 'sunny' } },
    });
  });

  it('applies adk-python defaults: missing timestamps are 0, missing state is {}, missing call ids are empty', () => {
    const set = parseEvalSet(json('passing.evalset.json'));
    expect(set.creationTimestamp).toBe(0);
    const c = set.evalCases[1];
    expect(c?.creationTimestamp).toBe(0);
    expect(c?.conversation?.[0]?.creationTimestamp).toBe(0);
    const data = c?.conversation?.[0]?.intermediateData;
    expect(data && 'toolUses' in data ? data.toolUses[0]?.id : undefined).toBe('');
  });

  it('converts a legacy .test.json the way adk-python does', async () => {
    const set = await loadEvalSetFile(fixture('legacy.test.json'));
    expect(set.evalSetId).toBe('legacy');
    expect(set.name).toBe('legacy');
    const c = set.evalCases[0];
    expect(c?.evalId).toBe('roll_twice');
    expect(c?.sessionInput).toEqual({ appName: 'hello_world', userId: 'user', state: { favorite: 7 } });
    expect(c?.conversation).toHaveLength(2);
    const second = c?.conversation?.[1];
    expect(second?.userContent).toEqual({ role: 'user', parts: [{ text: 'Roll a 17 sided die twice' }] });
    expect(second?.finalResponse).toEqual({ role: 'model', parts: [{ text: 'I rolled 13 and 4.' }] });
    expect(second?.intermediateData).toEqual({
      toolUses: [
        { id: '', name: 'roll_die', args: { sides: 17 } },
        { id: '', name: 'roll_die', args: { sides: 17 } },
      ],
      toolResponses: [],
      intermediateResponses: [['dice_helper', [{ text: 'Rolling now.' }]]],
    });
    expect(second?.invocationId).not.toBe('');
  });

  it('rejects a case with both or neither of conversation and conversation_scenario', () => {
    expect(() => parseEvalSet({ eval_set_id: 's', eval_cases: [{ eval_id: 'x' }] })).toThrow(EvalFormatError);
    expect(() =>
      parseEvalSet({
        eval_set_id: 's',
        eval_cases: [
          {
            eval_id: 'x',
            conversation: [],
            conversation_scenario: { starting_prompt: 'hi', conversation_plan: 'p' },
          },
        ],
      }),
    ).toThrow(/Exactly one of conversation and conversation_scenario/);
    expect(() => parseEvalSet({ nope: 1 })).toThrow(/Not an eval set/);
  });

  it('treats null fields as absent, like pydantic Optional', () => {
    const set = parseEvalSet({
      eval_set_id: 's',
      description: null,
      eval_cases: [
        { eval_id: 'x', conversation: [{ user_content: { parts: [{ text: 'hi' }] }, final_response: null }] },
      ],
    });
    expect(set.description).toBeUndefined();
    expect(set.evalCases[0]?.conversation?.[0]?.finalResponse).toBeUndefined();
  });
});

describe('test_config.json', () => {
  it('reads thresholds and criteria in snake_case, keeping metric names', async () => {
    const config = await loadEvalConfig(fixture('test_config.json'));
    expect(metricsFromConfig(config)).toEqual([
      {
        metricName: 'tool_trajectory_avg_score',
        threshold: 1,
        criterion: { threshold: 1, matchType: 'IN_ORDER' },
      },
      { metricName: 'response_match_score', threshold: 0.7, criterion: { threshold: 0.7 } },
      {
        metricName: 'final_response_match_v2',
        threshold: 0.5,
        criterion: { threshold: 0.5, judgeModelOptions: { judgeModel: 'judge-model', numSamples: 3 } },
      },
    ]);
  });

  it('defaults to adk-python criteria when there is no file, and accepts camelCase and enum spellings', async () => {
    expect(await loadEvalConfig(join(tmpdir(), 'does-not-exist.json'))).toBe(DEFAULT_EVAL_CONFIG);
    const config = parseEvalConfig({
      criteria: { tool_trajectory_avg_score: { threshold: 0.5, matchType: 'any-order' }, custom_thing: 0.2 },
      customMetrics: { custom_thing: { codeConfig: { name: 'my.module.fn' } } },
    });
    expect(config.criteria.tool_trajectory_avg_score).toEqual({ threshold: 0.5, matchType: 'ANY_ORDER' });
    expect(metricsFromConfig(config)[1]).toEqual({
      metricName: 'custom_thing',
      threshold: 0.2,
      criterion: { threshold: 0.2 },
      customFunctionPath: 'my.module.fn',
    });
    expect(() => parseEvalConfig({ criteria: { x: { threshold: 1, match_type: 'SOMETIMES' } } })).toThrow(
      /match_type/,
    );
  });
});

describe('EvalSetResult and local storage', () => {
  const result = {
    evalSetResultId: 'app_set_1.5',
    evalSetResultName: 'app_set_1.5',
    evalSetId: 'set',
    creationTimestamp: 1.5,
    evalCaseResults: [
      {
        evalSetFile: 'set',
        evalSetId: 'set',
        evalId: 'c1',
        finalEvalStatus: EvalStatus.PASSED,
        evalMetricResults: [],
        overallEvalMetricResults: [
          {
            metricName: 'response_match_score',
            threshold: 0.8,
            score: 0.9,
            evalStatus: EvalStatus.PASSED,
            details: {},
          },
        ],
        evalMetricResultPerInvocation: [],
        sessionId: 's1',
        userId: 'u',
      },
    ],
  };

  it('serializes in snake_case with integer statuses and reads it back', () => {
    const out = serializeEvalSetResult(result) as Record<string, unknown>;
    expect(out.eval_set_result_id).toBe('app_set_1.5');
    expect((out.eval_case_results as Record<string, unknown>[])[0]?.final_eval_status).toBe(1);
    expect(parseEvalSetResult(out)).toEqual(result);
    expect(parseEvalSetResult(serializeEvalSetResult(result, { keys: 'camel' }))).toEqual(result);
  });

  it('stores results like adk-python (a JSON string in .adk/eval_history) and reads them back', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'adk-eval-'));
    dirs.push(dir);
    const manager = new LocalEvalSetResultsManager(dir);
    const path = await manager.save('app', result);
    expect(path).toBe(join(dir, 'app', '.adk', 'eval_history', 'app_set_1.5.evalset_result.json'));
    const stored = JSON.parse(await readFile(path, 'utf8')) as unknown;
    expect(typeof stored).toBe('string');
    expect(toCamelKeys(JSON.parse(stored as string))).toMatchObject({ evalSetResultId: 'app_set_1.5' });
    expect(await manager.list('app')).toEqual(['app_set_1.5']);
    expect(await manager.get('app', 'app_set_1.5')).toEqual(result);
    await expect(manager.get('app', 'nope')).rejects.toThrow(/not found/);
  });

  it('manages eval set files: create, add/update/delete cases, list', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'adk-eval-'));
    dirs.push(dir);
    const sets = new LocalEvalSetsManager(dir);
    await expect(sets.list('app')).rejects.toThrow(/not found/);
    await expect(sets.create('app', 'bad id')).rejects.toThrow(/Invalid Eval Set ID/);
    await sets.create('app', 'smoke');
    await expect(sets.create('app', 'smoke')).rejects.toThrow(/already exists/);
    const evalCase = parseEvalSet(json('passing.evalset.json')).evalCases[0];
    if (!evalCase) throw new Error('fixture');
    await sets.addCase('app', 'smoke', evalCase);
    await expect(sets.addCase('app', 'smoke', evalCase)).rejects.toThrow(/already exists/);
    expect(await sets.list('app')).toEqual(['smoke']);
    expect(await sets.getCase('app', 'smoke', 'paris')).toEqual(evalCase);
    const file = JSON.parse(await readFile(sets.path('app', 'smoke'), 'utf8')) as Record<string, unknown>;
    expect(Object.keys(file)).toContain('eval_cases');
    await sets.updateCase('app', 'smoke', { ...evalCase, finalSessionState: { done: true } });
    expect((await sets.getCase('app', 'smoke', 'paris'))?.finalSessionState).toEqual({ done: true });
    await sets.deleteCase('app', 'smoke', 'paris');
    expect((await sets.get('app', 'smoke'))?.evalCases).toEqual([]);
    await expect(sets.deleteCase('app', 'smoke', 'paris')).rejects.toThrow(/not found/);
  });
});
