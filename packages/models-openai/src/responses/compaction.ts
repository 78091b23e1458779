import type { CompressionInput, CompressionResult, Content, ContextCompressor } from '@adk/core';
import { deferredSchema, lazyZod, type SchemaLike } from '@adk/core';
import { postJson } from '@adk/core/http';
import type { OpenAIResponses } from '../openai-responses.js';
import { toResponsesInput } from './convert-request.js';

export interface ResponsesCompactionOptions {
  /** The model whose endpoint, key and transport the `/responses/compact` call uses. */
  model: OpenAIResponses;
  /**
   * Compact once the history is larger than this many tokens (estimated at four characters per
   * token). Default 100,000.
   */
  thresholdTokens?: number;
}

const schemas = lazyZod((z) => ({
  compacted: z.looseObject({ output: z.array(z.looseObject({ type: z.string().optional() })) }),
}));
type Compacted = { output: Record<string, unknown>[] };
const compactedSchema: SchemaLike<Compacted> = deferredSchema(() => schemas().compacted);

/**
 * `POST /responses/compact` as a {@link ContextCompressor}: once the history passes the threshold,
 * OpenAI replaces it with the user messages and one encrypted `compaction` item, which travels as a
 * model turn (a `serverToolResult` part holding the item) and goes back unchanged. The compacted
 * prefix is remembered, so later requests send it plus what followed and compact again only when
 * that grows past the threshold. Only for `OpenAIResponses` models.
 */
export function responsesCompaction(options: ResponsesCompactionOptions): ContextCompressor {
  const threshold = options.thresholdTokens ?? 100_000;
  let cached: { prefixKey: string; prefixLength: number; compacted: Content[] } | undefined;
  return {
    name: 'openai_responses_compaction',
    async compress({ contents, context }: CompressionInput): Promise<CompressionResult> {
      let working = contents;
      if (cached && contents.length >= cached.prefixLength) {
        const key = JSON.stringify(contents.slice(0, cached.prefixLength));
        if (key === cached.prefixKey) working = [...cached.compacted, ...contents.slice(cached.prefixLength)];
      }
      if (JSON.stringify(working).length / 4 <= threshold) return working;
      // The turn being answered stays as it is; everything before it is compacted.
      const cut = contents.findLastIndex((c) => c.role === 'model') + 1;
      if (cut <= 0) return working;
      const prefix = contents.slice(0, cut);
      const reused =
        cached &&
        cut >= cached.prefixLength &&
        JSON.stringify(prefix.slice(0, cached.prefixLength)) === cached.prefixKey
          ? [...cached.compacted, ...prefix.slice(cached.prefixLength)]
          : prefix;
      const compacted = await compact(options.model, reused, context.signal);
      cached = { prefixKey: JSON.stringify(prefix), prefixLength: cut, compacted };
      return [...compacted, ...contents.slice(cut)];
    },
  };
}

async function compact(
  model: OpenAIResponses,
  contents: Content[],
  signal?: AbortSignal,
): Promise<Content[]> {
  const http = model.compactionRequest();
  const { value } = await postJson({
    ...http,
    url: `${model.baseURL}/responses/compact`,
    body: { model: model.model, input: toResponsesInput(contents) },
    schema: compactedSchema,
    ...(signal ? { signal } : {}),
  });
  const out: Content[] = [];
  for (const item of value.output) {
    if (item.role === 'user' && Array.isArray(item.content)) {
      const parts = (item.content as Record<string, unknown>[])
        .filter((c) => typeof c.text === 'string')
        .map((c) => ({ text: c.text as string }));
      if (parts.length > 0) out.push({ role: 'user', parts });
    } else {
      const id = typeof item.id === 'string' ? item.id : '';
      out.push({
        role: 'model',
        parts: [
          { serverToolResult: { toolUseId: id, type: String(item.type ?? 'compaction'), content: item } },
        ],
      });
    }
  }
  return out;
}
