import {
  type Event,
  FunctionTool,
  InMemorySessionService,
  isAdkError,
  LiveRequestQueue,
  LlmAgent,
  type LlmConnection,
  type LlmRequest,
  type LlmResponse,
  Runner,
  supportsLive,
  userContent,
} from '@adk/core';
import { isApiCallError } from '@adk/core/http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Gemini } from '../index.js';
import { type LivePeer, type LiveServer, startLiveServer } from './__fixtures__/live-server.js';

let server: LiveServer;
beforeAll(async () => {
  server = await startLiveServer();
});
afterAll(() => server.close());

const request: LlmRequest = {
  model: 'gemini-live-2.5-flash-preview',
  systemInstruction: 'Be brief.',
  contents: [],
  tools: [
    {
      name: 'get_weather',
      description: 'Weather for a city',
      parameters: { type: 'object', properties: { city: { type: 'string' } } },
    },
  ],
  config: { live: { responseModalities: ['TEXT'], sessionResumption: {} } },
};

function studio(): Gemini {
  return new Gemini('gemini-live-2.5-flash-preview', { apiKey: 'live-test-key', liveBaseURL: server.url });
}

/** Runs `script` as the server side of the next connection. */
function serve(script: (peer: LivePeer) => Promise<void>): Promise<LivePeer> {
  return new Promise((resolve, reject) => {
    server.onConnection = async (peer) => {
      try {
        await script(peer);
        resolve(peer);
      } catch (error) {
        reject(error);
      }
    };
  });
}

async function collect(connection: LlmConnection): Promise<{ responses: LlmResponse[]; error?: unknown }> {
  const responses: LlmResponse[] = [];
  try {
    for await (const response of connection.receive()) responses.push(response);
  } catch (error) {
    return { responses, error };
  }
  return { responses };
}

describe('Gemini.connect (Live API over WebSocket)', () => {
  it('sends setup first, then history; reads binary frames; ends on a normal close', async () => {
    expect(supportsLive(studio())).toBe(true);
    const served = serve(async (peer) => {
      const setup = (await peer.next()) as { setup: Record<string, unknown> };
      expect(setup.setup.model).toBe('models/gemini-live-2.5-flash-preview');
      peer.send({ setupComplete: {} }, { binary: true });
      expect(await peer.next()).toEqual({
        clientContent: { turns: [{ role: 'user', parts: [{ text: 'Hi' }] }], turnComplete: true },
      });
      peer.send({ serverContent: { modelTurn: { parts: [{ text: 'Hello' }] } } }, { binary: true });
      peer.send({ serverContent: { modelTurn: { parts: [{ text: ' there' }] } } });
      peer.send({ serverContent: { turnComplete: true } }, { binary: true });
      peer.send({ usageMetadata: { promptTokenCount: 3, responseTokenCount: 2, totalTokenCount: 5 } });
      peer.close(1000);
    });
    const connection = await studio().connect(request);
    await connection.sendHistory([{ role: 'user', parts: [{ text: 'Hi' }] }]);
    const { responses, error } = await collect(connection);
    const peer = await served;
    expect(error).toBeUndefined();
    expect(responses).toEqual([
      { content: { role: 'model', parts: [{ text: 'Hello' }] }, partial: true },
      { content: { role: 'model', parts: [{ text: ' there' }] }, partial: true },
      { content: { role: 'model', parts: [{ text: 'Hello there' }] } },
      { turnComplete: true },
      { usageMetadata: { promptTokenCount: 3, candidatesTokenCount: 2, totalTokenCount: 5 } },
    ]);
    expect(peer.url).toBe(
      '/ws/google.ai.generativelanguage.v1beta.GenerativeService.BidiGenerateContent?key=live-test-key',
    );
    expect(peer.headers['user-agent']).toMatch(/@adk\/models-gemini/);
    await connection.close();
  });

  it('emits a tool call at once and sends the tool response back', async () => {
    const served = serve(async (peer) => {
      await peer.next();
      peer.send({ setupComplete: {} });
      await peer.next(); // the user's question
      peer.send({
        toolCall: { functionCalls: [{ id: 'call-9', name: 'get_weather', args: { city: 'Oslo' } }] },
      });
      expect(await peer.next()).toEqual({
        toolResponse: {
          functionResponses: [{ id: 'call-9', name: 'get_weather', response: { result: 'snow' } }],
        },
      });
      peer.send({ serverContent: { modelTurn: { parts: [{ text: 'Snow in Oslo.' }] } } });
      peer.send({ serverContent: { turnComplete: true } });
      peer.close(1000);
    });
    const connection = await studio().connect(request);
    await connection.sendContent({ role: 'user', parts: [{ text: 'Weather in Oslo?' }] });
    const seen: LlmResponse[] = [];
    for await (const response of connection.receive()) {
      seen.push(response);
      const call = response.content?.parts[0]?.functionCall;
      if (call) {
        // No turnComplete came first: the call is handled while the turn is open.
        expect(seen.some((r) => r.turnComplete)).toBe(false);
        await connection.sendContent({
          role: 'user',
          parts: [{ functionResponse: { id: call.id, name: call.name, response: { result: 'snow' } } }],
        });
      }
    }
    await served;
    expect(seen.at(-2)).toEqual({ content: { role: 'model', parts: [{ text: 'Snow in Oslo.' }] } });
  });

  it('streams realtime audio and activity signals as realtimeInput', async () => {
    const served = serve(async (peer) => {
      await peer.next();
      peer.send({ setupComplete: {} });
      expect(await peer.next()).toEqual({ realtimeInput: { activityStart: {} } });
      expect(await peer.next()).toEqual({
        realtimeInput: { audio: { mimeType: 'audio/pcm;rate=16000', data: 'AAEAAQ==' } },
      });
      expect(await peer.next()).toEqual({ realtimeInput: { activityEnd: {} } });
      peer.send({ serverContent: { inputTranscription: { text: 'hello' } } });
      peer.send({
        serverContent: {
          modelTurn: { parts: [{ inlineData: { mimeType: 'audio/pcm;rate=24000', data: 'AAAA' } }] },
        },
      });
      peer.send({ serverContent: { interrupted: true } });
      peer.close(1000);
    });
    const connection = await studio().connect(request);
    await connection.sendActivityStart();
    await connection.sendRealtime({ mimeType: 'audio/pcm;rate=16000', data: 'AAEAAQ==' });
    await connection.sendActivityEnd();
    const { responses } = await collect(connection);
    await served;
    expect(responses).toEqual([
      { inputTranscription: { text: 'hello', finished: false }, partial: true },
      {
        content: {
          role: 'model',
          parts: [{ inlineData: { mimeType: 'audio/pcm;rate=24000', data: 'AAAA' } }],
        },
        partial: true,
      },
      { inputTranscription: { text: 'hello', finished: true } },
      { interrupted: true },
    ]);
  });

  it('surfaces goAway and the resumption handle, then a recoverable close code; resumes with the handle', async () => {
    const first = serve(async (peer) => {
      await peer.next();
      peer.send({ setupComplete: {} });
      peer.send({ sessionResumptionUpdate: { newHandle: 'resume-1', resumable: true } });
      peer.send({ goAway: { timeLeft: '2s' } });
      peer.close(1011, 'internal error');
    });
    const connection = await studio().connect(request);
    const { responses, error } = await collect(connection);
    await first;
    expect(responses).toEqual([
      { liveSessionResumptionUpdate: { newHandle: 'resume-1', resumable: true } },
      { goAway: { timeLeft: '2s' } },
    ]);
    expect(isAdkError(error, 'LIVE_CONNECTION_CLOSED')).toBe(true);
    expect(error).toMatchObject({ closeCode: 1011, reason: 'internal error', recoverable: true });
    await expect(
      connection.sendContent({ role: 'user', parts: [{ text: 'still there?' }] }),
    ).rejects.toMatchObject({
      code: 'LIVE_CONNECTION_CLOSED',
      closeCode: 1011,
    });

    const second = serve(async (peer) => {
      const setup = (await peer.next()) as { setup: Record<string, unknown> };
      expect(setup.setup.sessionResumption).toEqual({ handle: 'resume-1' });
      peer.send({ setupComplete: {} });
      peer.close(1000);
    });
    const resumed = await studio().connect(request, { resumptionHandle: 'resume-1' });
    expect((await collect(resumed)).error).toBeUndefined();
    await second;
  });

  it('reports a dropped connection as 1006 (recoverable)', async () => {
    serve(async (peer) => {
      await peer.next();
      peer.send({ setupComplete: {} });
      peer.send({ serverContent: { modelTurn: { parts: [{ text: 'half a sent' }] } } });
      setTimeout(() => peer.terminate(), 20);
    });
    const connection = await studio().connect(request);
    const { responses, error } = await collect(connection);
    // The unfinished text is still delivered whole before the error.
    expect(responses.at(-1)).toEqual({ content: { role: 'model', parts: [{ text: 'half a sent' }] } });
    expect(error).toMatchObject({ code: 'LIVE_CONNECTION_CLOSED', closeCode: 1006, recoverable: true });
  });

  it('fails connect with the close code when the server rejects the setup', async () => {
    serve(async (peer) => {
      await peer.next();
      peer.close(1007, 'Request contains an invalid argument.');
    });
    await expect(studio().connect(request)).rejects.toMatchObject({
      code: 'LIVE_CONNECTION_CLOSED',
      closeCode: 1007,
      recoverable: false,
    });
  });

  it('turns a malformed frame into a typed error and closes the socket', async () => {
    const served = serve(async (peer) => {
      await peer.next();
      peer.send({ setupComplete: {} });
      peer.sendRaw('{"serverContent": oops');
      expect(await peer.closed).toBe(1002);
    });
    const connection = await studio().connect(request);
    const { error } = await collect(connection);
    expect(isAdkError(error, 'LIVE_PROTOCOL')).toBe(true);
    await served;
  });

  it('reports a refused handshake as an ApiCallError without the key', async () => {
    server.refuse = { status: 403, body: { error: { code: 403, message: 'API key not valid.' } } };
    try {
      const error = await studio()
        .connect(request)
        .catch((e: unknown) => e);
      expect(isApiCallError(error)).toBe(true);
      expect(error).toMatchObject({ status: 403, failure: 'http' });
      expect(JSON.stringify(error)).not.toContain('live-test-key');
      expect((error as Error).message).not.toContain('live-test-key');
    } finally {
      server.refuse = undefined;
    }
  });

  it('reports an unreachable endpoint as a retryable network ApiCallError without the key', async () => {
    const nowhere = new Gemini('gemini-live-2.5-flash-preview', {
      apiKey: 'live-test-key',
      liveBaseURL: 'ws://127.0.0.1:1',
    });
    const error = await nowhere.connect(request).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'API_CALL', failure: 'network', isRetryable: true });
    expect(JSON.stringify(error)).not.toContain('live-test-key');
  });

  it('uses the Vertex AI endpoint with a bearer token and the model resource name', async () => {
    const served = serve(async (peer) => {
      const setup = (await peer.next()) as { setup: Record<string, unknown> };
      expect(setup.setup.model).toBe(
        'projects/my-project/locations/europe-west4/publishers/google/models/gemini-live-2.5-flash',
      );
      peer.send({ setupComplete: {} });
      peer.close(1000);
    });
    const model = new Gemini('gemini-live-2.5-flash', {
      vertexai: { project: 'my-project', location: 'europe-west4', accessToken: async () => 'ya29.token' },
      liveBaseURL: server.url,
    });
    const connection = await model.connect(request);
    await collect(connection);
    const peer = await served;
    expect(peer.url).toBe('/ws/google.cloud.aiplatform.v1beta1.LlmBidiService/BidiGenerateContent');
    expect(peer.headers.authorization).toBe('Bearer ya29.token');
  });

  it('uses v1alpha on the Gemini API for affective dialog and proactivity', async () => {
    const served = serve(async (peer) => {
      await peer.next();
      peer.send({ setupComplete: {} });
      peer.close(1000);
    });
    const connection = await studio().connect({
      ...request,
      config: { live: { enableAffectiveDialog: true, proactivity: { proactiveAudio: true } } },
    });
    await collect(connection);
    expect((await served).url).toContain('google.ai.generativelanguage.v1alpha.GenerativeService');
  });

  it('closes on abort: receive() ends and sends fail', async () => {
    const served = serve(async (peer) => {
      await peer.next();
      peer.send({ setupComplete: {} });
      expect(await peer.closed).toBe(1000);
    });
    const abort = new AbortController();
    const connection = await studio().connect(request, { signal: abort.signal });
    const receiving = collect(connection);
    abort.abort();
    expect((await receiving).error).toBeUndefined();
    await served;
    await expect(connection.sendActivityStart()).rejects.toMatchObject({ code: 'CANCELLED' });
    await connection.close(); // idempotent
  });
});

describe('Gemini through Runner.runLive', () => {
  it('runs a tool called over the Live API and stores the conversation', async () => {
    const served = serve(async (peer) => {
      const setup = (await peer.next()) as { setup: Record<string, unknown> };
      expect(setup.setup).toMatchObject({
        model: 'models/gemini-live-2.5-flash-preview',
        generationConfig: { responseModalities: ['TEXT'] },
      });
      peer.send({ setupComplete: {} }, { binary: true });
      const question = (await peer.next()) as { clientContent: { turns: unknown[] } };
      expect(question.clientContent.turns.at(-1)).toEqual({
        role: 'user',
        parts: [{ text: 'Weather in Oslo?' }],
      });
      peer.send(
        { toolCall: { functionCalls: [{ id: 'fc-oslo', name: 'get_weather', args: { city: 'Oslo' } }] } },
        { binary: true },
      );
      expect(await peer.next()).toEqual({
        toolResponse: {
          functionResponses: [
            { id: 'fc-oslo', name: 'get_weather', response: { city: 'Oslo', forecast: 'snow' } },
          ],
        },
      });
      peer.send(
        { serverContent: { modelTurn: { parts: [{ text: 'Snowing in Oslo.' }] } } },
        { binary: true },
      );
      peer.send({ serverContent: { turnComplete: true } }, { binary: true });
      await peer.closed;
    });
    const agent = new LlmAgent({
      name: 'assistant',
      model: studio(),
      instruction: 'Be brief.',
      tools: [
        new FunctionTool({
          name: 'get_weather',
          description: 'Weather for a city',
          parameters: z.object({ city: z.string() }),
          execute: async ({ city }) => ({ city, forecast: 'snow' }),
        }),
      ],
    });
    const sessionService = new InMemorySessionService();
    const runner = new Runner({ appName: 'app', agent, sessionService, autoCreateSession: true });
    const queue = new LiveRequestQueue();
    queue.sendContent(userContent('Weather in Oslo?'));
    const events: Event[] = [];
    for await (const event of runner.runLive({
      userId: 'u',
      sessionId: 's',
      liveRequestQueue: queue,
      runConfig: { responseModalities: ['TEXT'] },
    })) {
      events.push(event);
      if (event.turnComplete) queue.close();
    }
    await served;
    const session = await sessionService.getSession({ appName: 'app', userId: 'u', sessionId: 's' });
    const stored = (session?.events ?? []).map((e) => {
      const part = e.content?.parts[0];
      return `${e.author}:${part?.text ?? part?.functionCall?.name ?? part?.functionResponse?.name}`;
    });
    expect(stored).toEqual([
      'user:Weather in Oslo?',
      'assistant:get_weather',
      'assistant:get_weather',
      'assistant:Snowing in Oslo.',
    ]);
    expect(events.some((e) => e.errorCode)).toBe(false);
  });
});
