import { AdkError, ValidationError } from '../errors/errors.js';
import type { Content } from '../events/content.js';
import { contentText } from '../events/content.js';
import type { Event } from '../events/event.js';
import { isFinalResponse } from '../events/event.js';
import type { Llm } from '../models/llm.js';
import { isPlainObject, tryParseJson } from '../utils/json.js';

/**
 * Scorers on live traffic: a function of one finished turn that returns a score, run after the
 * turn and off its response path (docs/decisions/0057-scorers-on-live-traffic.md).
 */

/** One finished turn (invocation), as a scorer sees it. */
export interface ScorerTurn {
  appName: string;
  userId: string;
  sessionId: string;
  invocationId: string;
  /** The OpenTelemetry trace of the invocation, when tracing was on. */
  traceId?: string;
  /** The runner's root agent. */
  agentName: string;
  /** The user's message that started the turn. */
  userContent?: Content;
  /** The turn's committed (non-partial) events, in order. */
  events: readonly Event[];
  /** The text of the turn's last final response ('' when there is none). */
  responseText: string;
  /** The turn ended with an error event. */
  error?: { code: string; message: string };
}

/** What a score function returns: a number, or a number with a reason. */
export interface ScoreOutput {
  score: number;
  reason?: string;
}

export interface ScorerContext {
  /** Aborted when the scorer's time is up or the worker stops. */
  signal: AbortSignal;
}

export type ScoreFunction = (
  turn: ScorerTurn,
  context: ScorerContext,
) => number | ScoreOutput | Promise<number | ScoreOutput>;

/** A scorer: a named, versioned score function with its sampling rate and filter. */
export interface Scorer {
  readonly name: string;
  /** Bumped when the score function changes; stored with each result (default '1'). */
  readonly version: string;
  /** Share of turns scored, 0..1 (default 1). */
  readonly sampleRate: number;
  /** Only turns of this agent (the runner's root agent name); default every turn. */
  readonly agentName?: string;
  /** Only turns it returns true for (a throwing filter is a failed score). */
  readonly filter?: (turn: ScorerTurn) => boolean | Promise<boolean>;
  /** ms before the scorer is stopped and its result recorded as failed (default 30 000). */
  readonly timeoutMs?: number;
  readonly score: ScoreFunction;
}

export interface ScorerOptions {
  name: string;
  version?: string;
  sampleRate?: number;
  agentName?: string;
  filter?: Scorer['filter'];
  timeoutMs?: number;
}

const NAME = /^[A-Za-z0-9_.:-]{1,128}$/;

/** A scorer from a plain function. Throws a `ValidationError` for a bad name or sampling rate. */
export function defineScorer(options: ScorerOptions & { score: ScoreFunction }): Scorer {
  if (!NAME.test(options.name))
    throw new ValidationError(
      `Invalid scorer name ${JSON.stringify(options.name)}: 1-128 letters, digits and _ . : -`,
    );
  const rate = options.sampleRate ?? 1;
  if (!Number.isFinite(rate) || rate < 0 || rate > 1)
    throw new ValidationError(`Scorer '${options.name}': sampleRate must be between 0 and 1, got ${rate}`);
  if (options.timeoutMs !== undefined && (!Number.isFinite(options.timeoutMs) || options.timeoutMs <= 0))
    throw new ValidationError(`Scorer '${options.name}': timeoutMs must be a positive number`);
  const version = options.version ?? '1';
  if (version.length === 0 || version.length > 64)
    throw new ValidationError(`Scorer '${options.name}': version must be 1-64 characters`);
  return {
    name: options.name,
    version,
    sampleRate: rate,
    ...(options.agentName !== undefined ? { agentName: options.agentName } : {}),
    ...(options.filter ? { filter: options.filter } : {}),
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    score: options.score,
  };
}

/** Whether a scorer's score function returned something unusable. */
export class ScorerOutputError extends AdkError {
  constructor(message: string) {
    super('SCORER_OUTPUT', message);
  }
}

/** The scorer ran past its `timeoutMs`. */
export class ScorerTimeoutError extends AdkError {
  constructor(name: string, ms: number) {
    super('SCORER_TIMEOUT', `Scorer '${name}' did not finish within ${ms} ms`);
  }
}

/** Checks a score function's return value; NaN, infinities and other types are errors. */
export function normalizeScore(value: unknown): ScoreOutput {
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new ScorerOutputError(`Score is not a finite number: ${value}`);
    return { score: value };
  }
  if (isPlainObject(value) && typeof value.score === 'number' && Number.isFinite(value.score)) {
    if (value.reason !== undefined && typeof value.reason !== 'string')
      throw new ScorerOutputError('Score reason must be a string');
    return value.reason === undefined ? { score: value.score } : { score: value.score, reason: value.reason };
  }
  throw new ScorerOutputError(`A scorer must return a finite number or { score, reason? }`);
}

/**
 * Whether a turn is sampled for a scorer at `rate`: a hash of (seed, scorer, invocation) compared
 * with the rate, so one invocation gets the same answer everywhere and a seeded test is exact.
 */
export function isSampled(rate: number, scorerName: string, invocationId: string, seed = ''): boolean {
  if (rate >= 1) return true;
  if (rate <= 0) return false;
  return hashUnit(`${seed}\u0000${scorerName}\u0000${invocationId}`) < rate;
}

/** FNV-1a over UTF-16 code units, then a murmur3 finalizer: a well-spread value in [0, 1). */
function hashUnit(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return (h >>> 0) / 0x1_0000_0000;
}

/** The scorer's view of a turn, from the session's events of one invocation. */
export function scorerTurnOf(params: {
  appName: string;
  userId: string;
  sessionId: string;
  invocationId: string;
  agentName: string;
  traceId?: string;
  events: readonly Event[];
}): ScorerTurn {
  const events = params.events.filter((e) => e.invocationId === params.invocationId && !e.partial);
  const user = events.find((e) => e.author === 'user' && e.content);
  const final = [...events].reverse().find((e) => e.author !== 'user' && e.content && isFinalResponse(e));
  const failed = [...events].reverse().find((e) => e.errorCode !== undefined);
  return {
    appName: params.appName,
    userId: params.userId,
    sessionId: params.sessionId,
    invocationId: params.invocationId,
    ...(params.traceId ? { traceId: params.traceId } : {}),
    agentName: params.agentName,
    ...(user?.content ? { userContent: user.content } : {}),
    events,
    responseText: final ? contentText(final.content) : '',
    ...(failed?.errorCode !== undefined
      ? { error: { code: failed.errorCode, message: failed.errorMessage ?? '' } }
      : {}),
  };
}

export interface LlmJudgeScorerOptions extends ScorerOptions {
  /** The judge model. */
  model: Llm;
  /** What a good answer is; the judge scores the turn against it. */
  rubric: string;
  /** The score scale the judge uses (default 0..1); scores outside it are errors. */
  scale?: { min: number; max: number };
}

/**
 * A scorer that asks a model to grade the turn against a rubric. The judge must answer with one
 * JSON object `{"score": number, "reason": string}` (a Markdown code fence around it is allowed);
 * anything else, or a score outside the scale, is a failed score (`SCORER_OUTPUT`).
 */
export function llmJudgeScorer(options: LlmJudgeScorerOptions): Scorer {
  const scale = options.scale ?? { min: 0, max: 1 };
  if (!(scale.min < scale.max))
    throw new ValidationError(`Scorer '${options.name}': scale.min must be below scale.max`);
  if (options.rubric.trim() === '')
    throw new ValidationError(`Scorer '${options.name}': the rubric is empty`);
  const { model, rubric, scale: _scale, ...rest } = options;
  return defineScorer({
    ...rest,
    async score(turn, { signal }) {
      const prompt = [
        'Grade the assistant turn below against the rubric.',
        `Rubric:\n${rubric}`,
        `User message:\n${contentText(turn.userContent)}`,
        `Assistant response:\n${turn.responseText}`,
        `Answer with only a JSON object {"score": <number from ${scale.min} to ${scale.max}>, "reason": "<one sentence>"}.`,
      ].join('\n\n');
      let text = '';
      for await (const response of model.generate(
        {
          model: model.model,
          contents: [{ role: 'user', parts: [{ text: prompt }] }],
          config: { temperature: 0 },
        },
        { signal },
      )) {
        if (response.partial) continue;
        if (response.errorCode !== undefined)
          throw new ScorerOutputError(
            `Judge model error ${response.errorCode}: ${response.errorMessage ?? ''}`,
          );
        text += contentText(response.content);
      }
      return parseJudgeVerdict(text, scale);
    },
  });
}

/** Strictly parses a judge's answer: one JSON object with a score on the scale and a reason. */
export function parseJudgeVerdict(
  text: string,
  scale: { min: number; max: number } = { min: 0, max: 1 },
): ScoreOutput {
  const trimmed = text.trim();
  const fenced = /^```(?:json)?\s*\n([\s\S]*?)\n?```$/.exec(trimmed);
  const value = tryParseJson(fenced?.[1] ?? trimmed);
  if (!isPlainObject(value))
    throw new ScorerOutputError(
      `Judge answer is not a JSON object: ${JSON.stringify(trimmed.slice(0, 200))}`,
    );
  const keys = Object.keys(value);
  if (keys.some((k) => k !== 'score' && k !== 'reason'))
    throw new ScorerOutputError(`Judge answer has unexpected keys: ${keys.join(', ')}`);
  const { score, reason } = value;
  if (typeof score !== 'number' || !Number.isFinite(score))
    throw new ScorerOutputError('Judge answer has no numeric score');
  if (score < scale.min || score > scale.max)
    throw new ScorerOutputError(`Judge score ${score} is outside ${scale.min}..${scale.max}`);
  if (typeof reason !== 'string') throw new ScorerOutputError('Judge answer has no reason string');
  return { score, reason };
}
