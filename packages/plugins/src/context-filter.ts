import {
  type BeforeModelArgs,
  type CallbackContext,
  ConfigError,
  type Content,
  isDynamicInstructionContent,
  isOtherAgentContext,
  type Plugin,
  safeCut,
} from '@adk/core';

export interface ContextFilterPluginOptions {
  /** Default `'context_filter'`. */
  name?: string;
  /** Keep only the contents of the last N invocations (the current one counts as one). */
  invocationsToKeep?: number;
  /**
   * A custom filter, applied after `invocationsToKeep`. Whatever it drops, a function call and
   * its response are kept together: if it keeps one, the other is put back.
   */
  filter?: (contents: Content[], context: CallbackContext) => Content[] | Promise<Content[]>;
}

function isInvocationStart(content: Content): boolean {
  if (content.role !== 'user' || content.parts.length === 0) return false;
  if (content.parts.some((p) => p.functionResponse)) return false;
  // Other agents' turns (re-phrased as "For context:" user turns) and the instruction sent in
  // contents beside a static instruction are user contents that start no invocation.
  return !isOtherAgentContext(content) && !isDynamicInstructionContent(content);
}

/**
 * The contents from the start of the last `n` invocations (a user message starts one). The
 * agent's instruction, when it travels in contents, is kept even if it stands before the cut.
 */
export function keepLastInvocations(contents: Content[], n: number): Content[] {
  if (n <= 0) return contents;
  let found = 0;
  for (let i = contents.length - 1; i >= 0; i--) {
    if (isInvocationStart(contents[i] as Content) && ++found === n) {
      const cut = safeCut(contents, i);
      return [...contents.slice(0, cut).filter(isDynamicInstructionContent), ...contents.slice(cut)];
    }
  }
  return contents;
}

/**
 * `kept` (a filtered `original`) with every function call next to its response: a kept call
 * brings back the contents answering it, a kept response brings back the content that made it.
 */
export function keepCallsWithResponses(original: Content[], kept: Content[]): Content[] {
  const callContent = new Map<string, Content>();
  const responseContents = new Map<string, Content[]>();
  for (const content of original) {
    for (const part of content.parts) {
      if (part.functionCall) callContent.set(part.functionCall.id, content);
      if (part.functionResponse) {
        const list = responseContents.get(part.functionResponse.id) ?? [];
        list.push(content);
        responseContents.set(part.functionResponse.id, list);
      }
    }
  }
  const keptSet = new Set(kept);
  const placed = new Set<Content>();
  const out: Content[] = [];
  const place = (content: Content): void => {
    if (placed.has(content)) return;
    placed.add(content);
    for (const part of content.parts) {
      const call = part.functionResponse && callContent.get(part.functionResponse.id);
      if (call && !keptSet.has(call)) place(call);
    }
    out.push(content);
    for (const part of content.parts) {
      if (!part.functionCall) continue;
      for (const response of responseContents.get(part.functionCall.id) ?? []) {
        if (!keptSet.has(response)) place(response);
      }
    }
  };
  for (const content of kept) place(content);
  return out;
}

/**
 * Shrinks the history of every model request: the last N invocations and/or a custom filter,
 * never separating a function call from its response. Runs in `beforeModel`, so it applies to
 * every agent of the runner (use an agent's `contextCompression` for per-agent rules).
 */
export class ContextFilterPlugin implements Plugin {
  readonly name: string;
  private readonly options: ContextFilterPluginOptions;

  constructor(options: ContextFilterPluginOptions) {
    if (options.invocationsToKeep === undefined && !options.filter) {
      throw new ConfigError('ContextFilterPlugin needs invocationsToKeep, a filter, or both');
    }
    if (options.invocationsToKeep !== undefined && options.invocationsToKeep < 1) {
      throw new ConfigError('ContextFilterPlugin: invocationsToKeep must be at least 1');
    }
    this.name = options.name ?? 'context_filter';
    this.options = options;
  }

  async beforeModel({ context, request }: BeforeModelArgs): Promise<undefined> {
    const original = request.contents;
    let contents = original;
    if (this.options.invocationsToKeep !== undefined) {
      contents = keepLastInvocations(contents, this.options.invocationsToKeep);
    }
    if (this.options.filter) {
      const filtered = await this.options.filter([...contents], context);
      contents = keepCallsWithResponses(original, filtered);
    }
    if (contents !== original) request.contents = contents;
    return undefined;
  }
}
