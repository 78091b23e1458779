import { EvalMetricError } from '../errors.js';
import { EvalStatus, type Invocation, type Rubric, type RubricScore } from '../eval-set/types.js';
import { mean, pairs, statusFor, textOf, toolCallsWithResponses } from './invocation-utils.js';
import { sampleJudge } from './judge.js';
import type { EvaluationResult, Metric, MetricContext, PerInvocationResult } from './metric.js';

interface ParsedVerdict {
  rubricId?: string;
  property: string;
  rationale: string;
  score: number | undefined;
}

/**
 * Reads rubric verdicts from a judge's reply: blocks of `ID:` (optional), `Property:`,
 * `Rationale:` and `Verdict: yes|no`. A reply whose counts do not line up yields nothing, so a
 * half-parsed reply cannot hide a failed rubric.
 */
export function parseRubricVerdicts(text: string): ParsedVerdict[] {
  const properties = [...text.matchAll(/^\s*Property:\s?(.*)$/gm)];
  const ids = [...text.matchAll(/^\s*ID:\s?(.*)$/gm)];
  const rationales = [...text.matchAll(/Rationale:\s?(.*)/g)].map((m) => m[1] ?? '');
  const verdicts = [...text.matchAll(/Verdict:\s?(.*)/g)].map((m) => {
    const v = (m[1] ?? '').toLowerCase();
    return v.includes('yes') ? 1 : v.includes('no') ? 0 : undefined;
  });
  if (properties.length !== rationales.length || properties.length !== verdicts.length) return [];
  return properties.map((p, i) => {
    const start = p.index ?? 0;
    const previous = i > 0 ? (properties[i - 1]?.index ?? -1) : -1;
    const id = ids
      .filter((m) => (m.index ?? 0) > previous && (m.index ?? 0) < start)
      .at(-1)?.[1]
      ?.trim();
    return {
      ...(id ? { rubricId: id } : {}),
      property: (p[1] ?? '').trim(),
      rationale: (rationales[i] ?? '').trim(),
      score: verdicts[i],
    };
  });
}

function normalize(text: string | null | undefined): string {
  return (text ?? '')
    .normalize('NFKC')
    .replace(/[\u2018\u2019]/g, "'")
    .replace(/[\u201c\u201d]/g, '"')
    .replace(/[\u2013\u2014]/g, '-')
    .replace(/\s+/g, ' ')
    .replace(/^[\s*_`#>\-\u2022"']+|[\s*_`#>\-\u2022"']+$/g, '')
    .toLowerCase();
}

function effectiveRubrics(
  ctx: MetricContext,
  expected: Invocation | undefined,
  actual: Invocation,
  type: string,
): Rubric[] {
  const byId = new Map<string, Rubric>();
  const add = (rubrics: Rubric[] | undefined, where: string, filter: boolean) => {
    for (const r of rubrics ?? []) {
      if (filter && r.type !== type) continue;
      if (byId.has(r.rubricId))
        throw new EvalMetricError(`Rubric "${r.rubricId}" from the ${where} is defined twice`);
      byId.set(r.rubricId, r);
    }
  };
  add(ctx.criterion.rubrics, 'criterion', false);
  add(ctx.evalCase.rubrics, 'eval case', true);
  add(expected?.rubrics ?? actual.rubrics, 'invocation', true);
  return [...byId.values()];
}

function scoreVerdicts(text: string, rubrics: Rubric[]): RubricScore[] {
  const byId = new Map(rubrics.map((r) => [r.rubricId, r]));
  const byText = new Map(rubrics.map((r) => [normalize(r.rubricContent.textProperty), r]));
  const scores: RubricScore[] = [];
  for (const v of parseRubricVerdicts(text)) {
    const rubric = (v.rubricId ? byId.get(v.rubricId) : undefined) ?? byText.get(normalize(v.property));
    if (rubric) scores.push({ rubricId: rubric.rubricId, rationale: v.rationale, score: v.score ?? null });
  }
  return scores;
}

function rubricMean(scores: RubricScore[]): number | undefined {
  return mean(scores.flatMap((s) => (typeof s.score === 'number' ? [s.score] : [])));
}

/** Majority vote per rubric across samples (ties negative), as adk-python aggregates samples. */
function voteRubrics(samples: RubricScore[][]): RubricScore[] {
  const buckets = new Map<string, { none: RubricScore[]; yes: RubricScore[]; no: RubricScore[] }>();
  for (const sample of samples) {
    for (const s of sample) {
      let b = buckets.get(s.rubricId);
      if (!b) {
        b = { none: [], yes: [], no: [] };
        buckets.set(s.rubricId, b);
      }
      if (typeof s.score !== 'number') b.none.push(s);
      else if (s.score === 1) b.yes.push(s);
      else b.no.push(s);
    }
  }
  return [...buckets.values()].map((b) =>
    b.yes.length === 0 && b.no.length === 0
      ? (b.none[0] as RubricScore)
      : b.yes.length > b.no.length
        ? (b.yes[0] as RubricScore)
        : (b.no[0] as RubricScore),
  );
}

function rubricList(rubrics: Rubric[]): string {
  return rubrics
    .map(
      (r) =>
        `ID: ${r.rubricId}\nProperty: ${r.rubricContent.textProperty ?? ''}${r.description ? `\nGuidance: ${r.description}` : ''}`,
    )
    .join('\n\n');
}

function verdictInstructions(): string {
  return [
    'For every property, in the order given, answer with exactly this block:',
    "ID: <the property's ID>",
    'Property: <the property text, copied>',
    'Rationale: <one or two sentences>',
    'Verdict: yes | no',
  ].join('\n');
}

function toolTrace(invocation: Invocation): string {
  const steps = toolCallsWithResponses(invocation.intermediateData);
  if (steps.length === 0) return 'No intermediate steps were taken.';
  return JSON.stringify(
    steps.map((s, step) => ({
      step,
      tool_call: { name: s.call.name, args: s.call.args },
      tool_response: s.response?.response ?? 'None',
    })),
    null,
    2,
  );
}

function rubricMetric(
  name: string,
  type: string,
  description: string,
  prompt: (a: Invocation, e: Invocation | undefined, rubrics: Rubric[]) => string,
): Metric {
  return {
    name,
    description,
    async evaluate(ctx): Promise<EvaluationResult> {
      const per: PerInvocationResult[] = await Promise.all(
        pairs(ctx.actualInvocations, ctx.expectedInvocations).map(async ([a, e]) => {
          const rubrics = effectiveRubrics(ctx, e, a, type);
          if (rubrics.length === 0)
            throw new EvalMetricError(
              `${name} needs rubrics (in the criterion, the eval case or the invocation)`,
            );
          const samples = await sampleJudge(ctx, prompt(a, e, rubrics));
          if (samples.some((s) => s instanceof Error))
            return {
              actualInvocation: a,
              expectedInvocation: e,
              score: null,
              evalStatus: EvalStatus.NOT_EVALUATED,
            };
          const voted = voteRubrics(samples.map((s) => scoreVerdicts(s as string, rubrics)));
          const score = rubricMean(voted);
          return {
            actualInvocation: a,
            expectedInvocation: e,
            score: score ?? null,
            evalStatus: statusFor(score, ctx.threshold),
            rubricScores: voted,
          };
        }),
      );
      // The overall score is the mean of every rubric verdict of every invocation.
      const all = per.flatMap((p) => p.rubricScores ?? []);
      const overall = rubricMean(all);
      const ids = [...new Set(all.map((s) => s.rubricId))];
      return {
        overallScore: overall ?? null,
        overallEvalStatus: statusFor(overall, ctx.threshold),
        perInvocationResults: per,
        overallRubricScores: ids.map((rubricId) => ({
          rubricId,
          score: rubricMean(all.filter((s) => s.rubricId === rubricId)) ?? null,
          rationale:
            "Mean of this rubric over the invocations; see each invocation for the judge's rationale.",
        })),
      };
    },
  };
}

/** `rubric_based_final_response_quality_v1`: a judge checks the final response against rubrics. */
export const rubricBasedFinalResponseQualityV1 = rubricMetric(
  'rubric_based_final_response_quality_v1',
  'FINAL_RESPONSE_QUALITY',
  "An LLM judge checks the agent's final response against rubrics; the score is the fraction of rubrics met.",
  (a, e, rubrics) =>
    [
      'You are grading the final response of an AI agent against a list of properties.',
      'Decide for each property whether the response has it. Judge only what is in the response.',
      '',
      `User prompt:\n${textOf(e?.userContent ?? a.userContent)}`,
      '',
      `Tool calls and responses:\n${toolTrace(a)}`,
      '',
      `Final response:\n${textOf(a.finalResponse)}`,
      '',
      `Properties:\n${rubricList(rubrics)}`,
      '',
      verdictInstructions(),
    ].join('\n'),
);

/** `rubric_based_tool_use_quality_v1`: a judge checks the tool calls against rubrics. */
export const rubricBasedToolUseQualityV1 = rubricMetric(
  'rubric_based_tool_use_quality_v1',
  'TOOL_USE_QUALITY',
  "An LLM judge checks the agent's tool calls against rubrics; the score is the fraction of rubrics met.",
  (a, e, rubrics) =>
    [
      'You are grading how an AI agent used its tools, against a list of properties.',
      'Decide for each property whether the tool calls (names, arguments, order) have it.',
      '',
      `User prompt:\n${textOf(e?.userContent ?? a.userContent)}`,
      '',
      `Tool calls and responses:\n${toolTrace(a)}`,
      '',
      `Properties:\n${rubricList(rubrics)}`,
      '',
      verdictInstructions(),
    ].join('\n'),
);
