// Child process: reads the same long SSE stream through @adk/models-openai, through a bare fetch and
// through undici's own `request`, in turn, and prints time to first event and total time for each.
import type { Llm, LlmRequest } from '@adk/core';
import { Agent, request as undiciRequest } from 'undici';
import { SkipError } from '../frameworks/types.js';
import { emitResult, emitSkip, workerArgs } from './protocol.js';

export interface ProviderPathArgs {
  baseUrl: string;
  iterations: number;
  warmup: number;
}

export interface ProviderPathSample {
  firstMs: number;
  totalMs: number;
}

export interface ProviderPathResult {
  adk: ProviderPathSample[];
  /** fetch + SSE split, no JSON (for reference). */
  fetch: ProviderPathSample[];
  /** fetch + SSE split + JSON.parse of every event: the baseline. */
  fetchParse: ProviderPathSample[];
  /** undici.request + SSE split + JSON.parse of every event: the other transport. */
  undiciParse: ProviderPathSample[];
  /** Partial events the ADK model yielded, and characters of aggregated text, per stream. */
  adkPartials: number;
  adkTextLength: number;
  fetchEvents: number;
}

type OpenAIChatClass = new (model: string, options: { baseURL: string; apiKey: string }) => Llm;

/** Builds the OpenAI-compatible model of @adk/models-openai, pointed at the local server. */
async function loadModel(baseUrl: string): Promise<Llm> {
  const mod: Record<string, unknown> = await import('@adk/models-openai');
  if (typeof mod.OpenAIChat !== 'function') {
    throw new SkipError(
      `@adk/models-openai does not export OpenAIChat yet (exports: ${Object.keys(mod).join(', ')})`,
    );
  }
  const OpenAIChat = mod.OpenAIChat as OpenAIChatClass;
  return new OpenAIChat('gpt-bench', { baseURL: baseUrl, apiKey: 'bench-key' });
}

const request: LlmRequest = {
  model: 'gpt-bench',
  contents: [{ role: 'user', parts: [{ text: 'Tell me a long story.' }] }],
  config: {},
};

async function throughAdk(
  model: Llm,
  counts: { partials: number; text: number },
): Promise<ProviderPathSample> {
  const start = performance.now();
  let firstMs = Number.NaN;
  let partials = 0;
  let text = 0;
  for await (const response of model.generate(request, { stream: true })) {
    if (Number.isNaN(firstMs)) firstMs = performance.now() - start;
    if (response.errorCode) throw new Error(`model error ${response.errorCode}: ${response.errorMessage}`);
    if (response.partial) partials++;
    else for (const part of response.content?.parts ?? []) text += part.text?.length ?? 0;
  }
  counts.partials = partials;
  counts.text = text;
  return { firstMs, totalMs: performance.now() - start };
}

/**
 * The floor: fetch, decode, and split the stream into SSE events; with `parse`, also JSON.parse each
 * event's data (the least any client must do to see the deltas).
 */
async function throughFetch(
  baseUrl: string,
  counts: { events: number },
  parse = false,
): Promise<ProviderPathSample> {
  const start = performance.now();
  let firstMs = Number.NaN;
  const response = await fetch(`${baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer bench-key' },
    body: JSON.stringify({
      model: 'gpt-bench',
      stream: true,
      messages: [{ role: 'user', content: 'Tell me a long story.' }],
    }),
  });
  if (!response.body) throw new Error('no body');
  const decoder = new TextDecoder();
  let buffer = '';
  let events = 0;
  for await (const chunk of response.body) {
    buffer += decoder.decode(chunk as Uint8Array, { stream: true });
    let boundary = buffer.indexOf('\n\n');
    while (boundary !== -1) {
      if (parse) {
        const data = buffer.slice(0, boundary).replace(/^data: ?/, '');
        if (data !== '[DONE]') JSON.parse(data);
      }
      if (events === 0) firstMs = performance.now() - start;
      events++;
      buffer = buffer.slice(boundary + 2);
      boundary = buffer.indexOf('\n\n');
    }
  }
  counts.events = events;
  return { firstMs, totalMs: performance.now() - start };
}

/** The same client as `throughFetch(…, true)`, on undici's `request` (Node streams, no WHATWG streams). */
async function throughUndici(
  baseUrl: string,
  dispatcher: Agent,
  counts: { events: number },
): Promise<ProviderPathSample> {
  const start = performance.now();
  let firstMs = Number.NaN;
  const response = await undiciRequest(`${baseUrl}/chat/completions`, {
    method: 'POST',
    dispatcher,
    headers: { 'content-type': 'application/json', authorization: 'Bearer bench-key' },
    body: JSON.stringify({
      model: 'gpt-bench',
      stream: true,
      messages: [{ role: 'user', content: 'Tell me a long story.' }],
    }),
  });
  response.body.setEncoding('utf8');
  let buffer = '';
  let events = 0;
  for await (const chunk of response.body) {
    buffer += chunk as string;
    let boundary = buffer.indexOf('\n\n');
    while (boundary !== -1) {
      const data = buffer.slice(0, boundary).replace(/^data: ?/, '');
      if (data !== '[DONE]') JSON.parse(data);
      if (events === 0) firstMs = performance.now() - start;
      events++;
      buffer = buffer.slice(boundary + 2);
      boundary = buffer.indexOf('\n\n');
    }
  }
  counts.events = events;
  return { firstMs, totalMs: performance.now() - start };
}

async function main(): Promise<void> {
  const args = workerArgs<ProviderPathArgs>();
  let model: Llm;
  try {
    model = await loadModel(args.baseUrl);
  } catch (error) {
    if (error instanceof SkipError) return emitSkip(error.message);
    throw error;
  }
  const adkCounts = { partials: 0, text: 0 };
  const fetchCounts = { events: 0 };
  const dispatcher = new Agent();
  const undiciCounts = { events: 0 };
  for (let i = 0; i < args.warmup; i++) {
    await throughAdk(model, adkCounts);
    await throughFetch(args.baseUrl, fetchCounts, true);
    await throughUndici(args.baseUrl, dispatcher, undiciCounts);
  }
  const result: ProviderPathResult = {
    adk: [],
    fetch: [],
    fetchParse: [],
    undiciParse: [],
    adkPartials: 0,
    adkTextLength: 0,
    fetchEvents: 0,
  };
  const clients = [
    async () => result.adk.push(await throughAdk(model, adkCounts)),
    async () => result.fetchParse.push(await throughFetch(args.baseUrl, fetchCounts, true)),
    async () => result.undiciParse.push(await throughUndici(args.baseUrl, dispatcher, undiciCounts)),
    async () => result.fetch.push(await throughFetch(args.baseUrl, fetchCounts)),
  ];
  for (let i = 0; i < args.iterations; i++) {
    // Rotate which goes first so that none always runs right after another's garbage.
    for (let j = 0; j < clients.length; j++)
      await (clients[(i + j) % clients.length] as () => Promise<number>)();
  }
  await dispatcher.close();
  result.adkPartials = adkCounts.partials;
  result.adkTextLength = adkCounts.text;
  result.fetchEvents = fetchCounts.events;
  emitResult(result);
}

await main();
