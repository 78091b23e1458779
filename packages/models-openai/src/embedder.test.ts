import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ReplayServer, startReplayServer } from './__fixtures__/replay-server.js';
import { OpenAIEmbedder } from './index.js';

let server: ReplayServer;
beforeAll(async () => {
  server = await startReplayServer();
});
afterAll(() => server.close());

/** An /embeddings answer, in reverse order as servers may send it. */
const answer = (inputs: number, first: number) => ({
  body: JSON.stringify({
    object: 'list',
    model: 'text-embedding-3-small',
    data: Array.from({ length: inputs }, (_, i) => ({
      object: 'embedding',
      index: i,
      embedding: [first + i, 0.1],
    })).reverse(),
    usage: { prompt_tokens: 8, total_tokens: 8 },
  }),
});

describe('OpenAIEmbedder', () => {
  it('batches /embeddings calls, keeps the input order, sends dimensions and retries a 429', async () => {
    const embedder = new OpenAIEmbedder({
      apiKey: 'sk-test',
      baseURL: `${server.url}/v1`,
      dimensions: 2,
      sendDimensions: true,
      maxBatchSize: 2,
      retry: { initialDelayMs: 1 },
    });
    server.requests.length = 0;
    server.enqueue(
      answer(2, 1),
      {
        status: 429,
        headers: { 'retry-after-ms': '1' },
        body: JSON.stringify({ error: { message: 'slow down' } }),
      },
      answer(1, 3),
    );
    expect(await embedder.embed(['a', 'b', 'c'], { taskType: 'RETRIEVAL_QUERY' })).toEqual([
      [1, 0.1],
      [2, 0.1],
      [3, 0.1],
    ]);
    expect(server.requests.map((r) => r.body)).toMatchInlineSnapshot(`
      [
        {
          "dimensions": 2,
          "encoding_format": "float",
          "input": [
            "a",
            "b",
          ],
          "model": "text-embedding-3-small",
        },
        {
          "dimensions": 2,
          "encoding_format": "float",
          "input": [
            "c",
          ],
          "model": "text-embedding-3-small",
        },
        {
          "dimensions": 2,
          "encoding_format": "float",
          "input": [
            "c",
          ],
          "model": "text-embedding-3-small",
        },
      ]
    `);
    expect(server.requests[0]?.headers.authorization).toBe('Bearer sk-test');
  });

  it('works with an OpenAI-compatible server without a key (Ollama, vLLM), not sending dimensions', async () => {
    const embedder = new OpenAIEmbedder({
      model: 'nomic-embed-text',
      apiKey: null,
      baseURL: `${server.url}/v1`,
      dimensions: 2,
    });
    server.requests.length = 0;
    server.enqueue(answer(1, 7));
    expect(await embedder.embed(['hello'])).toEqual([[7, 0.1]]);
    expect(server.requests[0]?.headers.authorization).toBeUndefined();
    expect(server.requests[0]?.body).toEqual({
      model: 'nomic-embed-text',
      input: ['hello'],
      encoding_format: 'float',
    });
  });

  it('rejects a malformed answer with a typed error', async () => {
    const embedder = new OpenAIEmbedder({ apiKey: 'k', baseURL: `${server.url}/v1`, retry: false });
    server.enqueue({ body: JSON.stringify({ data: [{ index: 0 }] }) });
    await expect(embedder.embed(['a'])).rejects.toMatchObject({
      code: 'API_CALL',
      failure: 'invalid-response',
    });
  });
});
