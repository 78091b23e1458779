// Child process: a bounded load of A2A JSON-RPC requests (SendMessage, or SendStreamingMessage read
// to its end) against one server; prints requests per second, latencies and errors. It uses
// node:http with keep-alive rather than fetch, so that the client costs as little CPU as it can.
import { Agent } from 'node:http';
import { postJson } from '../harness/http-post.js';
import { emitResult, workerArgs } from './protocol.js';

export interface A2aLoadArgs {
  url: string;
  mode: 'send' | 'stream';
  requests: number;
  concurrency: number;
}

export interface A2aLoadResult {
  totalMs: number;
  requests: number;
  errors: number;
  firstError?: string;
  latencyMs: number[];
  /** SSE events in the last streamed reply. */
  streamEvents: number;
}

let nextId = 0;

function body(method: string): string {
  const id = ++nextId;
  return JSON.stringify({
    jsonrpc: '2.0',
    id,
    method,
    params: {
      message: { messageId: `m-${process.pid}-${id}`, role: 'ROLE_USER', parts: [{ text: 'hello' }] },
    },
  });
}

async function sendOnce(url: URL, agent: Agent): Promise<void> {
  const { status, text } = await postJson(url, agent, body('SendMessage'), {
    accept: 'application/json',
    'a2a-version': '1.0',
  });
  const json = JSON.parse(text) as { result?: { task?: { status?: { state?: string } } }; error?: unknown };
  if (status !== 200 || json.error || json.result?.task?.status?.state !== 'TASK_STATE_COMPLETED') {
    throw new Error(`SendMessage: HTTP ${status} ${text.slice(0, 300)}`);
  }
}

async function streamOnce(url: URL, agent: Agent): Promise<number> {
  const { status, text } = await postJson(url, agent, body('SendStreamingMessage'), {
    accept: 'text/event-stream',
    'a2a-version': '1.0',
  });
  if (status !== 200) throw new Error(`SendStreamingMessage: HTTP ${status} ${text.slice(0, 300)}`);
  const events = text
    .split(/\r?\n\r?\n/)
    .map((block) =>
      block
        .split(/\r?\n/)
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).trimStart())
        .join('\n'),
    )
    .filter((data) => data.length > 0);
  const last = events.at(-1);
  const final = last
    ? (JSON.parse(last) as { result?: { statusUpdate?: { status?: { state?: string } } } })
    : {};
  if (final.result?.statusUpdate?.status?.state !== 'TASK_STATE_COMPLETED') {
    throw new Error(
      `SendStreamingMessage: the stream did not end with a completed status: ${text.slice(0, 300)}`,
    );
  }
  return events.length;
}

async function main(): Promise<void> {
  const args = workerArgs<A2aLoadArgs>();
  const url = new URL(args.url);
  const agent = new Agent({ keepAlive: true, maxSockets: args.concurrency });
  let streamEvents = 0;
  const once = async () => {
    if (args.mode === 'send') await sendOnce(url, agent);
    else streamEvents = await streamOnce(url, agent);
  };
  const latencyMs: number[] = [];
  let errors = 0;
  let firstError: string | undefined;
  let issued = 0;
  const lane = async () => {
    while (issued < args.requests) {
      issued++;
      const start = performance.now();
      try {
        await once();
        latencyMs.push(performance.now() - start);
      } catch (error) {
        errors++;
        firstError ??= error instanceof Error ? error.message : String(error);
      }
    }
  };
  const start = performance.now();
  await Promise.all(Array.from({ length: args.concurrency }, lane));
  const totalMs = performance.now() - start;
  agent.destroy();
  const result: A2aLoadResult = {
    totalMs,
    requests: args.requests,
    errors,
    latencyMs,
    streamEvents,
    ...(firstError ? { firstError } : {}),
  };
  emitResult(result);
}

await main();
