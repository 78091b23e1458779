import { InMemorySessionService, LlmAgent, Runner, userContent } from '@adk/core';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  caught,
  collect,
  jsonFixture,
  type ReplayServer,
  startReplayServer,
} from './__fixtures__/replay-server.js';
import { GeminiInteractions } from './index.js';

let server: ReplayServer;
beforeEach(async () => {
  server = await startReplayServer();
});
afterEach(() => server.close());

function model(): GeminiInteractions {
  return new GeminiInteractions('gemini-3-flash-preview', {
    apiKey: 'test-key',
    baseURL: `${server.url}/v1beta`,
    retry: false,
    background: { pollIntervalMs: 5 },
  });
}

const request = {
  model: 'gemini-3-flash-preview',
  contents: [{ role: 'user' as const, parts: [{ text: 'Which suppliers ship to Lyon within a week?' }] }],
  config: {},
};

describe('GeminiInteractions background runs', () => {
  it('creates a stored background interaction and polls it until it completes', async () => {
    const agent = new LlmAgent({ name: 'researcher', model: model() });
    const runner = new Runner({
      appName: 'app',
      agent,
      sessionService: new InMemorySessionService(),
      autoCreateSession: true,
    });
    server.enqueue(
      jsonFixture('interactions-background-created.json'),
      jsonFixture('interactions-background-created.json'),
      jsonFixture('interactions-background-completed.json'),
    );
    // Streaming is asked for, but a background interaction is polled, not streamed.
    const events = await collect(
      runner.run({
        userId: 'u',
        sessionId: 's',
        newMessage: userContent('Which suppliers ship to Lyon within a week?'),
        runConfig: { streaming: true },
      }),
    );
    expect(server.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      'POST /v1beta/interactions',
      'GET /v1beta/interactions/v1_bg7',
      'GET /v1beta/interactions/v1_bg7',
    ]);
    const created = server.requests[0]?.body as Record<string, unknown>;
    expect({ background: created.background, store: created.store, stream: created.stream }).toEqual({
      background: true,
      store: true,
      stream: undefined,
    });
    expect(server.requests[1]?.body).toBeUndefined();
    const last = events.at(-1);
    expect(last?.content?.parts[0]?.text).toBe(
      'Three suppliers ship to Lyon within a week: Arcadis, Bremont and Cortal.',
    );
    expect(last?.customMetadata).toMatchObject({ interactionId: 'v1_bg7', status: 'completed' });
    expect(last?.usageMetadata?.totalTokenCount).toBe(138);
  });

  it('cancels the interaction on the server when the run is aborted while it is polled', async () => {
    server.enqueue(
      jsonFixture('interactions-background-created.json'),
      // The poll never answers: the run is aborted while it waits.
      { headers: { 'content-type': 'application/json' }, chunks: [], hang: true },
      jsonFixture('interactions-background-cancelled.json'),
    );
    const controller = new AbortController();
    const pending = caught(collect(model().generate(request, { signal: controller.signal })));
    await vi.waitFor(() => expect(server.requests).toHaveLength(2), { timeout: 20_000, interval: 10 });
    controller.abort();
    const error = await pending;
    expect(error).toBeInstanceOf(Error);
    await vi.waitFor(() => expect(server.requests).toHaveLength(3), { timeout: 20_000, interval: 10 });
    expect(server.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      'POST /v1beta/interactions',
      'GET /v1beta/interactions/v1_bg7',
      'POST /v1beta/interactions/v1_bg7/cancel',
    ]);
    expect(server.requests[2]?.headers['x-goog-api-key']).toBe('test-key');
  });

  it('reports a cancelled interaction as an error response, not a crash', async () => {
    server.enqueue(
      jsonFixture('interactions-background-created.json'),
      jsonFixture('interactions-background-cancelled.json'),
    );
    const [response] = await collect(model().generate(request));
    expect(response?.errorCode).toBe('INTERACTION_CANCELLED');
    expect(response?.content).toBeUndefined();
  });

  it('fails with a typed error when a poll answers with something that is not an interaction', async () => {
    server.enqueue(jsonFixture('interactions-background-created.json'), {
      headers: { 'content-type': 'application/json' },
      body: '{"status": 42}',
    });
    const error = await caught(collect(model().generate(request)));
    expect(error).toMatchObject({ code: expect.any(String) });
  });
});
