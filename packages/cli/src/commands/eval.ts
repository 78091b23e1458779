import { existsSync, statSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { basename, dirname, isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type BaseAgent, defaultModelRegistry, InMemorySessionService, isAdkError, Runner } from '@adk/core';
import { type Command, Option } from 'commander';
import { CliUsageError } from '../errors.js';
import { createAppLoader, loadAgentModule } from '../loader/app-loader.js';
import { loadEnvFile } from '../loader/env-file.js';
import { enableTypeScript } from '../loader/typescript.js';
import { registerModelsFromEnv } from '../models/pick-model.js';
import type { CommandModule } from './command.js';

interface EvalOptions {
  config?: string;
  config_file_path?: string;
  numRuns: string;
  concurrency: string;
  minPassRate: string;
  printDetailedResults?: boolean;
  print_detailed_results?: boolean;
  json?: string;
  html?: string;
  history: boolean;
  initialSession?: string;
}

/** Exit codes: every case passed / some case failed / the eval could not run. */
export const EVAL_EXIT = { passed: 0, failed: 1, error: 2 } as const;

async function loadAgent(target: string): Promise<{ appName: string; folder: string; agent: BaseAgent }> {
  const path = resolve(target);
  if (!existsSync(path)) throw new CliUsageError(`No agent at ${path}`);
  if (statSync(path).isFile()) {
    loadEnvFile(dirname(path));
    return { appName: basename(dirname(path)), folder: dirname(path), agent: await loadAgentModule(path) };
  }
  const loader = createAppLoader(path);
  if (!loader.isSingleApp)
    throw new CliUsageError(`${path} is a folder of apps, not an agent: name one app folder`);
  const [name] = await loader.list();
  return { appName: name as string, folder: path, agent: await loader.load(name as string) };
}

function positiveInt(value: string, flag: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1)
    throw new CliUsageError(`${flag} must be a whole number ≥ 1, got "${value}"`);
  return n;
}

/** `file.evalset.json:case_a,case_b` selects cases of a set (adk-python's syntax). */
function splitSelection(arg: string): { file: string; ids?: string[] } {
  const m = /^(.*\.json):([^/\\]+)$/.exec(arg);
  if (!m) return { file: arg };
  return {
    file: m[1] as string,
    ids: (m[2] as string)
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  };
}

/**
 * Custom metrics named in the config's `custom_metrics` (`code_config.name`): adk-python gives a
 * Python dotted path; here it is `<module file>:<export>` (default export without `:`), relative
 * to the config file. The export is a function of the run or a `{ name, evaluate }` metric.
 */
async function loadCustomMetrics(
  config: { customMetrics?: Record<string, { codeConfig: { name: string } }> | undefined },
  configPath: string | undefined,
): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  const base = configPath ? dirname(resolve(configPath)) : process.cwd();
  for (const [metricName, custom] of Object.entries(config.customMetrics ?? {})) {
    const spec = custom.codeConfig.name;
    const colon = spec.lastIndexOf(':');
    const [file, exportName] = colon > 1 ? [spec.slice(0, colon), spec.slice(colon + 1)] : [spec, 'default'];
    const path = isAbsolute(file) ? file : resolve(base, file);
    if (!existsSync(path))
      throw new CliUsageError(
        `Custom metric ${metricName}: no module at ${path} (code_config.name is "<file>:<export>")`,
      );
    await enableTypeScript();
    let module: Record<string, unknown>;
    try {
      module = (await import(pathToFileURL(path).href)) as Record<string, unknown>;
    } catch (error) {
      throw new CliUsageError(
        `Custom metric ${metricName}: failed to load ${path}: ${(error as Error).message}`,
        { cause: error },
      );
    }
    const metric = module[exportName];
    const ok =
      typeof metric === 'function' ||
      (typeof metric === 'object' &&
        metric !== null &&
        typeof (metric as { evaluate?: unknown }).evaluate === 'function');
    if (!ok)
      throw new CliUsageError(`Custom metric ${metricName}: ${path} exports no function \`${exportName}\``);
    out[metricName] = metric;
  }
  return out;
}

function fmt(score: number | null | undefined): string {
  return typeof score === 'number' ? score.toFixed(3) : '—';
}

async function runEval(agentPath: string, setArgs: string[], options: EvalOptions): Promise<void> {
  try {
    process.exitCode = await evaluateAgent(agentPath, setArgs, options);
  } catch (error) {
    if (!isAdkError(error)) throw error;
    process.stderr.write(`adk: ${error.message}\n`);
    process.exitCode = EVAL_EXIT.error;
  }
}

async function evaluateAgent(agentPath: string, setArgs: string[], options: EvalOptions): Promise<number> {
  const evalLib = await import('@adk/eval').catch((error: unknown) => {
    throw new CliUsageError(
      `adk eval needs @adk/eval: install it next to @adk/cli (${(error as Error).message})`,
    );
  });
  const numRuns = positiveInt(options.numRuns, '--num-runs');
  const concurrency = positiveInt(options.concurrency, '--concurrency');
  const minPassRate = Number(options.minPassRate);
  if (!(minPassRate >= 0 && minPassRate <= 1))
    throw new CliUsageError(`--min-pass-rate must be between 0 and 1`);
  const configPath = options.config ?? options.config_file_path;
  if (configPath && !existsSync(resolve(configPath)))
    throw new CliUsageError(`Config file not found: ${resolve(configPath)}`);
  const config = await evalLib.loadEvalConfig(configPath ? resolve(configPath) : undefined);

  const initialSessionFile = options.initialSession ? resolve(options.initialSession) : undefined;
  if (initialSessionFile && !existsSync(initialSessionFile))
    throw new CliUsageError(`Initial session file not found: ${initialSessionFile}`);

  const sets = [];
  for (const arg of setArgs) {
    const { file, ids } = splitSelection(arg);
    const path = resolve(file);
    if (!existsSync(path)) throw new CliUsageError(`Eval set file not found: ${path}`);
    const set = await evalLib.loadEvalSetFile(path, initialSessionFile ? { initialSessionFile } : {});
    if (ids) {
      const missing = ids.filter((id) => !set.evalCases.some((c) => c.evalId === id));
      if (missing.length) throw new CliUsageError(`${path} has no eval case ${missing.join(', ')}`);
      set.evalCases = set.evalCases.filter((c) => ids.includes(c.evalId));
    }
    sets.push(set);
  }

  const { appName, folder, agent } = await loadAgent(agentPath);
  registerModelsFromEnv(defaultModelRegistry);
  const customMetrics = (await loadCustomMetrics(config, configPath)) as NonNullable<
    Parameters<typeof evalLib.evaluate>[0]['customMetrics']
  >;
  let result: Awaited<ReturnType<typeof evalLib.evaluate>>;
  try {
    result = await evalLib.evaluate({
      agent,
      appName,
      evalSets: sets,
      config,
      customMetrics,
      numRuns,
      concurrency,
      minPassRate,
    });
  } finally {
    // The agent's toolsets (MCP servers it started, connections) would keep the process running.
    await new Runner({ appName, agent, sessionService: new InMemorySessionService() }).close();
  }

  const out = (line = '') => process.stdout.write(`${line}\n`);
  const detailed = options.printDetailedResults || options.print_detailed_results;
  out('*********************************************************************');
  out('Eval Run Summary');
  for (const set of sets) {
    const cases = result.cases.filter((c) => c.evalSetId === set.evalSetId);
    out(`${set.evalSetId}:`);
    out(`  Tests passed: ${cases.filter((c) => c.passed).length}`);
    out(`  Tests failed: ${cases.filter((c) => !c.passed).length}`);
    for (const c of cases) {
      const metrics = c.metrics.map((m) => `${m.metricName} ${fmt(m.meanScore)}/${m.threshold}`).join('  ');
      const rate = c.runs > 1 ? ` (${c.passedRuns}/${c.runs} runs)` : '';
      out(`  ${c.passed ? '✓' : '✗'} ${c.evalId}${rate}  ${metrics}`);
      for (const e of c.errors) out(`      error: ${e}`);
    }
  }
  if (detailed) {
    for (const r of result.evalSetResults.flatMap((s) => s.evalCaseResults)) {
      out();
      out(
        `${r.evalSetId} / ${r.evalId}${r.runNumber ? ` (run ${r.runNumber})` : ''}: ${evalLib.evalStatusName(r.finalEvalStatus)}`,
      );
      r.evalMetricResultPerInvocation.forEach((p, i) => {
        out(`  turn ${i + 1}  user: ${JSON.stringify(evalLib.textOf(p.actualInvocation.userContent))}`);
        out(`    expected: ${JSON.stringify(evalLib.textOf(p.expectedInvocation?.finalResponse))}`);
        out(`    actual:   ${JSON.stringify(evalLib.textOf(p.actualInvocation.finalResponse))}`);
        for (const m of p.evalMetricResults)
          out(`    ${m.metricName}: ${fmt(m.score)} ${evalLib.evalStatusName(m.evalStatus)}`);
      });
    }
  }

  if (options.history) {
    // Where adk-python keeps them: <agents dir>/<app>/.adk/eval_history, read by `adk web`.
    const history = new evalLib.LocalEvalSetResultsManager(dirname(folder));
    for (const r of result.evalSetResults) await history.save(basename(folder), r);
  }
  if (options.json) {
    const payload = result.evalSetResults.map((r) => evalLib.serializeEvalSetResult(r));
    await writeFile(
      resolve(options.json),
      JSON.stringify(payload.length === 1 ? payload[0] : payload, null, 2),
    );
    process.stderr.write(`Results written to ${resolve(options.json)}\n`);
  }
  if (options.html) {
    await writeFile(
      resolve(options.html),
      evalLib.renderHtmlReport(result, { title: `Eval report: ${appName}` }),
    );
    process.stderr.write(`HTML report written to ${resolve(options.html)}\n`);
  }
  return result.passed ? EVAL_EXIT.passed : EVAL_EXIT.failed;
}

export const evalCommand: CommandModule = (program: Command) => {
  program
    .command('eval')
    .description(
      'evaluate an agent on eval sets (adk-python .evalset.json, or .test.json in either legacy format)',
    )
    .argument('<agent>', 'an agent folder (with agent.ts exporting rootAgent) or an agent module file')
    .argument('<evalsets...>', 'eval set files; `file.evalset.json:case_a,case_b` runs only those cases')
    .option(
      '--config <file>',
      'criteria (test_config.json); default tool_trajectory_avg_score 1.0, response_match_score 0.8',
    )
    .addOption(new Option('--config_file_path <file>', 'adk-python spelling of --config').hideHelp())
    .option(
      '--initial-session <file>',
      'a session file (initial.session.json) that legacy lists of turns start from: its app_name, user_id and state',
    )
    .option('--num-runs <n>', 'run every case n times', '1')
    .option('--concurrency <n>', 'case runs in flight at once', '4')
    .option('--min-pass-rate <rate>', 'a case passes when this share of its runs pass', '1')
    .option('--print-detailed-results', 'print every turn: expected and actual response, per-turn scores')
    .addOption(new Option('--print_detailed_results').hideHelp())
    .option('--json <file>', "write the results as adk-python's EvalSetResult JSON")
    .option('--html <file>', 'write a self-contained HTML report')
    .option('--no-history', 'do not save results to <agent>/.adk/eval_history')
    .addHelpText(
      'after',
      `
Exit codes: 0 every case passed, 1 some case failed, 2 the eval could not run (bad file, bad config,
agent that does not load).

Examples:
  adk eval apps/examples/assistant evals/assistant.evalset.json
  adk eval ./my_agent evals/a.evalset.json:case_1,case_2 --config evals/test_config.json
  adk eval ./my_agent evals/*.test.json --num-runs 5 --min-pass-rate 0.8 --html report.html
  adk eval ./my_agent tests/trip_inquiry.test.json --initial-session tests/initial.session.json`,
    )
    .action(runEval);
};
