import { averageResult, notEvaluated, pairs, textOf } from './invocation-utils.js';
import { judgeByMajority, judgeJson } from './judge.js';
import type { EvaluationResult, Metric } from './metric.js';

export function finalResponseMatchPrompt(
  userPrompt: string,
  response: string,
  golden: string,
  functions: { name: string; description?: string | undefined }[] = [],
): string {
  return [
    "You are grading an AI agent. Decide whether the agent's final response to the user is valid,",
    'using the reference response as the source of truth. A response is valid when it gives the same',
    'answer or facts as the reference; wording, order and extra politeness do not matter, but missing,',
    'wrong or contradicting facts make it invalid.',
    '',
    `Tools the agent can call:\n${functions.length ? JSON.stringify(functions.map((f) => ({ name: f.name, description: f.description }))) : 'None'}`,
    '',
    `User prompt:\n${userPrompt}`,
    '',
    `Agent response:\n${response}`,
    '',
    `Reference response:\n${golden}`,
    '',
    'Answer with JSON only, in this shape:',
    '{"reasoning": "<one or two sentences>", "is_the_agent_response_valid": "valid" | "invalid"}',
  ].join('\n');
}

/** Reads a 1 (valid) / 0 (invalid) verdict from a judge's reply; undefined when there is none. */
export function parseValidityVerdict(text: string): number | undefined {
  const json = judgeJson(text);
  // adk-python also accepts the label under `is_the_agent_response_invalid`.
  let label = json?.is_the_agent_response_valid ?? json?.is_the_agent_response_invalid;
  if (Array.isArray(label)) label = label[0];
  if (typeof label !== 'string') {
    const m = /"?is_the_agent_response_(?:in)?valid"?\s*:\s*\[?\s*"?([A-Za-z_ ]+)"?/.exec(text);
    label = m?.[1];
  }
  if (typeof label !== 'string') return undefined;
  const l = label.trim().toLowerCase();
  if (l === 'valid' || l === 'true') return 1;
  if (l === 'invalid' || l === 'false') return 0;
  return undefined;
}

/**
 * `final_response_match_v2`: an LLM judge decides whether the final response is valid against
 * the expected one; each invocation is judged `num_samples` times and decided by majority vote;
 * the score is the fraction of judged invocations that are valid.
 */
export const finalResponseMatchV2: Metric = {
  name: 'final_response_match_v2',
  description:
    "An LLM judge decides whether the agent's final response is valid against the expected response.",
  async evaluate(ctx): Promise<EvaluationResult> {
    if (!ctx.expectedInvocations)
      return notEvaluated('needs expected invocations (a static conversation)', ctx.actualInvocations);
    const functions = Object.values(ctx.toolDeclarations).flat();
    const per = await Promise.all(
      pairs(ctx.actualInvocations, ctx.expectedInvocations).map(([a, e]) =>
        judgeByMajority(
          ctx,
          a,
          e,
          finalResponseMatchPrompt(
            textOf(e?.userContent),
            textOf(a.finalResponse),
            textOf(e?.finalResponse),
            functions,
          ),
          parseValidityVerdict,
        ),
      ),
    );
    // The fraction of judged invocations that are valid (failed samples are left out).
    return averageResult(per, ctx.threshold);
  },
};
