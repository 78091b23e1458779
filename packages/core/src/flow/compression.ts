import type { InvocationContext } from '../agents/invocation-context.js';
import { describeError } from '../errors/errors.js';
import { type Content, contentText } from '../events/content.js';
import { createEvent, type Event } from '../events/event.js';
import type { Llm } from '../models/llm.js';
import type { ProviderOptions } from '../models/provider-options.js';
import { visibleEvents } from '../sessions/visible-events.js';
import { isVisibleFromBranch } from './contents.js';

export interface CompressionInput {
  /** The history about to be sent, oldest first. */
  contents: Content[];
  context: InvocationContext;
  agentName: string;
}

/**
 * Contents to send, and optionally events to commit first (a compaction) and provider options
 * for this request (server-side compression a vendor applies, such as Claude's context editing).
 * The request's own provider options win over the compressor's, field by field per namespace.
 */
export type CompressionResult =
  | Content[]
  | { contents: Content[]; events?: Event[]; providerOptions?: ProviderOptions };

/**
 * Shrinks the history sent to the model. Applied while building each request, after the history
 * is built from the session; configured per agent (`contextCompression`) or per Runner.
 */
export interface ContextCompressor {
  readonly name: string;
  compress(input: CompressionInput): CompressionResult | Promise<CompressionResult>;
}

function hasResponse(content: Content | undefined): boolean {
  return content?.parts.some((p) => p.functionResponse) ?? false;
}

/**
 * Moves a cut point back so the kept part never starts with function responses whose call was
 * cut off (the model turn with the calls is kept with them).
 */
export function safeCut(contents: Content[], start: number): number {
  let s = Math.max(0, Math.min(start, contents.length));
  while (s > 0 && s < contents.length && hasResponse(contents[s])) s--;
  return s;
}

/** Keeps the newest `maxContents` contents (more when needed to keep a call with its response). */
export function truncate(options: { maxContents: number }): ContextCompressor {
  return {
    name: 'truncate',
    compress: ({ contents }) =>
      contents.length <= options.maxContents
        ? contents
        : contents.slice(safeCut(contents, contents.length - options.maxContents)),
  };
}

function isUserTurnStart(content: Content): boolean {
  return content.role === 'user' && !hasResponse(content);
}

/** Keeps the last `maxTurns` turns; a turn starts at a user message and holds everything after it. */
export function slidingWindow(options: { maxTurns: number }): ContextCompressor {
  return {
    name: 'sliding_window',
    compress: ({ contents }) => {
      let turns = 0;
      for (let i = contents.length - 1; i >= 0; i--) {
        if (isUserTurnStart(contents[i] as Content) && ++turns === options.maxTurns) return contents.slice(i);
      }
      return contents;
    },
  };
}

/** A rough token estimate (about four characters a token), used when no counter is given. */
export function estimateTokens(contents: Content[]): number {
  let chars = 0;
  for (const c of contents) {
    for (const p of c.parts) {
      if (p.text !== undefined) chars += p.text.length;
      else if (p.inlineData) chars += 1_000;
      else chars += JSON.stringify(p).length;
    }
  }
  return Math.ceil(chars / 4);
}

export interface TokenBudgetOptions {
  maxTokens: number;
  /** Always keep at least this many newest contents (default 1). */
  keepNewest?: number;
  /** Count tokens with the model's own counter instead of the estimate. */
  countTokens?: (contents: Content[]) => number | Promise<number>;
}

/** Keeps the newest contents that fit in a token budget (never separating calls and responses). */
export function tokenBudget(options: TokenBudgetOptions): ContextCompressor {
  const count = options.countTokens ?? estimateTokens;
  return {
    name: 'token_budget',
    compress: async ({ contents }) => {
      if ((await count(contents)) <= options.maxTokens) return contents;
      const keep = Math.max(1, options.keepNewest ?? 1);
      // Grow the kept suffix from the newest content while it fits.
      let start = Math.max(0, contents.length - keep);
      while (start > 0) {
        const candidate = safeCut(contents, start - 1);
        if ((await count(contents.slice(candidate))) > options.maxTokens) break;
        start = candidate;
      }
      return contents.slice(safeCut(contents, start));
    },
  };
}

export interface SummarizerOptions {
  /** The model that writes summaries. */
  model: Llm;
  /** Summarize once this many events since the last compaction are visible (default 30). */
  triggerEvents?: number;
  /** Events left out of the summary, newest (default 10). */
  keepRecentEvents?: number;
  /** Instruction for the summarizing model. */
  instruction?: string;
}

function transcript(events: Event[]): string {
  const lines: string[] = [];
  for (const e of events) {
    for (const p of e.content?.parts ?? []) {
      if (p.thought) continue;
      if (p.text) lines.push(`${e.author}: ${p.text}`);
      else if (p.functionCall)
        lines.push(`${e.author} called ${p.functionCall.name}(${JSON.stringify(p.functionCall.args)})`);
      else if (p.functionResponse) {
        lines.push(`${p.functionResponse.name} returned ${JSON.stringify(p.functionResponse.response)}`);
      }
    }
  }
  return lines.join('\n');
}

/**
 * Summarizes older events with a model and commits a compaction event: later requests send the
 * summary instead of those events, while the raw events stay in the session.
 */
export function llmSummarizer(options: SummarizerOptions): ContextCompressor {
  const trigger = options.triggerEvents ?? 30;
  const keepRecent = options.keepRecentEvents ?? 10;
  return {
    name: 'llm_summarizer',
    compress: async ({ contents, context }) => {
      const all = visibleEvents(context.session.events);
      let previous: Event | undefined;
      for (const e of all)
        if (e.actions.compaction && isVisibleFromBranch(e.branch, context.branch)) previous = e;
      const visible = all.filter(
        (e) =>
          !e.partial &&
          e.content &&
          !e.actions.compaction &&
          isVisibleFromBranch(e.branch, context.branch) &&
          (!previous?.actions.compaction || e.timestamp > previous.actions.compaction.endTimestamp),
      );
      if (visible.length < trigger) return contents;
      // Cut before the newest `keepRecent` events, never between a call and its response.
      let cut = visible.length - keepRecent;
      while (cut > 0 && visible[cut]?.content?.parts.some((p) => p.functionResponse)) cut--;
      if (cut <= 0) return contents;
      const covered = visible.slice(0, cut);
      const earlier = previous?.actions.compaction;
      const prior = earlier ? `Summary so far:\n${contentText(earlier.compactedContent)}\n\n` : '';
      let summary = '';
      try {
        for await (const r of options.model.generate(
          {
            model: options.model.model,
            systemInstruction:
              options.instruction ??
              'Summarize the conversation below for the assistant that continues it. Keep facts, decisions, open questions, names and numbers. Be concise.',
            contents: [{ role: 'user', parts: [{ text: `${prior}${transcript(covered)}` }] }],
            config: {},
          },
          { signal: context.signal },
        )) {
          if (!r.partial) summary = contentText(r.content);
        }
      } catch (error) {
        if (context.signal.aborted) throw error;
        // A failed summary leaves the history as it is; the next request tries again.
        console.warn(`llmSummarizer: summarizing failed, sending the full history: ${describeError(error)}`);
        return contents;
      }
      if (!summary) return contents;
      const first = earlier ? earlier.startTimestamp : (covered[0] as Event).timestamp;
      const event = createEvent({
        invocationId: context.invocationId,
        author: 'user',
        branch: context.branch,
        actions: {
          compaction: {
            startTimestamp: first,
            endTimestamp: (covered.at(-1) as Event).timestamp,
            compactedContent: { role: 'model', parts: [{ text: summary }] },
          },
        },
      });
      return { contents, events: [event] };
    },
  };
}
