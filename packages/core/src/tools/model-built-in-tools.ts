import type { ReadonlyContext } from '../agents/callback-context.js';
import { AdkError } from '../errors/errors.js';
import type { BuiltInToolSpec, FunctionDeclaration, LlmRequest } from '../models/llm.js';
import { BaseTool } from './base-tool.js';
import type { ToolContext } from './tool-context.js';

/** A provider was asked to send a built-in tool it does not have. */
export class UnsupportedBuiltInToolError extends AdkError {
  constructor(provider: string, type: string, supported: readonly string[]) {
    super(
      'UNSUPPORTED_BUILT_IN_TOOL',
      `${provider} has no built-in tool "${type}" (${supported.length > 0 ? `it supports: ${supported.join(', ')}` : 'it has none'})`,
      { details: { provider, type, supported: [...supported] } },
    );
  }
}

/**
 * A tool the model's vendor runs itself. It declares no function: it adds itself to the request's
 * `builtInTools`, next to the function declarations, and each provider maps it to its wire form.
 */
export class ModelBuiltInTool extends BaseTool {
  readonly spec: BuiltInToolSpec;

  constructor(spec: BuiltInToolSpec, name: string, description: string) {
    super({ name, description });
    this.spec = spec;
  }

  declaration(): FunctionDeclaration | undefined {
    return undefined;
  }

  async run(_args: Record<string, unknown>, _context: ToolContext): Promise<unknown> {
    return { error: `"${this.name}" runs on the model vendor's side and cannot be called as a function.` };
  }

  override processLlmRequest(_context: ReadonlyContext, request: LlmRequest): void {
    request.builtInTools = [...(request.builtInTools ?? []), this.spec];
  }
}

function builtIn(type: string, name: string, description: string, config?: Record<string, unknown>) {
  return new ModelBuiltInTool({ type, ...(config ? { config } : {}) }, name, description);
}

/** Gemini's Google Search grounding (results arrive as `groundingMetadata` on the event). */
export function googleSearch(config?: Record<string, unknown>): ModelBuiltInTool {
  return builtIn('googleSearch', 'google_search', 'Searches the web with Google (run by Gemini).', config);
}

/** Gemini's URL context: the model reads the URLs given in the prompt. */
export function urlContext(config?: Record<string, unknown>): ModelBuiltInTool {
  return builtIn('urlContext', 'url_context', 'Reads web pages named in the prompt (run by Gemini).', config);
}

/** Code execution in the vendor's sandbox (Gemini codeExecution, Claude code_execution). */
export function codeExecution(config?: Record<string, unknown>): ModelBuiltInTool {
  return builtIn('codeExecution', 'code_execution', "Runs code in the model vendor's sandbox.", config);
}

/** Claude's web search server tool (config: max_uses, allowed_domains, blocked_domains, user_location, version). */
export function webSearch(config?: Record<string, unknown>): ModelBuiltInTool {
  return builtIn('webSearch', 'web_search', 'Searches the web (run by the model vendor).', config);
}

/** Claude's web fetch server tool (config: max_uses, allowed_domains, citations, max_content_tokens, version). */
export function webFetch(config?: Record<string, unknown>): ModelBuiltInTool {
  return builtIn('webFetch', 'web_fetch', 'Fetches a web page (run by the model vendor).', config);
}
