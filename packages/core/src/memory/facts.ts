import { AdkError, ConfigError } from '../errors/errors.js';
import { contentText } from '../events/content.js';
import type { Event } from '../events/event.js';
import type { Llm } from '../models/llm.js';
import { resolveModel } from '../models/registry.js';
import type { SessionService } from '../sessions/session.js';
import { visibleEvents } from '../sessions/visible-events.js';
import { lazySchema } from '../utils/zod.js';
import type { MemoryJob, MemoryJobHandler } from './jobs.js';
import { memoryTextKey } from './keywords.js';
import type { MemoryEntry, MemoryService } from './memory-service.js';

/**
 * Facts (`memory.facts`, off by default): after each turn ONE extraction call turns what the turn
 * said into short facts, stored as memories of kind `'fact'` with their source event ids, a
 * `validFrom` time and a `supersedes` link to the fact each replaces (docs/decisions/0062-facts.md).
 */

/** `LlmAgent`'s `memory.facts` option. */
export interface FactsOptions {
  /** The extraction model (default: the one given to {@link factsMemoryJobHandler}). */
  model?: Llm | string;
  /** The user's current facts shown to the extractor, found by searching with the turn (default 20). */
  contextFacts?: number;
  /** System instruction of the extractor (the default asks for the JSON below). */
  instruction?: string;
}

/**
 * The extractor's answer did not parse or validate (code `MEMORY_FACTS_MALFORMED`): the job fails and
 * no fact is written.
 */
export class FactsExtractionError extends AdkError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('MEMORY_FACTS_MALFORMED', message, options);
  }
}

/**
 * The extractor's whole answer: `{"facts": [...]}` (an empty list when the turn states none), each
 * fact with its text, the id of the current fact it replaces (one of the facts shown) and when it
 * became true (`YYYY-MM-DD` or an ISO time; default: the turn's time). Built on first use, so that
 * importing the core does not load zod.
 */
const factsAnswerSchema = lazySchema((z) =>
  z
    .object({
      facts: z.array(
        z
          .object({
            text: z.string().trim().min(1),
            supersedes: z.string().min(1).optional(),
            validFrom: z.string().min(1).optional(),
          })
          .strict(),
      ),
    })
    .strict(),
);

/** One fact as the extractor answers it: `{"facts": [...]}` holds a list of these. */
export interface ExtractedFact {
  /** The fact, one short self-contained statement. */
  text: string;
  /** The id of the current fact this one replaces (one of the facts shown). */
  supersedes?: string;
  /** When it became true, `YYYY-MM-DD` or an ISO time (default: the turn's time). */
  validFrom?: string;
}

const DEFAULT_INSTRUCTION = [
  'You extract durable facts about the user from one conversation turn, for a long-term memory.',
  'Answer with JSON only: {"facts":[{"text":"...","supersedes":"<id>","validFrom":"YYYY-MM-DD"}]}.',
  'Each text is one short, self-contained statement ("The user\'s boat is a sloop named Ariel."). Only what the turn states or clearly implies; no guesses, no small talk.',
  'When a fact changes one of the current facts listed, give that fact\'s id in "supersedes". Leave out facts already listed unchanged. Answer {"facts":[]} when there is nothing new.',
].join('\n');

function stripFences(text: string): string {
  const m = /^\s*```(?:json)?\s*([\s\S]*?)\s*```\s*$/.exec(text);
  return (m ? m[1] : text)?.trim() ?? '';
}

/**
 * Parses and validates an extraction answer against the facts that were shown. Throws
 * {@link FactsExtractionError} for anything else: not JSON, the wrong shape, a `supersedes` id that was
 * not shown, or a `validFrom` that is not a date.
 */
export function parseFactsAnswer(text: string, shownIds: ReadonlySet<string>): ExtractedFact[] {
  let json: unknown;
  try {
    json = JSON.parse(stripFences(text));
  } catch (error) {
    throw new FactsExtractionError(
      `The fact extractor did not answer JSON: ${JSON.stringify(text.slice(0, 200))}`,
      { cause: error },
    );
  }
  const parsed = factsAnswerSchema.safeParse(json);
  if (!parsed.success)
    throw new FactsExtractionError(
      `The fact extractor's answer has the wrong shape: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')}`,
    );
  for (const fact of parsed.data.facts) {
    if (fact.supersedes !== undefined && !shownIds.has(fact.supersedes))
      throw new FactsExtractionError(
        `The fact extractor's answer supersedes "${fact.supersedes}", which is not one of the current facts shown`,
      );
    if (fact.validFrom !== undefined && Number.isNaN(Date.parse(fact.validFrom)))
      throw new FactsExtractionError(`The fact extractor's validFrom "${fact.validFrom}" is not a date`);
  }
  return parsed.data.facts;
}

function turnEvents(events: readonly Event[], ids: readonly string[]): Event[] {
  const wanted = new Set(ids);
  return visibleEvents(events).filter(
    (e) => wanted.has(e.id) && !e.partial && contentText(e.content).trim() !== '',
  );
}

/**
 * Extracts the facts of one turn: searches the user's current facts with the turn's text, makes ONE
 * model call, validates the whole answer, and writes all its facts in one `addMemory` call (or none
 * when the answer is malformed). Identical facts are stored once (the store drops them by content
 * hash; repeats within the answer are dropped here). Resolves to the ids written.
 */
export async function extractFacts(
  options: FactsOptions,
  input: {
    memory: MemoryService;
    appName: string;
    userId: string;
    sessionId?: string;
    /** The turn's events (only those with text are read). */
    events: readonly Event[];
    defaultModel?: Llm | string;
    signal?: AbortSignal;
  },
): Promise<string[]> {
  const modelRef = options.model ?? input.defaultModel;
  if (modelRef === undefined) throw new ConfigError('memory.facts needs a model');
  if (!input.memory.addMemory) throw new ConfigError('memory.facts needs a memory service with addMemory');
  const model = resolveModel(modelRef);
  const turn = input.events.filter((e) => !e.partial && contentText(e.content).trim() !== '');
  if (turn.length === 0) return [];
  const transcript = turn.map((e) => `${e.author}: ${contentText(e.content).trim()}`).join('\n');
  const { memories: current } = await input.memory.searchMemory({
    appName: input.appName,
    userId: input.userId,
    query: transcript,
    kinds: ['fact'],
    limit: Math.max(0, options.contextFacts ?? 20),
    ...(input.signal ? { signal: input.signal } : {}),
  });
  const shown = current.filter((m) => m.id !== undefined && m.kind === 'fact');
  const factsList =
    shown.length === 0
      ? '(none)'
      : shown.map((m) => `- [${m.id}] ${contentText(m.content).trim()}`).join('\n');
  let text = '';
  for await (const r of model.generate(
    {
      model: model.model,
      systemInstruction: options.instruction ?? DEFAULT_INSTRUCTION,
      contents: [{ role: 'user', parts: [{ text: `Current facts:\n${factsList}\n\nTurn:\n${transcript}` }] }],
      config: { responseMimeType: 'application/json' },
    },
    input.signal ? { signal: input.signal } : {},
  ))
    if (!r.partial) text += contentText(r.content);
  const facts = parseFactsAnswer(text, new Set(shown.map((m) => m.id as string)));
  const at = (turn.at(-1) as Event).timestamp;
  const eventIds = turn.map((e) => e.id);
  const seen = new Set<string>();
  const entries: MemoryEntry[] = [];
  for (const fact of facts) {
    const key = memoryTextKey('fact', fact.text);
    if (seen.has(key)) continue;
    seen.add(key);
    entries.push({
      kind: 'fact',
      content: { role: 'user', parts: [{ text: fact.text }] },
      author: 'memory:facts',
      timestamp: at,
      validFrom: fact.validFrom !== undefined ? Date.parse(fact.validFrom) : Math.floor(at),
      eventIds,
      ...(input.sessionId !== undefined ? { sessionId: input.sessionId } : {}),
      ...(fact.supersedes !== undefined ? { supersedes: fact.supersedes } : {}),
    });
  }
  if (entries.length === 0) return [];
  return input.memory.addMemory({
    appName: input.appName,
    userId: input.userId,
    memories: entries,
    ...(input.signal ? { signal: input.signal } : {}),
  });
}

/**
 * {@link extractFacts} as a `MemoryJobWorker` handler: register it for kind `'facts'` and add
 * `'facts'` to the queue's `turnKinds` so the Runner enqueues one job per committed turn. A
 * malformed answer throws {@link FactsExtractionError}: the job fails (and is retried by the worker's
 * back-off) with nothing written.
 */
export function factsMemoryJobHandler(
  options: FactsOptions,
  services: { sessionService: SessionService; model?: Llm | string },
): MemoryJobHandler {
  return async (jobs, context) => {
    for (const job of jobs) {
      const events = await jobEvents(services.sessionService, job);
      if (events.length === 0) continue;
      await extractFacts(options, {
        memory: context.memory,
        appName: job.appName,
        userId: job.userId,
        ...(job.sessionId !== undefined ? { sessionId: job.sessionId } : {}),
        events,
        ...(services.model !== undefined ? { defaultModel: services.model } : {}),
        signal: context.signal,
      });
    }
  };
}

async function jobEvents(sessionService: SessionService, job: MemoryJob): Promise<Event[]> {
  if (!job.sessionId) return [];
  const session = await sessionService.getSession({
    appName: job.appName,
    userId: job.userId,
    sessionId: job.sessionId,
  });
  return session ? turnEvents(session.events, job.eventIds) : [];
}
