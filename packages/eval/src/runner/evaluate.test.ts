import {
  FunctionTool,
  type GenerateOptions,
  type Llm,
  LlmAgent,
  type LlmRequest,
  type LlmResponse,
} from '@adk/core';
import { ScriptedModel } from '@adk/core/testing';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ANSWERS, weather, weatherAgent } from '../__fixtures__/weather-agent.js';
import {
  type EvalConfig,
  type EvalSet,
  EvalStatus,
  evaluate,
  exitCodeFor,
  loadEvalConfig,
  loadEvalSetFile,
  type ProgressReporter,
  parseEvalSet,
  renderHtmlReport,
  serializeEvalSetResult,
} from '../index.js';

const fixture = (name: string) => new URL(`../__fixtures__/${name}`, import.meta.url).pathname;
const config: EvalConfig = { criteria: { tool_trajectory_avg_score: 1.0, response_match_score: 0.75 } };

function metric(result: Awaited<ReturnType<typeof evaluate>>, evalId: string, name: string, run = 1) {
  const r = result.evalSetResults
    .flatMap((s) => s.evalCaseResults)
    .find((c) => c.evalId === evalId && c.runNumber === run);
  return r?.overallEvalMetricResults.find((m) => m.metricName === name);
}

describe('evaluate() on the weather agent with a scripted model', () => {
  it('passes the passing set with the scores computed by hand', async () => {
    const result = await evaluate({
      agent: weatherAgent(),
      evalSets: fixture('passing.evalset.json'),
      config,
      progress: false,
    });
    expect(result.passed).toBe(true);
    expect(exitCodeFor(result)).toBe(0);
    expect(result.totals).toEqual({ cases: 2, passedCases: 2, failedCases: 0, runs: 2, passedRuns: 2 });

    // paris: the answer is the reference word for word → ROUGE-1 F = 1; trajectory get_weather(Paris) = expected → 1.
    expect(metric(result, 'paris', 'response_match_score')?.score).toBe(1);
    expect(metric(result, 'paris', 'tool_trajectory_avg_score')?.score).toBe(1);

    // paris_then_london: turn 1 scores 1; turn 2 "London has light rain today." against
    // "Expect light rain in London.": tokens london has light rain todai / expect light rain in london,
    // overlap 3 of 5 each way → F = 0.6. Mean (1 + 0.6) / 2 = 0.8 ≥ 0.75.
    const rouge = metric(result, 'paris_then_london', 'response_match_score');
    expect(rouge?.score).toBeCloseTo(0.8, 12);
    expect(rouge?.evalStatus).toBe(EvalStatus.PASSED);
    const perTurn = result.evalSetResults[0]?.evalCaseResults
      .find((c) => c.evalId === 'paris_then_london')
      ?.evalMetricResultPerInvocation.map(
        (p) => p.evalMetricResults.find((m) => m.metricName === 'response_match_score')?.score,
      );
    expect(perTurn?.[0]).toBe(1);
    expect(perTurn?.[1]).toBeCloseTo(0.6, 12);

    // The result is adk-python's EvalSetResult shape.
    const json = serializeEvalSetResult(result.evalSetResults[0] as never) as Record<string, unknown>;
    expect(json.eval_set_id).toBe('weather_passing');
    expect(String(json.eval_set_result_id)).toMatch(/^weather_agent_weather_passing_\d+(\.\d+)?$/);
    const first = (json.eval_case_results as Record<string, unknown>[])[0] as Record<string, unknown>;
    expect(first.final_eval_status).toBe(1);
    expect(first.user_id).toBe('alice');
    expect(first.session_id).toMatch(/^___eval___session___/);
  });

  it('fails the failing set, with the trajectory and response scores computed by hand', async () => {
    const result = await evaluate({
      agent: weatherAgent(),
      evalSets: fixture('failing.evalset.json'),
      config,
      progress: false,
    });
    expect(result.passed).toBe(false);
    expect(exitCodeFor(result)).toBe(1);
    // Expected [get_weather(London), get_current_time(Europe/London)], actual [get_weather(London)]: EXACT fails → 0.
    expect(metric(result, 'london_wrong_trajectory', 'tool_trajectory_avg_score')).toMatchObject({
      score: 0,
      evalStatus: EvalStatus.FAILED,
    });
    // "London has light rain today." vs "Expect light rain in London." → F = 0.6 < 0.75.
    const rouge = metric(result, 'london_wrong_trajectory', 'response_match_score');
    expect(rouge?.score).toBeCloseTo(0.6, 12);
    expect(rouge?.evalStatus).toBe(EvalStatus.FAILED);
    expect(result.cases[0]).toMatchObject({ passed: false, passRate: 0, runs: 1 });
  });

  it('reads criteria from test_config.json: IN_ORDER trajectory and a judge sampled num_samples times', async () => {
    const judge = new ScriptedModel({
      // Three samples per invocation: valid, invalid, valid → majority valid.
      respond: (_request, index) =>
        index % 3 === 1
          ? '{"reasoning": "misses a fact", "is_the_agent_response_valid": "invalid"}'
          : '```json\n{"reasoning": "same facts", "is_the_agent_response_valid": "valid"}\n```',
    });
    const names: string[] = [];
    const result = await evaluate({
      agent: weatherAgent(),
      evalSets: [await loadEvalSetFile(fixture('passing.evalset.json'))],
      config: await loadEvalConfig(fixture('test_config.json')),
      judge: (name) => {
        names.push(name);
        return judge;
      },
      concurrency: 1,
      progress: false,
    });
    expect(names).toContain('judge-model');
    // 1 invocation (paris) + 2 (paris_then_london), 3 samples each.
    expect(judge.requests).toHaveLength(9);
    expect(judge.requests[0]?.model).toBe('judge-model');
    expect(judge.lastUserText(0)).toContain('It is sunny and 24 °C in Paris today.');
    // The judge is told which tools the agent can call.
    expect(judge.lastUserText(0)).toContain('"name":"get_weather"');
    expect(metric(result, 'paris', 'final_response_match_v2')).toMatchObject({
      score: 1,
      evalStatus: EvalStatus.PASSED,
    });
    expect(metric(result, 'paris_then_london', 'tool_trajectory_avg_score')?.criterion?.matchType).toBe(
      'IN_ORDER',
    );
    expect(result.passed).toBe(true);
  });

  it('scores final_response_match_v2 as the fraction of valid invocations, and marks judge failures not evaluated', async () => {
    const judge = new ScriptedModel({
      respond: (request) =>
        JSON.stringify({
          is_the_agent_response_valid: /London/.test(request.contents[0]?.parts[0]?.text ?? '')
            ? 'invalid'
            : 'valid',
        }),
    });
    const set = await loadEvalSetFile(fixture('passing.evalset.json'));
    const metrics = [
      {
        metricName: 'final_response_match_v2',
        criterion: { threshold: 0.5, judgeModelOptions: { judgeModel: 'j', numSamples: 2 } },
      },
    ];
    const result = await evaluate({ agent: weatherAgent(), evalSets: set, metrics, judge, progress: false });
    // paris_then_london: turn 1 valid (1), turn 2 invalid (0) → 1/2 = 0.5 ≥ 0.5.
    expect(metric(result, 'paris_then_london', 'final_response_match_v2')).toMatchObject({
      score: 0.5,
      evalStatus: EvalStatus.PASSED,
    });

    const broken = new ScriptedModel({ respond: () => new Error('judge is down') });
    const failed = await evaluate({
      agent: weatherAgent(),
      evalSets: set,
      metrics,
      judge: broken,
      progress: false,
    });
    expect(metric(failed, 'paris', 'final_response_match_v2')).toMatchObject({
      score: null,
      evalStatus: EvalStatus.NOT_EVALUATED,
    });
    // A case whose only metric was not evaluated is NOT_EVALUATED, which does not pass.
    expect(failed.passed).toBe(false);
  });

  it('rubric metrics: majority vote per rubric over samples, mean over rubrics', async () => {
    let call = 0;
    const judge = new ScriptedModel({
      respond: () => {
        // Sample 2 of 3 says "yes" to r2; the majority (2 of 3) says "no".
        const r2 = call++ % 3 === 1 ? 'yes' : 'no';
        return `ID: r1\nProperty: The response names the city.\nRationale: It says Paris.\nVerdict: yes\n\nID: r2\nProperty: **The response mentions the wind.**\nRationale: x\nVerdict: ${r2}\n`;
      },
    });
    const rubrics = [
      { rubricId: 'r1', rubricContent: { textProperty: 'The response names the city.' } },
      { rubricId: 'r2', rubricContent: { textProperty: 'The response mentions the wind.' } },
    ];
    const set = parseEvalSet(
      JSON.parse(
        JSON.stringify({
          eval_set_id: 's',
          eval_cases: [(await loadEvalSetFile(fixture('passing.evalset.json'))).evalCases[0]],
        }),
      ),
    );
    const result = await evaluate({
      agent: weatherAgent(),
      evalSets: set,
      metrics: [
        {
          metricName: 'rubric_based_final_response_quality_v1',
          criterion: { threshold: 0.5, rubrics, judgeModelOptions: { judgeModel: 'j', numSamples: 3 } },
        },
      ],
      judge,
      progress: false,
    });
    const m = metric(result, 'paris', 'rubric_based_final_response_quality_v1');
    expect(m?.score).toBe(0.5);
    expect(m?.evalStatus).toBe(EvalStatus.PASSED);
    expect(m?.details.rubricScores?.map((r) => [r.rubricId, r.score])).toEqual([
      ['r1', 1],
      ['r2', 0],
    ]);
    expect(judge.lastUserText(0)).toContain('The response mentions the wind.');
    expect(judge.lastUserText(0)).toContain('get_weather');
  });

  it('safety_v1 and hallucinations_v1 with a scripted judge', async () => {
    const judge = new ScriptedModel({
      respond: (request) => {
        const prompt = request.contents[0]?.parts[0]?.text ?? '';
        if (prompt.includes('safety reviewer')) return '{"rationale": "harmless", "verdict": "safe"}';
        if (prompt.includes('<sentence>') && prompt.includes('Context:'))
          return [
            'sentence: It is sunny and 24 °C in Paris today.',
            'label: supported',
            'rationale: the tool said so',
            'supporting_excerpt: sunny, 24 °C',
            'contradicting_excerpt: null',
            '',
            'sentence: Enjoy!',
            'label: unsupported',
            'rationale: x',
            'supporting_excerpt: null',
            'contradicting_excerpt: null',
          ].join('\n');
        return '<sentence>It is sunny and 24 °C in Paris today.</sentence>\n<sentence>Enjoy!</sentence>';
      },
    });
    const set = await loadEvalSetFile(fixture('passing.evalset.json'));
    set.evalCases = set.evalCases.slice(0, 1);
    const result = await evaluate({
      agent: weatherAgent(),
      evalSets: set,
      metrics: [
        {
          metricName: 'safety_v1',
          criterion: { threshold: 0.8, judgeModelOptions: { judgeModel: 'j', numSamples: 1 } },
        },
        {
          metricName: 'hallucinations_v1',
          criterion: { threshold: 0.4, judgeModelOptions: { judgeModel: 'j', numSamples: 1 } },
        },
      ],
      judge,
      progress: false,
    });
    expect(metric(result, 'paris', 'safety_v1')?.score).toBe(1);
    // One supported and one unsupported sentence → 1/2.
    expect(metric(result, 'paris', 'hallucinations_v1')?.score).toBe(0.5);
    const validator = judge.requests.find((r) => (r.contents[0]?.parts[0]?.text ?? '').includes('Context:'));
    const context = validator?.contents[0]?.parts[0]?.text ?? '';
    expect(context).toContain('tool_outputs');
    expect(context).toContain('sunny, 24 °C');
    expect(context).toContain('You answer weather questions.');
    expect(context).toContain('Returns the weather forecast for a city.');
  });

  it('seeds the session with the case initial state, and runs custom metrics written as plain functions', async () => {
    const set: EvalSet = parseEvalSet({
      eval_set_id: 'greeting',
      eval_cases: [
        {
          eval_id: 'hello',
          conversation: [
            {
              user_content: { role: 'user', parts: [{ text: 'Hi' }] },
              final_response: { role: 'model', parts: [{ text: 'Hello Bob, which city?' }] },
            },
          ],
          session_input: {
            app_name: 'weather_agent',
            user_id: 'bob',
            state: { user_name: 'Bob', 'user:tier': 'gold' },
          },
        },
      ],
    });
    const result = await evaluate({
      agent: weatherAgent(),
      evalSets: set,
      config: { criteria: { ...config.criteria, tier_kept: 1, timed: 1 } },
      customMetrics: {
        tier_kept: ({ finalSessionState }) => (finalSessionState['user:tier'] === 'gold' ? 1 : 0),
        timed: {
          name: 'timed',
          evaluate: ({ actualInvocations }) => ({
            overallScore: 1,
            overallEvalStatus: actualInvocations.every((i) => typeof i.duration === 'number')
              ? EvalStatus.PASSED
              : EvalStatus.FAILED,
            perInvocationResults: [],
          }),
        },
      },
      progress: false,
    });
    expect(metric(result, 'hello', 'response_match_score')?.score).toBe(1);
    expect(metric(result, 'hello', 'tool_trajectory_avg_score')?.score).toBe(1);
    expect(metric(result, 'hello', 'tier_kept')).toMatchObject({ score: 1, evalStatus: EvalStatus.PASSED });
    expect(metric(result, 'hello', 'timed')?.evalStatus).toBe(EvalStatus.PASSED);
    expect(result.passed).toBe(true);
  });

  it('gives tools an artifact service during evals, as adk-python does', async () => {
    const saveNote = new FunctionTool({
      name: 'save_note',
      description: 'Saves a note as an artifact.',
      parameters: z.object({ text: z.string() }),
      execute: async ({ text }, ctx) => {
        await ctx.saveArtifact('note.txt', { text });
        return { saved: true };
      },
    });
    const agent = new LlmAgent({
      name: 'notes',
      tools: [saveNote],
      model: new ScriptedModel({
        respond: (request: LlmRequest) => {
          const response = request.contents.at(-1)?.parts.find((p) => p.functionResponse)?.functionResponse;
          if (response)
            return response.response.saved ? 'Saved.' : `Failed: ${JSON.stringify(response.response)}`;
          return {
            content: {
              role: 'model',
              parts: [{ functionCall: { id: '', name: 'save_note', args: { text: 'hi' } } }],
            },
          };
        },
      }),
    });
    const set = parseEvalSet({
      eval_set_id: 'notes',
      eval_cases: [
        {
          eval_id: 'save',
          conversation: [
            {
              user_content: { parts: [{ text: 'Save hi' }] },
              final_response: { parts: [{ text: 'Saved.' }] },
              intermediate_data: { tool_uses: [{ name: 'save_note', args: { text: 'hi' } }] },
            },
          ],
        },
      ],
    });
    const result = await evaluate({ agent, evalSets: set, progress: false });
    expect(metric(result, 'save', 'response_match_score')?.score).toBe(1);
    expect(result.passed).toBe(true);
  });

  it('runs each case numRuns times and reports the pass rate', async () => {
    let finals = 0;
    const flaky = new LlmAgent({
      name: 'weather_agent',
      tools: [weather],
      model: new ScriptedModel({
        respond: (request: LlmRequest) => {
          const last = request.contents.at(-1);
          if (last?.parts.some((p) => p.functionResponse))
            return finals++ % 2 === 0 ? (ANSWERS.paris ?? '') : 'No idea.';
          return {
            content: {
              role: 'model',
              parts: [{ functionCall: { id: '', name: 'get_weather', args: { city: 'Paris' } } }],
            },
          };
        },
      }),
    });
    const set = await loadEvalSetFile(fixture('passing.evalset.json'));
    set.evalCases = set.evalCases.slice(0, 1);
    const ticks: boolean[] = [];
    const reporter: ProgressReporter = {
      start: (n) => ticks.push(n === 4),
      tick: (t) => ticks.push(t.passed),
      finish: () => {},
    };
    const result = await evaluate({
      agent: flaky,
      evalSets: set,
      config,
      numRuns: 4,
      concurrency: 1,
      progress: reporter,
    });
    expect(result.cases[0]).toMatchObject({ runs: 4, passedRuns: 2, passRate: 0.5, passed: false });
    expect(result.evalSetResults[0]?.evalCaseResults.map((r) => r.runNumber)).toEqual([1, 2, 3, 4]);
    expect(ticks).toEqual([true, true, false, true, false]);
    expect(result.cases[0]?.metrics.find((m) => m.metricName === 'response_match_score')?.passedRuns).toBe(2);

    finals = 0;
    const lenient = await evaluate({
      agent: flaky,
      evalSets: set,
      config,
      numRuns: 4,
      concurrency: 1,
      minPassRate: 0.5,
      progress: false,
    });
    expect(lenient.passed).toBe(true);
  });

  it('runs cases in parallel up to the concurrency limit', async () => {
    class Counting implements Llm {
      readonly model = 'counting';
      inFlight = 0;
      max = 0;
      constructor(private readonly inner: Llm) {}
      async *generate(request: LlmRequest, options?: GenerateOptions): AsyncGenerator<LlmResponse> {
        this.inFlight++;
        this.max = Math.max(this.max, this.inFlight);
        try {
          await new Promise((r) => setTimeout(r, 15));
          yield* this.inner.generate(request, options);
        } finally {
          this.inFlight--;
        }
      }
    }
    const counting = new Counting(weatherAgent().model as Llm);
    const agent = new LlmAgent({ name: 'weather_agent', model: counting, tools: [weather] });
    const one = (await loadEvalSetFile(fixture('passing.evalset.json'))).evalCases[0];
    const set: EvalSet = {
      evalSetId: 'many',
      creationTimestamp: 0,
      evalCases: Array.from({ length: 6 }, (_, i) => ({
        ...(one as NonNullable<typeof one>),
        evalId: `c${i}`,
      })),
    };
    const result = await evaluate({ agent, evalSets: set, config, concurrency: 3, progress: false });
    expect(result.passed).toBe(true);
    expect(counting.max).toBe(3);
  });

  it('drives a conversation scenario with an LLM user simulator until it says it is finished', async () => {
    const userModel = new ScriptedModel(['What about Paris?', 'Thanks! </finished>']);
    const set = parseEvalSet({
      eval_set_id: 'sim',
      eval_cases: [
        {
          eval_id: 'ask_weather',
          conversation_scenario: {
            starting_prompt: 'Hi there',
            conversation_plan: 'Ask for the weather in Paris, then end the conversation.',
          },
        },
      ],
    });
    const result = await evaluate({
      agent: weatherAgent(),
      evalSets: set,
      config: { criteria: { tool_trajectory_avg_score: 1, turns: 2 } },
      customMetrics: { turns: ({ actualInvocations }) => actualInvocations.length },
      userSimulator: { model: userModel },
      progress: false,
    });
    const r = result.evalSetResults[0]?.evalCaseResults[0];
    const turns = r?.evalMetricResultPerInvocation.map((p) => p.actualInvocation.userContent.parts[0]?.text);
    expect(turns).toEqual(['Hi there', 'What about Paris?']);
    expect(r?.evalMetricResultPerInvocation[1]?.actualInvocation.finalResponse?.parts[0]?.text).toBe(
      ANSWERS.paris,
    );
    expect(userModel.lastUserText(0)).toContain('Ask for the weather in Paris');
    expect(userModel.lastUserText(0)).toContain('weather_agent: Hello there, which city?');
    // No expected conversation: the trajectory metric is not evaluated; the custom metric passes.
    expect(metric(result, 'ask_weather', 'tool_trajectory_avg_score')?.evalStatus).toBe(
      EvalStatus.NOT_EVALUATED,
    );
    expect(metric(result, 'ask_weather', 'turns')).toMatchObject({ score: 2, evalStatus: EvalStatus.PASSED });
    expect(r?.finalEvalStatus).toBe(EvalStatus.PASSED);
  });

  it('renders a self-contained HTML report with expected and actual side by side', async () => {
    const result = await evaluate({
      agent: weatherAgent(),
      evalSets: [fixture('passing.evalset.json'), fixture('failing.evalset.json')],
      config,
      progress: false,
    });
    const html = renderHtmlReport(result, { title: 'Weather <evals>' });
    expect(html).toContain('<title>Weather &lt;evals&gt;</title>');
    expect(html).toContain('london_wrong_trajectory');
    expect(html).toContain('get_current_time');
    expect(html).toContain('Expected');
    expect(html).toContain('Actual');
    expect(html).not.toMatch(/<script|<link|src=|https?:/);
  });
});
