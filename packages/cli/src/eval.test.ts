import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EXAMPLES, runCli } from './__fixtures__/cli.js';

const EVAL = new URL('./__fixtures__/eval/', import.meta.url).pathname;
const AGENT = join(EVAL, 'weather');
const SET = join(EVAL, 'weather.evalset.json');
const FAILING = join(EVAL, 'failing.test.json');
const TURNS = join(EVAL, 'weather_turns.test.json');
const CONFIG = join(EVAL, 'test_config.json');
const out = mkdtempSync(join(tmpdir(), 'adk-eval-cli-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

describe.concurrent('adk eval', () => {
  it('exits 0 when every case passes, prints the summary, writes JSON and HTML reports', async () => {
    const json = join(out, 'result.json');
    const html = join(out, 'report.html');
    const r = await runCli([
      'eval',
      AGENT,
      SET,
      '--config',
      CONFIG,
      '--no-history',
      '--json',
      json,
      '--html',
      html,
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('Eval Run Summary');
    expect(r.stdout).toContain('weather_passing:\n  Tests passed: 2\n  Tests failed: 0');
    expect(r.stdout).toContain('✓ paris  tool_trajectory_avg_score 1.000/1  response_match_score 1.000/0.75');
    const result = JSON.parse(readFileSync(json, 'utf8'));
    expect(result.eval_set_id).toBe('weather_passing');
    expect(result.eval_case_results.map((c: { final_eval_status: number }) => c.final_eval_status)).toEqual([
      1, 1,
    ]);
    expect(readFileSync(html, 'utf8')).toContain('paris_then_london');
  });

  it("evaluates the examples' assistant on its eval set (offline demo model): the tool calls match", async () => {
    const dir = join(EXAMPLES, 'assistant');
    const args = [
      'eval',
      dir,
      join(dir, 'assistant.evalset.json'),
      '--config',
      join(dir, 'test_config.json'),
    ];
    const r = await runCli([...args, '--no-history']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('✓ weather_then_arithmetic  tool_trajectory_avg_score 1.000/1');
  });

  it("closes the agent's toolsets, so a tool server it started does not keep adk eval running", async () => {
    const r = await runCli(['eval', join(EVAL, 'with_server'), SET, '--config', CONFIG, '--no-history'], {
      timeoutMs: 15_000,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('toolset closed');
  });

  it('exits 1 when a case fails (legacy .test.json, default criteria)', async () => {
    const r = await runCli(['eval', AGENT, FAILING, '--no-history', '--print-detailed-results']);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toContain('failing:\n  Tests passed: 0\n  Tests failed: 1');
    // Trajectory misses get_current_time → 0; ROUGE-1 of the answer against the reference → 0.6.
    expect(r.stdout).toContain('✗ london  tool_trajectory_avg_score 0.000/1  response_match_score 0.600/0.8');
    expect(r.stdout).toContain('expected: "Expect light rain in London."');
    expect(r.stdout).toContain('actual:   "London has light rain today."');
  });

  it("runs adk-python's oldest format, a list of turns, as one conversation named after the file", async () => {
    const json = join(out, 'turns.json');
    const r = await runCli(['eval', AGENT, TURNS, FAILING, '--no-history', '--json', json]);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toContain('weather_turns:\n  Tests passed: 1\n  Tests failed: 0');
    expect(r.stdout).toContain(
      '✓ weather_turns  tool_trajectory_avg_score 1.000/1  response_match_score 1.000/0.8',
    );
    // Beside it, the list of named cases loads as before.
    expect(r.stdout).toContain('failing:\n  Tests passed: 0\n  Tests failed: 1');
    const picked = await runCli([
      'eval',
      AGENT,
      `${TURNS}:weather_turns`,
      '--no-history',
      '--json',
      json,
      '--initial-session',
      join(EVAL, 'initial.session.json'),
    ]);
    expect(picked.code, picked.stderr).toBe(0);
    const result = JSON.parse(readFileSync(json, 'utf8'));
    expect(result.eval_set_id).toBe('weather_turns');
    expect(result.eval_case_results).toEqual([
      expect.objectContaining({ eval_id: 'weather_turns', user_id: 'ada', final_eval_status: 1 }),
    ]);
    expect(result.eval_case_results[0].eval_metric_result_per_invocation).toHaveLength(2);
  });

  it('exits 2 naming the file, entry and field of a malformed legacy file', async () => {
    const broken = join(out, 'broken.test.json');
    writeFileSync(
      broken,
      JSON.stringify([
        { query: 'Weather in Paris?', expected_tool_use: [], reference: 'Sunny.' },
        { query: 'And London?', expected_tool_use: [{ tool_input: { city: 'London' } }] },
      ]),
    );
    const r = await runCli(['eval', AGENT, broken, '--no-history']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `adk: ${broken}: Not an eval set (legacy list of turns {query, expected_tool_use, reference}): [1].expected_tool_use[0].tool_name: Invalid input: expected string, received undefined`,
    );
    const noSession = await runCli(['eval', AGENT, TURNS, '--initial-session', join(out, 'nope.json')]);
    expect(noSession.code).toBe(2);
    expect(noSession.stderr).toContain('Initial session file not found');
  });

  it('runs only the selected cases with file:case syntax, several times with --num-runs', async () => {
    const r = await runCli(['eval', AGENT, `${SET}:paris`, '--num-runs', '3', '--no-history']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('Tests passed: 1\n  Tests failed: 0');
    expect(r.stdout).toContain('✓ paris (3/3 runs)');
    expect(r.stdout).not.toContain('paris_then_london');
  });

  it('loads custom metrics named in the config (code_config.name = "<file>:<export>")', async () => {
    const r = await runCli([
      'eval',
      AGENT,
      SET,
      '--config',
      join(EVAL, 'custom_config.json'),
      '--no-history',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(
      '✓ paris  turns 1.000/1  mentions_city 1.000/1  response_match_score 1.000/0.75',
    );
    expect(r.stdout).toContain('✓ paris_then_london  turns 2.000/1  mentions_city 1.000/1');
  });

  it('exits 2 when the eval cannot run: missing file, unknown case, bad config, bad flag value', async () => {
    const missing = await runCli(['eval', AGENT, join(EVAL, 'nope.evalset.json')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('Eval set file not found');
    const unknownCase = await runCli(['eval', AGENT, `${SET}:nobody`]);
    expect(unknownCase.code).toBe(2);
    expect(unknownCase.stderr).toContain('has no eval case nobody');
    const bad = join(out, 'bad_config.json');
    writeFileSync(
      bad,
      JSON.stringify({ criteria: { tool_trajectory_avg_score: { match_type: 'SOMETIMES' } } }),
    );
    const badConfig = await runCli(['eval', AGENT, SET, '--config', bad]);
    expect(badConfig.code).toBe(2);
    expect(badConfig.stderr).toContain('criteria.tool_trajectory_avg_score');
    const badRuns = await runCli(['eval', AGENT, SET, '--num-runs', 'zero']);
    expect(badRuns.code).toBe(2);
    expect(badRuns.stderr).toContain('--num-runs must be a whole number');
  });
});
