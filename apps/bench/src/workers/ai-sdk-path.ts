// Child process: the same AI SDK model (a `MockLanguageModelV4` streaming many text deltas) read
// through @adk/models-ai-sdk's `generate` and through the AI SDK's own `streamText`, alternating.
import type { LlmRequest } from '@adk/core';
import { aiSdkModel } from '@adk/models-ai-sdk';
import type { LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { streamText } from 'ai';
import { convertArrayToReadableStream, MockLanguageModelV4 } from 'ai/test';
import { deltaText } from '../harness/vendor-streams.js';
import { emitResult, workerArgs } from './protocol.js';
import type { ProviderPathSample } from './provider-path.js';

export interface AiSdkPathArgs {
  deltas: number;
  iterations: number;
  warmup: number;
}

export interface AiSdkPathResult {
  adk: ProviderPathSample[];
  streamText: ProviderPathSample[];
  adkTextLength: number;
  streamTextLength: number;
}

function parts(deltas: number): LanguageModelV4StreamPart[] {
  const out: LanguageModelV4StreamPart[] = [
    { type: 'stream-start', warnings: [] },
    { type: 'response-metadata', id: 'resp_bench', modelId: 'bench-model' },
    { type: 'text-start', id: 't0' },
  ];
  for (let i = 0; i < deltas; i++) out.push({ type: 'text-delta', id: 't0', delta: deltaText(i) });
  out.push(
    { type: 'text-end', id: 't0' },
    {
      type: 'finish',
      usage: {
        inputTokens: { total: 12, noCache: 12, cacheRead: 0, cacheWrite: 0 },
        outputTokens: { total: deltas, text: deltas, reasoning: 0 },
      },
      finishReason: { unified: 'stop', raw: 'stop' },
    },
  );
  return out;
}

async function main(): Promise<void> {
  const args = workerArgs<AiSdkPathArgs>();
  const stream = parts(args.deltas);
  // A fresh stream for every call, as a provider would return.
  const mock = new MockLanguageModelV4({
    provider: 'bench',
    modelId: 'bench-model',
    doStream: async () => ({ stream: convertArrayToReadableStream(stream) }),
  });
  const model = aiSdkModel(mock);
  const request: LlmRequest = {
    model: model.model,
    contents: [{ role: 'user', parts: [{ text: 'Tell me a long story.' }] }],
    config: {},
  };
  const counts = { adk: 0, streamText: 0 };
  const throughAdk = async (): Promise<ProviderPathSample> => {
    const start = performance.now();
    let firstMs = Number.NaN;
    for await (const response of model.generate(request, { stream: true })) {
      if (Number.isNaN(firstMs)) firstMs = performance.now() - start;
      if (response.errorCode) throw new Error(`model error ${response.errorCode}: ${response.errorMessage}`);
      if (!response.partial)
        counts.adk = (response.content?.parts ?? []).reduce((n, p) => n + (p.text?.length ?? 0), 0);
    }
    return { firstMs, totalMs: performance.now() - start };
  };
  const throughStreamText = async (): Promise<ProviderPathSample> => {
    const start = performance.now();
    let firstMs = Number.NaN;
    const result = streamText({ model: mock, prompt: 'Tell me a long story.' });
    let length = 0;
    for await (const delta of result.textStream) {
      if (Number.isNaN(firstMs)) firstMs = performance.now() - start;
      length += delta.length;
    }
    counts.streamText = length;
    return { firstMs, totalMs: performance.now() - start };
  };
  for (let i = 0; i < args.warmup; i++) {
    await throughAdk();
    await throughStreamText();
  }
  const result: AiSdkPathResult = { adk: [], streamText: [], adkTextLength: 0, streamTextLength: 0 };
  for (let i = 0; i < args.iterations; i++) {
    if (i % 2 === 0) {
      result.adk.push(await throughAdk());
      result.streamText.push(await throughStreamText());
    } else {
      result.streamText.push(await throughStreamText());
      result.adk.push(await throughAdk());
    }
  }
  result.adkTextLength = counts.adk;
  result.streamTextLength = counts.streamText;
  emitResult(result);
}

await main();
