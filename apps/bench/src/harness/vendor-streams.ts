import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chatCompletionStream } from './sse-server.js';

/** The streaming wire formats the provider-path scenario reads. */
export type Vendor = 'chat' | 'responses' | 'claude' | 'gemini' | 'interactions';
export const VENDORS: readonly Vendor[] = ['chat', 'responses', 'claude', 'gemini', 'interactions'];

/** The text of delta `i`, the same in every format. */
export const deltaText = (i: number): string => `token${i % 100} `;

const sse = (data: unknown, event?: string): string =>
  `${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`;

/** OpenAI Responses: `event:` + `data:` lines, typed events with sequence numbers, no [DONE]. */
function responsesStream(deltas: number): string[] {
  const response = {
    id: 'resp_bench',
    object: 'response',
    created_at: 1764300000,
    status: 'in_progress',
    model: 'gpt-bench',
    output: [],
    store: false,
    error: null,
    incomplete_details: null,
  };
  let seq = 0;
  const out: string[] = [];
  const push = (type: string, body: Record<string, unknown>) =>
    out.push(sse({ type, ...body, sequence_number: seq++ }, type));
  push('response.created', { response });
  const item = { id: 'msg_bench', type: 'message', status: 'in_progress', role: 'assistant', content: [] };
  push('response.output_item.added', { output_index: 0, item });
  push('response.content_part.added', {
    item_id: 'msg_bench',
    output_index: 0,
    content_index: 0,
    part: { type: 'output_text', text: '', annotations: [] },
  });
  let text = '';
  for (let i = 0; i < deltas; i++) {
    text += deltaText(i);
    push('response.output_text.delta', {
      item_id: 'msg_bench',
      output_index: 0,
      content_index: 0,
      delta: deltaText(i),
      logprobs: [],
    });
  }
  const done = {
    ...item,
    status: 'completed',
    content: [{ type: 'output_text', text, annotations: [], logprobs: [] }],
  };
  push('response.output_item.done', { output_index: 0, item: done });
  push('response.completed', {
    response: {
      ...response,
      status: 'completed',
      output: [done],
      usage: {
        input_tokens: 12,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens: deltas,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: deltas + 12,
      },
    },
  });
  return out;
}

/** Anthropic Messages: `event:` + `data:` lines, content blocks with deltas, message_delta, message_stop. */
function claudeStream(deltas: number): string[] {
  const out: string[] = [];
  const push = (type: string, body: Record<string, unknown>) => out.push(sse({ type, ...body }, type));
  push('message_start', {
    message: {
      id: 'msg_bench',
      type: 'message',
      role: 'assistant',
      model: 'claude-bench',
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 12, output_tokens: 1 },
    },
  });
  push('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
  for (let i = 0; i < deltas; i++)
    push('content_block_delta', { index: 0, delta: { type: 'text_delta', text: deltaText(i) } });
  push('content_block_stop', { index: 0 });
  push('message_delta', {
    delta: { stop_reason: 'end_turn', stop_sequence: null },
    usage: { output_tokens: deltas },
  });
  push('message_stop', {});
  return out;
}

/** Gemini generateContent (`alt=sse`): one `data:` line per GenerateContentResponse. */
function geminiStream(deltas: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < deltas; i++) {
    const last = i === deltas - 1;
    out.push(
      sse({
        candidates: [
          {
            content: { parts: [{ text: deltaText(i) }], role: 'model' },
            ...(last ? { finishReason: 'STOP' } : {}),
            index: 0,
          },
        ],
        usageMetadata: last
          ? { promptTokenCount: 12, candidatesTokenCount: deltas, totalTokenCount: deltas + 12 }
          : { promptTokenCount: 12, totalTokenCount: 12 },
        modelVersion: 'gemini-bench',
        responseId: 'bench',
      }),
    );
  }
  return out;
}

/** Gemini Interactions: `steps[]` events (`step.start` / `step.delta` / `step.stop`). */
function interactionsStream(deltas: number): string[] {
  const out: string[] = [];
  let id = 0;
  const push = (type: string, body: Record<string, unknown>) =>
    out.push(sse({ event_type: type, ...body, event_id: `evt_${id++}` }, type));
  const interaction = {
    id: 'v1_bench',
    status: 'in_progress',
    object: 'interaction',
    model: 'gemini-bench',
    created: '2026-11-28T04:00:00Z',
    updated: '2026-11-28T04:00:00Z',
  };
  push('interaction.created', { interaction });
  push('step.start', { index: 0, step: { type: 'model_output' } });
  for (let i = 0; i < deltas; i++)
    push('step.delta', { index: 0, delta: { type: 'text', text: deltaText(i) } });
  push('step.stop', { index: 0 });
  push('interaction.completed', {
    interaction: {
      ...interaction,
      status: 'completed',
      usage: {
        total_input_tokens: 12,
        total_output_tokens: deltas,
        total_thought_tokens: 0,
        total_cached_tokens: 0,
        total_tokens: deltas + 12,
      },
    },
  });
  return out;
}

export function vendorStream(vendor: Vendor, deltas: number): string[] {
  switch (vendor) {
    case 'chat':
      return chatCompletionStream(deltas);
    case 'responses':
      return responsesStream(deltas);
    case 'claude':
      return claudeStream(deltas);
    case 'gemini':
      return geminiStream(deltas);
    case 'interactions':
      return interactionsStream(deltas);
  }
}

/** Which format a request path asks for. */
export function vendorOf(path: string): Vendor | undefined {
  if (path.includes('/chat/completions')) return 'chat';
  if (path.includes('/responses')) return 'responses';
  if (path.includes('/messages')) return 'claude';
  if (path.includes(':streamGenerateContent')) return 'gemini';
  if (path.includes('/interactions')) return 'interactions';
  return undefined;
}

export interface VendorSseServer {
  /** `http://127.0.0.1:<port>`, without a path. */
  origin: string;
  /** Events in one response of each format. */
  events: Record<Vendor, number>;
  close(): Promise<void>;
}

/**
 * One local server answering each vendor's streaming endpoint with the same long text stream in
 * that vendor's framing, written a few events per write and respecting backpressure.
 */
export async function startVendorSseServer(deltas: number, eventsPerWrite = 8): Promise<VendorSseServer> {
  const writes = new Map<Vendor, Buffer[]>();
  const events = {} as Record<Vendor, number>;
  for (const vendor of VENDORS) {
    const chunks = vendorStream(vendor, deltas);
    events[vendor] = chunks.length;
    const list: Buffer[] = [];
    for (let i = 0; i < chunks.length; i += eventsPerWrite)
      list.push(Buffer.from(chunks.slice(i, i + eventsPerWrite).join('')));
    writes.set(vendor, list);
  }
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const vendor = vendorOf(req.url ?? '');
      const list = vendor ? writes.get(vendor) : undefined;
      if (!list) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end('{"error":{"message":"unknown path"}}');
        return;
      }
      res.writeHead(200, {
        'content-type': 'text/event-stream',
        'cache-control': 'no-cache',
        connection: 'keep-alive',
      });
      let index = 0;
      const pump = () => {
        while (index < list.length) {
          const chunk = list[index++];
          if (chunk && !res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      pump();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    events,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
