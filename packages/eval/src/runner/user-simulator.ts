import { type Content, type Event, type Llm, type ModelRegistry, resolveModel } from '@adk/core';
import { EvalFormatError } from '../errors.js';
import type { ConversationScenario } from '../eval-set/types.js';

export type NextUserMessage =
  | { status: 'success'; message: Content }
  | { status: 'stop_signal_detected' | 'turn_limit_reached' };

/** Plays the user in a multi-turn eval case. */
export interface UserSimulator {
  /** The next user message given the session's events so far. */
  nextUserMessage(events: readonly Event[], signal?: AbortSignal): Promise<NextUserMessage>;
}

export interface LlmUserSimulatorOptions {
  /** A model, or a name resolved through the model registry (adk-python's default: gemini-2.5-flash). */
  model?: Llm | string;
  models?: ModelRegistry;
  /** The starting prompt counts as one; -1 for no limit (default 20, as adk-python). */
  maxAllowedInvocations?: number;
  /**
   * A prompt template replacing the built-in one, with `{{ stop_signal }}`,
   * `{{ conversation_plan }}`, `{{ conversation_history }}` and optionally `{{ persona }}`.
   */
  customInstructions?: string;
}

export const STOP_SIGNAL = '</finished>';

const DEFAULT_TEMPLATE = [
  'You are playing the user in a conversation with an AI agent, to test the agent.',
  'Follow the plan below. Write only your next message to the agent, in the first person, short and',
  'natural, without narrating or explaining. Give details only when the agent asks for them or the',
  'plan calls for them. Do not invent goals beyond the plan.',
  'When every goal of the plan is done, or the agent cannot help any further, reply with exactly',
  '{{ stop_signal }} and nothing else.',
  '{{ persona }}',
  'Plan:',
  '{{ conversation_plan }}',
  '',
  'Conversation so far:',
  '{{ conversation_history }}',
].join('\n');

function fill(template: string, values: Record<string, string>): string {
  return template.replace(/\{\{\s*(\w+)\s*\}\}/g, (whole, key: string) => values[key] ?? whole);
}

/** The dialogue as text: each text part prefixed by its author; tool traffic and thoughts left out. */
export function conversationHistory(events: readonly Event[]): string {
  const lines: string[] = [];
  for (const e of events) {
    for (const p of e.content?.parts ?? []) if (p.text && !p.thought) lines.push(`${e.author}: ${p.text}`);
  }
  return lines.join('\n\n');
}

/**
 * A user simulator backed by an LLM (adk-python's LlmBackedUserSimulator): the first message is
 * the scenario's starting prompt; later ones come from the model following the conversation plan,
 * until it answers with the stop signal or the invocation limit is reached.
 */
export class LlmUserSimulator implements UserSimulator {
  private count = 0;
  private readonly llm: Llm;
  private readonly limit: number;
  private readonly template: string;

  constructor(
    private readonly scenario: ConversationScenario,
    options: LlmUserSimulatorOptions = {},
  ) {
    this.llm = resolveModel(options.model ?? 'gemini-2.5-flash', options.models);
    this.limit = options.maxAllowedInvocations ?? 20;
    if (options.customInstructions) {
      for (const key of ['stop_signal', 'conversation_plan', 'conversation_history'])
        if (!new RegExp(`\\{\\{\\s*${key}\\s*\\}\\}`).test(options.customInstructions))
          throw new EvalFormatError(`customInstructions must contain {{ ${key} }}`);
    }
    this.template = options.customInstructions ?? DEFAULT_TEMPLATE;
  }

  async nextUserMessage(events: readonly Event[], signal?: AbortSignal): Promise<NextUserMessage> {
    if (this.limit >= 0 && this.count >= this.limit) return { status: 'turn_limit_reached' };
    const first = this.count === 0;
    this.count++;
    if (first)
      return {
        status: 'success',
        message: { role: 'user', parts: [{ text: this.scenario.startingPrompt }] },
      };
    const persona = this.scenario.userPersona;
    const personaText =
      persona === undefined
        ? ''
        : `Act as this persona: ${typeof persona === 'string' ? persona : (persona.description ?? JSON.stringify(persona))}\n`;
    const prompt = fill(this.template, {
      stop_signal: STOP_SIGNAL,
      conversation_plan: this.scenario.conversationPlan,
      conversation_history: conversationHistory(events),
      persona: personaText,
    });
    let text = '';
    for await (const r of this.llm.generate(
      { model: this.llm.model, contents: [{ role: 'user', parts: [{ text: prompt }] }], config: {} },
      signal ? { signal } : {},
    )) {
      if (r.partial) continue;
      if (r.errorCode)
        throw new Error(`The user simulator's model failed: ${r.errorCode} ${r.errorMessage ?? ''}`.trim());
      text = (r.content?.parts ?? [])
        .filter((p) => p.text && !p.thought)
        .map((p) => p.text)
        .join('');
    }
    if (text.toLowerCase().includes(STOP_SIGNAL)) return { status: 'stop_signal_detected' };
    if (!text) throw new Error('The user simulator produced no message');
    return { status: 'success', message: { role: 'user', parts: [{ text }] } };
  }
}
