import { AdkError } from '../errors/errors.js';
import type { Content, Part } from '../events/content.js';
import { contentText } from '../events/content.js';
import type { ModelCapabilities } from '../models/capabilities.js';
import type { GenerateOptions, Llm, LlmRequest, LlmResponse } from '../models/llm.js';
import { delay as sleep } from '../utils/abort.js';

/** One scripted turn: a response, text, parts, a thrown error, or a function of the request. */
export type ScriptStep =
  | LlmResponse
  | string
  | Part[]
  | Error
  | ((
      request: LlmRequest,
      index: number,
    ) => LlmResponse | string | Part[] | Error | Promise<LlmResponse | string | Part[] | Error>);

export interface ScriptedModelOptions {
  /** Model name reported in requests (default 'scripted'). */
  model?: string;
  /** Replies in order; each request takes the next one. */
  script?: ScriptStep[];
  /** Used for every request once the script is used up (or when there is no script). */
  respond?: (
    request: LlmRequest,
    index: number,
  ) => LlmResponse | string | Part[] | Error | Promise<LlmResponse | string | Part[] | Error>;
  /** Characters per partial chunk when streaming (default 4). */
  chunkSize?: number;
  /** Delay before each response (and between chunks when streaming), in ms. */
  delayMs?: number;
  /** What the model declares it can do (default: nothing, so the flow's defaults apply). */
  capabilities?: ModelCapabilities;
}

/** The script ran out: the test's model was asked more often than it expected. */
export class ScriptExhaustedError extends AdkError {
  constructor(count: number, request: LlmRequest) {
    const last = request.contents.at(-1);
    super(
      'SCRIPT_EXHAUSTED',
      `ScriptedModel has no response for request #${count + 1} (script has ${count}); last content: ${JSON.stringify(last)}`,
    );
  }
}

/** Shorthand for a model reply with one function call. */
export function functionCallResponse(
  name: string,
  args: Record<string, unknown> = {},
  id?: string,
): LlmResponse {
  return {
    content: { role: 'model', parts: [{ functionCall: { id: id ?? '', name, args } }] },
    finishReason: 'STOP',
  };
}

/** Shorthand for a model reply with several parallel function calls. */
export function functionCallsResponse(
  calls: { name: string; args?: Record<string, unknown>; id?: string }[],
): LlmResponse {
  return {
    content: {
      role: 'model',
      parts: calls.map((c) => ({ functionCall: { id: c.id ?? '', name: c.name, args: c.args ?? {} } })),
    },
    finishReason: 'STOP',
  };
}

function toResponse(value: LlmResponse | string | Part[]): LlmResponse {
  if (typeof value === 'string')
    return { content: { role: 'model', parts: [{ text: value }] }, finishReason: 'STOP', turnComplete: true };
  if (Array.isArray(value))
    return { content: { role: 'model', parts: value }, finishReason: 'STOP', turnComplete: true };
  return value;
}

/**
 * A deterministic model for tests: replies from a script or a function of the request, records
 * every request, streams text in chunks when asked, and fails loudly when the script runs out.
 */
export class ScriptedModel implements Llm {
  readonly model: string;
  readonly capabilities: ModelCapabilities | undefined;
  /** Every request received, in order (deep copies, safe to inspect later). */
  readonly requests: LlmRequest[] = [];
  private readonly options: ScriptedModelOptions;
  private next = 0;

  constructor(options: ScriptedModelOptions | ScriptStep[] = {}) {
    this.options = Array.isArray(options) ? { script: options } : options;
    this.model = this.options.model ?? 'scripted';
    this.capabilities = this.options.capabilities;
  }

  /** Script steps not yet used. */
  get remaining(): number {
    return Math.max(0, (this.options.script?.length ?? 0) - this.next);
  }

  /** The text of the last content of request `i` (negative counts from the end). */
  lastUserText(i = -1): string {
    const request = this.requests.at(i);
    return contentText(request?.contents.at(-1) as Content | undefined);
  }

  async *generate(
    request: LlmRequest,
    options: GenerateOptions = {},
  ): AsyncGenerator<LlmResponse, void, undefined> {
    const index = this.requests.length;
    this.requests.push(structuredClone(request));
    const script = this.options.script ?? [];
    let step: ScriptStep | undefined;
    if (this.next < script.length) step = script[this.next++];
    else if (this.options.respond) step = this.options.respond;
    else throw new ScriptExhaustedError(script.length, request);
    if (this.options.delayMs) await sleep(this.options.delayMs, options.signal);
    const produced = typeof step === 'function' ? await step(request, index) : step;
    if (produced instanceof Error) throw produced;
    const response = toResponse(produced as LlmResponse | string | Part[]);
    if (options.stream && response.content) {
      const size = Math.max(1, this.options.chunkSize ?? 4);
      for (const part of response.content.parts) {
        if (part.text === undefined) continue;
        for (let i = 0; i < part.text.length; i += size) {
          if (options.signal?.aborted) throw options.signal.reason;
          const chunk: Part = {
            text: part.text.slice(i, i + size),
            ...(part.thought ? { thought: true } : {}),
          };
          yield { content: { role: 'model', parts: [chunk] }, partial: true };
          if (this.options.delayMs) await sleep(this.options.delayMs, options.signal);
        }
      }
    }
    if (options.signal?.aborted) throw options.signal.reason;
    yield response;
  }
}
