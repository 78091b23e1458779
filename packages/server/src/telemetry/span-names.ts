/**
 * The name of the model-call span. Core names it `call_llm`, as ADK does (ADK's web UI and its
 * trace export pick the model-call span by that name); the current GenAI registry names it
 * `{gen_ai.operation.name} {gen_ai.request.model}`, i.e. `chat {model}`. Chosen per process with
 * `OTEL_SEMCONV_STABILITY_OPT_IN` (docs/decisions/0059-model-call-span-name.md):
 * - unset, or `gen_ai/dup`: `call_llm` (`gen_ai/dup` also adds the legacy attributes, and wins when
 *   both values are listed, as `http/dup` does in the HTTP migration);
 * - `gen_ai_latest_experimental`: `chat {model}`.
 */
export type ModelSpanNaming = 'adk' | 'latest';

/** The span name core gives model calls (ADK's). */
export const ADK_MODEL_SPAN_NAME = 'call_llm';

/** How model-call spans are named, from `OTEL_SEMCONV_STABILITY_OPT_IN` (see above). */
export function modelSpanNaming(env: NodeJS.ProcessEnv = process.env): ModelSpanNaming {
  const values = (env.OTEL_SEMCONV_STABILITY_OPT_IN ?? '').split(',').map((v) => v.trim());
  if (values.includes('gen_ai/dup')) return 'adk';
  return values.includes('gen_ai_latest_experimental') ? 'latest' : 'adk';
}

/** The registry's name of a model-call span: `{operation} {model}`, or the operation alone. */
export function latestModelSpanName(operation: string, model: unknown): string {
  return typeof model === 'string' && model !== '' ? `${operation} ${model}` : operation;
}

/** Whether a span is a model call, whatever its name (`gen_ai.operation.name` is `chat`). */
export function isModelCallSpan(span: { name: string; attributes: Record<string, unknown> }): boolean {
  return span.name === ADK_MODEL_SPAN_NAME || span.attributes['gen_ai.operation.name'] === 'chat';
}
