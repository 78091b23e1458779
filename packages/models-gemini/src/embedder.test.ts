import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ReplayServer, startReplayServer } from './__fixtures__/replay-server.js';
import { GeminiEmbedder } from './index.js';

let server: ReplayServer;
beforeAll(async () => {
  server = await startReplayServer();
});
afterAll(() => server.close());

const vectors = (n: number, first: number) => ({
  body: JSON.stringify({
    embeddings: Array.from({ length: n }, (_, i) => ({ values: [first + i, 0.5, -0.25] })),
  }),
});

describe('GeminiEmbedder', () => {
  it('batches batchEmbedContents calls with the task type and output dimensionality, retrying a 503', async () => {
    const embedder = new GeminiEmbedder({
      apiKey: 'k',
      baseURL: `${server.url}/v1beta`,
      dimensions: 3,
      maxBatchSize: 2,
      retry: { initialDelayMs: 1 },
    });
    server.requests.length = 0;
    server.enqueue(
      vectors(2, 1),
      {
        status: 503,
        body: JSON.stringify({ error: { code: 503, message: 'overloaded', status: 'UNAVAILABLE' } }),
      },
      vectors(1, 3),
    );
    expect(await embedder.embed(['a', 'b', 'c'], { taskType: 'RETRIEVAL_DOCUMENT' })).toEqual([
      [1, 0.5, -0.25],
      [2, 0.5, -0.25],
      [3, 0.5, -0.25],
    ]);
    expect(server.requests.map((r) => r.path)).toEqual([
      '/v1beta/models/gemini-embedding-001:batchEmbedContents',
      '/v1beta/models/gemini-embedding-001:batchEmbedContents',
      '/v1beta/models/gemini-embedding-001:batchEmbedContents',
    ]);
    expect(server.requests[0]?.headers['x-goog-api-key']).toBe('k');
    expect(server.requests[0]?.body).toMatchInlineSnapshot(`
      {
        "requests": [
          {
            "content": {
              "parts": [
                {
                  "text": "a",
                },
              ],
            },
            "model": "models/gemini-embedding-001",
            "outputDimensionality": 3,
            "taskType": "RETRIEVAL_DOCUMENT",
          },
          {
            "content": {
              "parts": [
                {
                  "text": "b",
                },
              ],
            },
            "model": "models/gemini-embedding-001",
            "outputDimensionality": 3,
            "taskType": "RETRIEVAL_DOCUMENT",
          },
        ],
      }
    `);
    expect(embedder.dimensions).toBe(3);
  });

  it('rejects a malformed answer with a typed error', async () => {
    const embedder = new GeminiEmbedder({ apiKey: 'k', baseURL: `${server.url}/v1beta`, retry: false });
    server.enqueue({ body: JSON.stringify({ embeddings: [{ values: 'nope' }] }) });
    await expect(embedder.embed(['a'])).rejects.toMatchObject({
      code: 'API_CALL',
      failure: 'invalid-response',
    });
    server.enqueue(vectors(2, 1));
    await expect(embedder.embed(['only one'])).rejects.toMatchObject({ failure: 'invalid-response' });
  });
});
