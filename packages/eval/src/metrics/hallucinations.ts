import type { Content } from '@adk/core';
import { EvalStatus, type Invocation, type InvocationEvent } from '../eval-set/types.js';
import { averageResult, mean, statusFor, textOf } from './invocation-utils.js';
import { askJudge } from './judge.js';
import type { EvaluationResult, Metric, MetricContext, PerInvocationResult } from './metric.js';

const POSITIVE = new Set(['supported', 'not_applicable']);
const NEGATIVE = new Set(['unsupported', 'contradictory', 'disputed']);

export function segmenterPrompt(response: string): string {
  return [
    'Split the response below into its sentences so each can be checked on its own. Copy every',
    'sentence word for word; each bullet point or list item is its own sentence; a table is one',
    'sentence; skip fragments that are only symbols; add nothing.',
    'Wrap each sentence in <sentence> and </sentence>, one per line.',
    '',
    `Response:\n${response}`,
  ].join('\n');
}

export function validatorPrompt(context: string, sentences: string[]): string {
  return [
    "Check each sentence of an AI agent's response against the context the agent had (its",
    'instructions, the user prompt, and the tool calls and tool outputs). Label each sentence:',
    '- supported: the context clearly entails it',
    '- unsupported: the context does not entail it',
    '- contradictory: the context contradicts it',
    '- disputed: the context both supports and contradicts it',
    '- not_applicable: it needs no evidence (greetings, questions, opinions, plans)',
    'Be strict: without a clear excerpt, a factual sentence is unsupported.',
    '',
    `Context:\n${context}`,
    '',
    `Sentences:\n${sentences.map((s) => `<sentence>${s}</sentence>`).join('\n')}`,
    '',
    'For every sentence, in order, answer with this block (use null for an absent excerpt):',
    'sentence: <the sentence>',
    'label: <label>',
    'rationale: <short reason>',
    'supporting_excerpt: <excerpt or null>',
    'contradicting_excerpt: <excerpt or null>',
  ].join('\n');
}

export function parseSentences(text: string): string[] {
  return [...text.matchAll(/<sentence>([\s\S]*?)<\/sentence>/g)].map((m) => m[1] ?? '');
}

export function parseLabels(text: string): string[] {
  const blocks = text.trim().matchAll(/sentence:([\s\S]*?)\nlabel:([\s\S]*?)\nrationale:/gi);
  return [...blocks].map((m) => (m[2] ?? '').trim().toLowerCase());
}

function eventsOf(invocation: Invocation): InvocationEvent[] {
  const data = invocation.intermediateData;
  if (!data) return [];
  if ('invocationEvents' in data) return data.invocationEvents;
  const events: InvocationEvent[] = [];
  if (data.toolUses.length)
    events.push({
      author: 'agent',
      content: { role: 'model', parts: data.toolUses.map((c) => ({ functionCall: c })) },
    });
  if (data.toolResponses.length)
    events.push({
      author: 'agent',
      content: { role: 'user', parts: data.toolResponses.map((r) => ({ functionResponse: r })) },
    });
  return events;
}

function contextFor(ctx: MetricContext, invocation: Invocation, events: InvocationEvent[]): string {
  const instructions = Object.entries(ctx.agentInstructions)
    .map(([name, text]) => `${name}:\n${text}`)
    .join('\n\n');
  const tools = Object.values(ctx.toolDeclarations).flat();
  const lines = [
    `Developer instructions:\n${instructions}\n`,
    `User prompt:\n${textOf(invocation.userContent)}\n`,
    `Tool definitions:\n${tools.length ? JSON.stringify(tools, null, 2) : 'Agent has no tools.'}\n`,
  ];
  for (const e of events) {
    const content = e.content as Content | undefined;
    if (!content) continue;
    const text = content.parts.filter((p) => p.text && !p.thought).map((p) => p.text);
    if (text.length) lines.push(`${text.join('\n')}\n`);
    const calls = content.parts.flatMap((p) =>
      p.functionCall ? [{ name: p.functionCall.name, args: p.functionCall.args }] : [],
    );
    if (calls.length) lines.push(`tool_calls:\n${JSON.stringify(calls, null, 2)}\n`);
    const outputs = content.parts.flatMap((p) =>
      p.functionResponse ? [{ name: p.functionResponse.name, response: p.functionResponse.response }] : [],
    );
    if (outputs.length) lines.push(`tool_outputs:\n${JSON.stringify(outputs, null, 2)}\n`);
  }
  return lines.join('\n');
}

async function scoreResponse(
  ctx: MetricContext,
  response: string,
  context: string,
): Promise<number | undefined> {
  try {
    const sentences = parseSentences(await askJudge(ctx, segmenterPrompt(response)));
    if (sentences.length === 0) return undefined;
    const labels = parseLabels(await askJudge(ctx, validatorPrompt(context, sentences)));
    return mean(labels.flatMap((l) => (POSITIVE.has(l) ? [1] : NEGATIVE.has(l) ? [0] : [])));
  } catch {
    return undefined;
  }
}

/**
 * `hallucinations_v1`: a judge splits each response into sentences, then labels each against what
 * the agent knew (instructions, user prompt, tool calls and outputs). The score is the share of
 * sentences that are supported or need no support, averaged over the responses and invocations.
 * Only final responses are checked unless `evaluate_intermediate_nl_responses` is set.
 */
export const hallucinationsV1: Metric = {
  name: 'hallucinations_v1',
  description:
    "An LLM judge checks that every sentence of the agent's responses is grounded in its context and tool outputs.",
  async evaluate(ctx): Promise<EvaluationResult> {
    const per: PerInvocationResult[] = [];
    for (const [i, a] of ctx.actualInvocations.entries()) {
      const e = ctx.expectedInvocations?.[i];
      const events = eventsOf(a);
      const steps: { response: string; context: string }[] = [];
      if (ctx.criterion.evaluateIntermediateNlResponses) {
        const seen: InvocationEvent[] = [];
        for (const event of events) {
          const text = textOf(event.content as Content | undefined);
          if (text) steps.push({ response: text, context: contextFor(ctx, a, seen) });
          seen.push(event);
        }
      }
      const final = textOf(a.finalResponse);
      if (final) steps.push({ response: final, context: contextFor(ctx, a, events) });
      if (steps.length === 0) {
        per.push({
          actualInvocation: a,
          expectedInvocation: e,
          score: null,
          evalStatus: EvalStatus.NOT_EVALUATED,
        });
        continue;
      }
      const scores = (await Promise.all(steps.map((s) => scoreResponse(ctx, s.response, s.context)))).filter(
        (s): s is number => s !== undefined,
      );
      const score = mean(scores);
      per.push({
        actualInvocation: a,
        expectedInvocation: e,
        score: score ?? null,
        evalStatus: statusFor(score, ctx.threshold),
      });
    }
    return averageResult(per, ctx.threshold);
  },
};
