import {
  type BaseAgent,
  BaseTool,
  type FunctionDeclaration,
  InMemorySessionService,
  type Llm,
  LlmAgent,
  type ModelRegistry,
  type RunnerOptions,
  resolveModel,
  type Session,
  type SessionService,
} from '@adk/core';
import { DEFAULT_EVAL_CONFIG, metricsFromConfig } from '../eval-set/eval-config.js';
import { loadEvalSetFile } from '../eval-set/eval-set-io.js';
import {
  type EvalCase,
  type EvalCaseResult,
  type EvalConfig,
  type EvalMetric,
  type EvalMetricResult,
  type EvalMetricResultPerInvocation,
  type EvalSet,
  type EvalSetResult,
  EvalStatus,
  type SessionDetails,
} from '../eval-set/types.js';
import type { Metric, MetricContext, MetricFunction } from '../metrics/metric.js';
import { metricTable } from '../metrics/registry.js';
import { type ProgressReporter, progressBar } from '../report/progress.js';
import { runEvalCase } from './inference.js';
import { LlmUserSimulator, type LlmUserSimulatorOptions, type UserSimulator } from './user-simulator.js';

export interface EvaluateOptions {
  agent: BaseAgent;
  /** Eval sets, or paths of `.evalset.json` / legacy `.test.json` files. */
  evalSets: (EvalSet | string)[] | EvalSet | string;
  /** Criteria (a parsed `test_config.json`); default adk-python's: trajectory 1.0, response match 0.8. */
  config?: EvalConfig;
  /** Metrics to compute instead of the config's. */
  metrics?: EvalMetric[];
  /** Custom metrics by name: a {@link Metric} or a plain function returning a score or a result. */
  customMetrics?: Record<string, Metric | MetricFunction>;
  /** The judge of LLM-judged metrics: a model, or a function of the criterion's judge model name. */
  judge?: Llm | ((modelName: string) => Llm);
  /** Model registry for judge and simulator names (default core's). */
  models?: ModelRegistry;
  /** For conversation-scenario cases: options of the LLM user simulator, or a factory. */
  userSimulator?: LlmUserSimulatorOptions | ((evalCase: EvalCase) => UserSimulator);
  /** App name for sessions (default the agent's name). */
  appName?: string;
  /** Case runs in flight at once (default 4). */
  concurrency?: number;
  /** Runs per case (default 1); the pass rate is passed runs / runs. */
  numRuns?: number;
  /** A case passes when its pass rate reaches this (default 1: every run passes). */
  minPassRate?: number;
  sessionService?: SessionService;
  runnerOptions?: Partial<Omit<RunnerOptions, 'agent' | 'appName' | 'sessionService'>>;
  /** `true` draws a progress bar on a TTY (the default when stderr is a terminal); or your own reporter. */
  progress?: boolean | ProgressReporter;
  signal?: AbortSignal;
}

export interface MetricSummary {
  metricName: string;
  threshold: number;
  /** Mean overall score over the runs that scored. */
  meanScore: number | null;
  passedRuns: number;
}

export interface CaseSummary {
  evalSetId: string;
  evalId: string;
  runs: number;
  passedRuns: number;
  passRate: number;
  passed: boolean;
  metrics: MetricSummary[];
  /** Errors raised while running the agent, if any. */
  errors: string[];
}

export interface EvaluateResult {
  /** One per eval set, in adk-python's EvalSetResult shape (one case result per run). */
  evalSetResults: EvalSetResult[];
  cases: CaseSummary[];
  passed: boolean;
  totals: { cases: number; passedCases: number; failedCases: number; runs: number; passedRuns: number };
}

/** Runs `tasks` with at most `limit` in flight. */
async function pool<T>(tasks: (() => Promise<T>)[], limit: number): Promise<T[]> {
  const results = new Array<T>(tasks.length);
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const i = next++;
      results[i] = await (tasks[i] as () => Promise<T>)();
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, tasks.length)) }, worker));
  return results;
}

/** adk-python's rule: any failed metric fails the case; otherwise any passed metric passes it. */
export function finalEvalStatus(results: EvalMetricResult[]): EvalStatus {
  let status: EvalStatus = EvalStatus.NOT_EVALUATED;
  for (const r of results) {
    if (r.evalStatus === EvalStatus.FAILED) return EvalStatus.FAILED;
    if (r.evalStatus === EvalStatus.PASSED) status = EvalStatus.PASSED;
  }
  return status;
}

/** What judges may be told about the agents: instructions and tool declarations, by agent name. */
function agentDetails(agent: BaseAgent): Pick<MetricContext, 'agentInstructions' | 'toolDeclarations'> {
  const agentInstructions: Record<string, string> = {};
  const toolDeclarations: Record<string, FunctionDeclaration[]> = {};
  const visit = (a: BaseAgent) => {
    if (a instanceof LlmAgent) {
      if (typeof a.instruction === 'string') agentInstructions[a.name] = a.instruction;
      const declarations = a.tools.flatMap((t) => {
        const d = t instanceof BaseTool ? t.declaration() : undefined;
        return d ? [d] : [];
      });
      if (declarations.length) toolDeclarations[a.name] = declarations;
    }
    for (const s of a.subAgents) visit(s);
  };
  visit(agent);
  return { agentInstructions, toolDeclarations };
}

function sessionDetails(session: Session): SessionDetails {
  return {
    id: session.id,
    appName: session.appName,
    userId: session.userId,
    state: session.state,
    // adk-python's Session shape: times in float seconds.
    events: session.events.map((e) => ({ ...e, timestamp: e.timestamp / 1000 })),
    lastUpdateTime: session.lastUpdateTime / 1000,
  };
}

/** Computes every metric for one run of a case. */
export async function scoreRun(
  evalCase: EvalCase,
  actual: MetricContext['actualInvocations'],
  finalSessionState: Record<string, unknown>,
  metrics: EvalMetric[],
  table: Map<string, Metric>,
  base: Pick<MetricContext, 'judge' | 'agentInstructions' | 'toolDeclarations' | 'signal'>,
): Promise<{ overall: EvalMetricResult[]; perInvocation: EvalMetricResultPerInvocation[] }> {
  const expected = evalCase.conversation;
  const perInvocation: EvalMetricResultPerInvocation[] = actual.map((a, i) => ({
    actualInvocation: a,
    ...(expected?.[i] ? { expectedInvocation: expected[i] } : {}),
    evalMetricResults: [],
  }));
  const overall: EvalMetricResult[] = [];
  for (const metric of metrics) {
    const threshold = metric.criterion?.threshold ?? metric.threshold ?? 0;
    const criterion = metric.criterion ?? { threshold };
    const definition = table.get(metric.metricName);
    const header = { metricName: metric.metricName, threshold, criterion };
    if (!definition) {
      overall.push({
        ...header,
        score: null,
        evalStatus: EvalStatus.NOT_EVALUATED,
        details: { error: `Unknown metric ${metric.metricName}` },
      });
      continue;
    }
    try {
      const raw = await definition.evaluate({
        ...base,
        metric,
        threshold,
        criterion,
        actualInvocations: actual,
        expectedInvocations: expected,
        conversationScenario: evalCase.conversationScenario,
        evalCase,
        finalSessionState,
      });
      const result =
        typeof raw === 'number'
          ? {
              overallScore: raw,
              overallEvalStatus: Number.isNaN(raw)
                ? EvalStatus.NOT_EVALUATED
                : raw >= threshold
                  ? EvalStatus.PASSED
                  : EvalStatus.FAILED,
              perInvocationResults: [],
            }
          : raw;
      overall.push({
        ...header,
        score: result.overallScore ?? null,
        evalStatus: result.overallEvalStatus,
        details: {
          ...(result.overallRubricScores ? { rubricScores: result.overallRubricScores } : {}),
          ...(result.note ? { note: result.note } : {}),
        },
      });
      result.perInvocationResults.forEach((p, i) => {
        const slot = perInvocation.find((x) => x.actualInvocation === p.actualInvocation) ?? perInvocation[i];
        slot?.evalMetricResults.push({
          ...header,
          score: p.score ?? null,
          evalStatus: p.evalStatus,
          details: p.rubricScores ? { rubricScores: p.rubricScores } : {},
        });
      });
    } catch (error) {
      overall.push({
        ...header,
        score: null,
        evalStatus: EvalStatus.NOT_EVALUATED,
        details: { error: error instanceof Error ? error.message : String(error) },
      });
    }
  }
  return { overall, perInvocation };
}

/**
 * Evaluates an agent on eval sets: runs every case (`numRuns` times, `concurrency` at once),
 * computes the metrics of the config, and returns adk-python EvalSetResults plus a per-case summary
 * with pass rates.
 */
export async function evaluate(options: EvaluateOptions): Promise<EvaluateResult> {
  const sets = await Promise.all(
    (Array.isArray(options.evalSets) ? options.evalSets : [options.evalSets]).map((s) =>
      typeof s === 'string' ? loadEvalSetFile(s) : s,
    ),
  );
  const config = options.config ?? DEFAULT_EVAL_CONFIG;
  const metrics = options.metrics ?? metricsFromConfig(config);
  const table = metricTable(options.customMetrics);
  const numRuns = Math.max(1, options.numRuns ?? 1);
  const appName = options.appName ?? options.agent.name;
  const sessionService = options.sessionService ?? new InMemorySessionService();
  const judgeOption = options.judge;
  const judges = new Map<string, Llm>();
  const judge = (name: string): Llm => {
    if (judgeOption && typeof judgeOption !== 'function') return judgeOption;
    let llm = judges.get(name);
    if (!llm) {
      llm = judgeOption ? judgeOption(name) : resolveModel(name, options.models);
      judges.set(name, llm);
    }
    return llm;
  };
  const simulatorOption =
    options.userSimulator ?? (config.userSimulatorConfig as LlmUserSimulatorOptions | undefined);
  const userSimulator =
    typeof simulatorOption === 'function'
      ? simulatorOption
      : (evalCase: EvalCase) =>
          new LlmUserSimulator(
            evalCase.conversationScenario as NonNullable<EvalCase['conversationScenario']>,
            {
              ...simulatorOption,
              ...(options.models ? { models: options.models } : {}),
            },
          );
  const details = agentDetails(options.agent);
  const reporter =
    options.progress === false
      ? undefined
      : typeof options.progress === 'object'
        ? options.progress
        : progressBar();

  type Job = { set: EvalSet; evalCase: EvalCase; run: number };
  const jobs: Job[] = sets.flatMap((set) =>
    set.evalCases.flatMap((evalCase) =>
      Array.from({ length: numRuns }, (_, r) => ({ set, evalCase, run: r + 1 })),
    ),
  );
  reporter?.start(jobs.length);
  const errorsByCase = new Map<string, string[]>();

  const results = await pool(
    jobs.map((job) => async (): Promise<EvalCaseResult> => {
      let caseResult: EvalCaseResult;
      try {
        const inference = await runEvalCase(job.evalCase, {
          agent: options.agent,
          appName,
          sessionService,
          ...(options.runnerOptions ? { runnerOptions: options.runnerOptions } : {}),
          userSimulator,
          ...(options.signal ? { signal: options.signal } : {}),
        });
        if (inference.error) {
          const key = `${job.set.evalSetId}\u0000${job.evalCase.evalId}`;
          errorsByCase.set(key, [...(errorsByCase.get(key) ?? []), inference.error]);
        }
        const scored = await scoreRun(
          job.evalCase,
          inference.invocations,
          inference.session.state,
          metrics,
          table,
          {
            judge,
            ...details,
            signal: options.signal,
          },
        );
        caseResult = {
          evalSetFile: job.set.evalSetId,
          evalSetId: job.set.evalSetId,
          evalId: job.evalCase.evalId,
          finalEvalStatus: finalEvalStatus(scored.overall),
          evalMetricResults: scored.overall.map((r) => [
            {
              metricName: r.metricName,
              threshold: r.threshold ?? 0,
              ...(r.criterion ? { criterion: r.criterion } : {}),
            },
            r,
          ]),
          overallEvalMetricResults: scored.overall,
          evalMetricResultPerInvocation: scored.perInvocation,
          sessionId: inference.session.id,
          sessionDetails: sessionDetails(inference.session),
          userId: inference.userId,
          runNumber: job.run,
        };
      } catch (error) {
        if (options.signal?.aborted) throw error;
        const key = `${job.set.evalSetId}\u0000${job.evalCase.evalId}`;
        errorsByCase.set(key, [
          ...(errorsByCase.get(key) ?? []),
          error instanceof Error ? error.message : String(error),
        ]);
        caseResult = {
          evalSetFile: job.set.evalSetId,
          evalSetId: job.set.evalSetId,
          evalId: job.evalCase.evalId,
          finalEvalStatus: EvalStatus.FAILED,
          evalMetricResults: [],
          overallEvalMetricResults: [],
          evalMetricResultPerInvocation: [],
          sessionId: '',
          runNumber: job.run,
        };
      }
      reporter?.tick({
        evalSetId: job.set.evalSetId,
        evalId: job.evalCase.evalId,
        run: job.run,
        passed: caseResult.finalEvalStatus === EvalStatus.PASSED,
      });
      return caseResult;
    }),
    options.concurrency ?? 4,
  );
  reporter?.finish();

  const now = Date.now() / 1000;
  const evalSetResults: EvalSetResult[] = sets.map((set) => {
    const id = `${appName}_${set.evalSetId}_${now}`;
    return {
      evalSetResultId: id,
      evalSetResultName: id.replaceAll('/', '_'),
      evalSetId: set.evalSetId,
      evalCaseResults: results.filter((r) => r.evalSetId === set.evalSetId),
      creationTimestamp: now,
    };
  });

  const minPassRate = options.minPassRate ?? 1;
  const cases: CaseSummary[] = sets.flatMap((set) =>
    set.evalCases.map((evalCase) => {
      const runs = results.filter((r) => r.evalSetId === set.evalSetId && r.evalId === evalCase.evalId);
      const passedRuns = runs.filter((r) => r.finalEvalStatus === EvalStatus.PASSED).length;
      const passRate = runs.length ? passedRuns / runs.length : 0;
      return {
        evalSetId: set.evalSetId,
        evalId: evalCase.evalId,
        runs: runs.length,
        passedRuns,
        passRate,
        passed: passRate >= minPassRate && passedRuns > 0,
        metrics: metrics.map((m) => {
          const scores = runs.flatMap((r) =>
            r.overallEvalMetricResults.filter(
              (x) => x.metricName === m.metricName && typeof x.score === 'number',
            ),
          );
          return {
            metricName: m.metricName,
            threshold: m.criterion?.threshold ?? m.threshold ?? 0,
            meanScore: scores.length
              ? scores.reduce((s, x) => s + (x.score as number), 0) / scores.length
              : null,
            passedRuns: scores.filter((x) => x.evalStatus === EvalStatus.PASSED).length,
          };
        }),
        errors: errorsByCase.get(`${set.evalSetId}\u0000${evalCase.evalId}`) ?? [],
      };
    }),
  );
  const passedCases = cases.filter((c) => c.passed).length;
  return {
    evalSetResults,
    cases,
    passed: passedCases === cases.length,
    totals: {
      cases: cases.length,
      passedCases,
      failedCases: cases.length - passedCases,
      runs: results.length,
      passedRuns: results.filter((r) => r.finalEvalStatus === EvalStatus.PASSED).length,
    },
  };
}

/** The process exit code for CI: 0 when every case passed, 1 otherwise. */
export function exitCodeFor(result: Pick<EvaluateResult, 'passed'>): number {
  return result.passed ? 0 : 1;
}
