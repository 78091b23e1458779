// Child process: for each vendor's streaming wire format, reads the same long text stream through
// the ADK provider and through a bare fetch + SSE split + JSON.parse, alternating, and prints time
// to first event and total time for each.
import type { Llm, LlmRequest } from '@adk/core';
import { Claude } from '@adk/models-claude';
import { Gemini, GeminiInteractions } from '@adk/models-gemini';
import { OpenAIChat, OpenAIResponses } from '@adk/models-openai';
import { VENDORS, type Vendor } from '../harness/vendor-streams.js';
import { emitResult, workerArgs } from './protocol.js';
import type { ProviderPathSample } from './provider-path.js';

export interface ProviderVendorsArgs {
  origin: string;
  iterations: number;
  warmup: number;
}

/** A sample with this process's CPU time (user + system) for the stream, less shifted by load. */
export interface VendorSample extends ProviderPathSample {
  cpuMs: number;
  /** CPU time until the first event. */
  firstCpuMs: number;
}

export interface VendorResult {
  adk: VendorSample[];
  baseline: VendorSample[];
  adkPartials: number;
  adkTextLength: number;
  baselineEvents: number;
}

export type ProviderVendorsResult = Record<Vendor, VendorResult>;

const KEY = 'bench-key';

function modelFor(vendor: Vendor, origin: string): Llm {
  switch (vendor) {
    case 'chat':
      return new OpenAIChat('gpt-bench', { baseURL: `${origin}/v1`, apiKey: KEY });
    case 'responses':
      return new OpenAIResponses('gpt-bench', { baseURL: `${origin}/v1`, apiKey: KEY });
    case 'claude':
      return new Claude('claude-bench', { baseURL: `${origin}/v1`, apiKey: KEY });
    case 'gemini':
      return new Gemini('gemini-bench', { baseURL: `${origin}/v1beta`, apiKey: KEY });
    case 'interactions':
      return new GeminiInteractions('gemini-bench', { baseURL: `${origin}/v1beta`, apiKey: KEY });
  }
}

/** What a bare client sends: the URL, headers and a minimal body of each API. */
function rawRequest(vendor: Vendor, origin: string): { url: string; init: RequestInit } {
  const json = { 'content-type': 'application/json' };
  const prompt = 'Tell me a long story.';
  switch (vendor) {
    case 'chat':
      return {
        url: `${origin}/v1/chat/completions`,
        init: {
          headers: { ...json, authorization: `Bearer ${KEY}` },
          body: JSON.stringify({
            model: 'gpt-bench',
            stream: true,
            messages: [{ role: 'user', content: prompt }],
          }),
        },
      };
    case 'responses':
      return {
        url: `${origin}/v1/responses`,
        init: {
          headers: { ...json, authorization: `Bearer ${KEY}` },
          body: JSON.stringify({ model: 'gpt-bench', stream: true, store: false, input: prompt }),
        },
      };
    case 'claude':
      return {
        url: `${origin}/v1/messages`,
        init: {
          headers: { ...json, 'x-api-key': KEY, 'anthropic-version': '2023-06-01' },
          body: JSON.stringify({
            model: 'claude-bench',
            max_tokens: 8192,
            stream: true,
            messages: [{ role: 'user', content: prompt }],
          }),
        },
      };
    case 'gemini':
      return {
        url: `${origin}/v1beta/models/gemini-bench:streamGenerateContent?alt=sse`,
        init: {
          headers: { ...json, 'x-goog-api-key': KEY },
          body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: prompt }] }] }),
        },
      };
    case 'interactions':
      return {
        url: `${origin}/v1beta/interactions`,
        init: {
          headers: { ...json, 'x-goog-api-key': KEY },
          body: JSON.stringify({ model: 'gemini-bench', stream: true, store: false, input: prompt }),
        },
      };
  }
}

const request = (model: string): LlmRequest => ({
  model,
  contents: [{ role: 'user', parts: [{ text: 'Tell me a long story.' }] }],
  config: {},
});

const cpuMsSince = (from: NodeJS.CpuUsage): number => {
  const used = process.cpuUsage(from);
  return (used.user + used.system) / 1000;
};

async function throughAdk(model: Llm, counts: { partials: number; text: number }): Promise<VendorSample> {
  const cpu = process.cpuUsage();
  const start = performance.now();
  let firstMs = Number.NaN;
  let firstCpuMs = Number.NaN;
  let partials = 0;
  let text = 0;
  for await (const response of model.generate(request(model.model), { stream: true })) {
    if (Number.isNaN(firstMs)) {
      firstMs = performance.now() - start;
      firstCpuMs = cpuMsSince(cpu);
    }
    if (response.errorCode) throw new Error(`model error ${response.errorCode}: ${response.errorMessage}`);
    if (response.partial) partials++;
    else for (const part of response.content?.parts ?? []) text += part.text?.length ?? 0;
  }
  counts.partials = partials;
  counts.text = text;
  return { firstMs, firstCpuMs, totalMs: performance.now() - start, cpuMs: cpuMsSince(cpu) };
}

/** The baseline: fetch, split the SSE events, JSON.parse each event's `data:` line. */
async function throughFetch(
  raw: { url: string; init: RequestInit },
  counts: { events: number },
): Promise<VendorSample> {
  const cpu = process.cpuUsage();
  const start = performance.now();
  let firstMs = Number.NaN;
  let firstCpuMs = Number.NaN;
  const response = await fetch(raw.url, { method: 'POST', ...raw.init });
  if (!response.body) throw new Error('no body');
  const decoder = new TextDecoder();
  let buffer = '';
  let events = 0;
  for await (const chunk of response.body) {
    buffer += decoder.decode(chunk as Uint8Array, { stream: true });
    let boundary = buffer.indexOf('\n\n');
    while (boundary !== -1) {
      const block = buffer.slice(0, boundary);
      const at = block.startsWith('data:') ? 0 : block.indexOf('\ndata:') + 1;
      const data = block.slice(at + 5).trimStart();
      if (data !== '[DONE]') JSON.parse(data);
      if (events === 0) {
        firstMs = performance.now() - start;
        firstCpuMs = cpuMsSince(cpu);
      }
      events++;
      buffer = buffer.slice(boundary + 2);
      boundary = buffer.indexOf('\n\n');
    }
  }
  counts.events = events;
  return { firstMs, firstCpuMs, totalMs: performance.now() - start, cpuMs: cpuMsSince(cpu) };
}

async function main(): Promise<void> {
  const args = workerArgs<ProviderVendorsArgs>();
  const result = {} as ProviderVendorsResult;
  for (const vendor of VENDORS) {
    const model = modelFor(vendor, args.origin);
    const raw = rawRequest(vendor, args.origin);
    const adkCounts = { partials: 0, text: 0 };
    const fetchCounts = { events: 0 };
    for (let i = 0; i < args.warmup; i++) {
      await throughAdk(model, adkCounts);
      await throughFetch(raw, fetchCounts);
    }
    const out: VendorResult = { adk: [], baseline: [], adkPartials: 0, adkTextLength: 0, baselineEvents: 0 };
    for (let i = 0; i < args.iterations; i++) {
      // Alternate which goes first so that neither always runs right after the other's garbage.
      if (i % 2 === 0) {
        out.adk.push(await throughAdk(model, adkCounts));
        out.baseline.push(await throughFetch(raw, fetchCounts));
      } else {
        out.baseline.push(await throughFetch(raw, fetchCounts));
        out.adk.push(await throughAdk(model, adkCounts));
      }
    }
    out.adkPartials = adkCounts.partials;
    out.adkTextLength = adkCounts.text;
    out.baselineEvents = fetchCounts.events;
    result[vendor] = out;
  }
  emitResult(result);
}

await main();
