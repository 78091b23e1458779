import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SseServer {
  url: string;
  /** Events in one response (content deltas, then the finishing chunk). */
  events: number;
  close(): Promise<void>;
}

/** Pre-rendered OpenAI Chat Completions stream: `deltas` content chunks, a finish chunk, usage, [DONE]. */
export function chatCompletionStream(deltas: number): string[] {
  const base = {
    id: 'chatcmpl-bench',
    object: 'chat.completion.chunk',
    created: 1700000000,
    model: 'gpt-bench',
  };
  const chunks: string[] = [];
  chunks.push(
    `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] })}\n\n`,
  );
  for (let i = 0; i < deltas; i++) {
    const delta = { content: `token${i % 100} ` };
    chunks.push(
      `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta, finish_reason: null }] })}\n\n`,
    );
  }
  chunks.push(
    `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\n`,
  );
  chunks.push(
    `data: ${JSON.stringify({ ...base, choices: [], usage: { prompt_tokens: 12, completion_tokens: deltas, total_tokens: deltas + 12 } })}\n\n`,
  );
  chunks.push('data: [DONE]\n\n');
  return chunks;
}

/**
 * A local HTTP server that answers every POST with the same long SSE stream, written a few events
 * per write (as a real server flushes) and respecting backpressure.
 */
export async function startSseServer(deltas: number, eventsPerWrite = 8): Promise<SseServer> {
  const chunks = chatCompletionStream(deltas);
  const writes: Buffer[] = [];
  for (let i = 0; i < chunks.length; i += eventsPerWrite) {
    writes.push(Buffer.from(chunks.slice(i, i + eventsPerWrite).join('')));
  }
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, {
        'content-type': 'text/event-stream',
        'cache-control': 'no-cache',
        connection: 'keep-alive',
      });
      let index = 0;
      const pump = () => {
        while (index < writes.length) {
          const chunk = writes[index++];
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
    url: `http://127.0.0.1:${port}/v1`,
    events: chunks.length,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
