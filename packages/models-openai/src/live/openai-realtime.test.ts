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
import { OpenAIChat } from '../index.js';
import { type LivePeer, type LiveServer, startLiveServer } from './__fixtures__/live-server.js';
import { pcmFromBase64, pcmToBase64 } from './resample.js';

let server: LiveServer;
beforeAll(async () => {
  server = await startLiveServer();
});
afterAll(() => server.close());

const request: LlmRequest = {
  model: 'gpt-realtime',
  systemInstruction: 'Be brief.',
  contents: [],
  tools: [
    {
      name: 'get_weather',
      description: 'Weather for a city',
      parameters: { type: 'object', properties: { city: { type: 'string' } } },
    },
  ],
  config: {
    live: { responseModalities: ['AUDIO'], inputAudioTranscription: true, outputAudioTranscription: true },
  },
};

function model(options: ConstructorParameters<typeof OpenAIChat>[1] = {}): OpenAIChat {
  return new OpenAIChat('gpt-realtime', {
    apiKey: 'sk-live-test',
    baseURL: `${server.url.replace('ws:', 'http:')}/v1`,
    ...options,
  });
}

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

/** The server's side of the handshake: session.created, then session.update → session.updated. */
async function accept(peer: LivePeer): Promise<{ session: Record<string, unknown> }> {
  peer.send({ type: 'session.created', event_id: 'ev_0', session: { id: 'sess_1', type: 'realtime' } });
  const update = (await peer.next()) as { type: string; session: Record<string, unknown> };
  expect(update.type).toBe('session.update');
  peer.send({ type: 'session.updated', event_id: 'ev_1', session: { id: 'sess_1', ...update.session } });
  return update;
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

describe('OpenAIChat.connect (Realtime API over WebSocket)', () => {
  it('sends session.update first and history after it; streams a text answer', async () => {
    expect(supportsLive(model())).toBe(true);
    const served = serve(async (peer) => {
      const update = await accept(peer);
      expect(update.session.instructions).toBe('Be brief.');
      expect(update.session.output_modalities).toEqual(['text']);
      expect(await peer.next()).toEqual({
        type: 'conversation.item.create',
        item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Hi' }] },
      });
      expect(await peer.next()).toEqual({ type: 'response.create' });
      peer.send({ type: 'response.created', response: { id: 'resp_1', status: 'in_progress' } });
      peer.send(
        { type: 'response.output_text.delta', response_id: 'resp_1', item_id: 'it_1', delta: 'Hello' },
        { binary: true },
      );
      peer.send({ type: 'response.output_text.delta', response_id: 'resp_1', item_id: 'it_1', delta: '!' });
      peer.send({
        type: 'response.done',
        response: {
          id: 'resp_1',
          status: 'completed',
          usage: { total_tokens: 9, input_tokens: 6, output_tokens: 3 },
        },
      });
      peer.close(1000);
    });
    const connection = await model().connect({
      ...request,
      config: { live: { responseModalities: ['TEXT'] } },
    });
    await connection.sendHistory([{ role: 'user', parts: [{ text: 'Hi' }] }]);
    const { responses, error } = await collect(connection);
    const peer = await served;
    expect(error).toBeUndefined();
    expect(responses).toEqual([
      { content: { role: 'model', parts: [{ text: 'Hello' }] }, partial: true },
      { content: { role: 'model', parts: [{ text: '!' }] }, partial: true },
      { content: { role: 'model', parts: [{ text: 'Hello!' }] } },
      { turnComplete: true },
      { usageMetadata: { promptTokenCount: 6, candidatesTokenCount: 3, totalTokenCount: 9 } },
    ]);
    expect(peer.url).toBe('/v1/realtime?model=gpt-realtime');
    expect(peer.headers.authorization).toBe('Bearer sk-live-test');
    expect((peer.received[0] as { type: string }).type).toBe('session.update');
  });

  it('emits a tool call as soon as its arguments are done and sends the output back', async () => {
    const served = serve(async (peer) => {
      await accept(peer);
      await peer.next(); // the user's message
      await peer.next(); // response.create
      peer.send({ type: 'response.created', response: { id: 'resp_2' } });
      peer.send({
        type: 'response.function_call_arguments.done',
        response_id: 'resp_2',
        item_id: 'it_f',
        output_index: 0,
        call_id: 'call_abc',
        name: 'get_weather',
        arguments: '{"city":"Lima"}',
      });
      expect(await peer.next()).toEqual({
        type: 'conversation.item.create',
        item: { type: 'function_call_output', call_id: 'call_abc', output: '{"result":"mild"}' },
      });
      expect(await peer.next()).toEqual({ type: 'response.create' });
      peer.send({ type: 'response.done', response: { id: 'resp_2', status: 'completed' } });
      peer.close(1000);
    });
    const connection = await model().connect(request);
    await connection.sendContent({ role: 'user', parts: [{ text: 'Weather in Lima?' }] });
    const seen: LlmResponse[] = [];
    for await (const response of connection.receive()) {
      seen.push(response);
      const call = response.content?.parts[0]?.functionCall;
      if (call) {
        expect(call).toEqual({ id: 'call_abc', name: 'get_weather', args: { city: 'Lima' } });
        await connection.sendContent({
          role: 'user',
          parts: [{ functionResponse: { id: call.id, name: call.name, response: { result: 'mild' } } }],
        });
      }
    }
    await served;
    expect(seen.some((r) => r.turnComplete)).toBe(false);
  });

  it('resamples 16 kHz audio to 24 kHz; barge-in cancels and truncates the playing item', async () => {
    const chunk = Int16Array.from({ length: 320 }, (_, i) => (i % 50) * 200);
    const served = serve(async (peer) => {
      await accept(peer);
      const append = (await peer.next()) as { type: string; audio: string };
      expect(append.type).toBe('input_audio_buffer.append');
      expect(pcmFromBase64(append.audio).length).toBe(479);
      peer.send({
        type: 'conversation.item.input_audio_transcription.completed',
        item_id: 'it_u',
        content_index: 0,
        transcript: 'Tell me a story',
      });
      peer.send({ type: 'response.created', response: { id: 'resp_3' } });
      peer.send({
        type: 'response.output_audio.delta',
        response_id: 'resp_3',
        item_id: 'it_a',
        delta: 'A'.repeat(64_000),
      });
      peer.send({
        type: 'response.output_audio_transcript.delta',
        response_id: 'resp_3',
        item_id: 'it_a',
        delta: 'Once',
      });
      peer.send({ type: 'input_audio_buffer.speech_started', audio_start_ms: 900, item_id: 'it_u2' });
      expect(await peer.next()).toEqual({ type: 'response.cancel' });
      const truncate = (await peer.next()) as Record<string, unknown>;
      expect(truncate).toMatchObject({
        type: 'conversation.item.truncate',
        item_id: 'it_a',
        content_index: 0,
      });
      expect(truncate.audio_end_ms).toBeGreaterThanOrEqual(0);
      expect(truncate.audio_end_ms).toBeLessThanOrEqual(1000);
      peer.send({ type: 'response.done', response: { id: 'resp_3', status: 'cancelled' } });
      peer.close(1000);
    });
    const connection = await model().connect(request);
    await connection.sendRealtime({ mimeType: 'audio/pcm;rate=16000', data: pcmToBase64(chunk) });
    const { responses } = await collect(connection);
    await served;
    expect(responses.map((r) => Object.keys(r).join('+'))).toEqual([
      'inputTranscription',
      'content+partial',
      'outputTranscription+partial',
      'outputTranscription',
      'interrupted',
    ]);
    expect(responses[1]?.content?.parts[0]?.inlineData?.mimeType).toBe('audio/pcm;rate=24000');
  });

  it('with voice activity detection off: activity end commits and asks for a response; activity start barges in', async () => {
    const served = serve(async (peer) => {
      const update = await accept(peer);
      expect((update.session.audio as { input: Record<string, unknown> }).input.turn_detection).toBeNull();
      await peer.next(); // input_audio_buffer.append
      expect(await peer.next()).toEqual({ type: 'input_audio_buffer.commit' });
      expect(await peer.next()).toEqual({ type: 'response.create' });
      peer.send({ type: 'response.created', response: { id: 'resp_4' } });
      peer.send({
        type: 'response.output_audio.delta',
        response_id: 'resp_4',
        item_id: 'it_b',
        delta: 'A'.repeat(64_000),
      });
      expect(await peer.next()).toEqual({ type: 'response.cancel' });
      expect(await peer.next()).toMatchObject({ type: 'conversation.item.truncate', item_id: 'it_b' });
      peer.close(1000);
    });
    const connection = await model().connect({
      ...request,
      config: {
        live: {
          responseModalities: ['AUDIO'],
          realtimeInputConfig: { automaticActivityDetection: { disabled: true } },
        },
      },
    });
    await connection.sendRealtime({ mimeType: 'audio/pcm;rate=24000', data: 'AAAAAA==' });
    await connection.sendActivityEnd();
    const seen: LlmResponse[] = [];
    for await (const response of connection.receive()) {
      seen.push(response);
      if (response.content?.parts[0]?.inlineData) await connection.sendActivityStart();
    }
    await served;
    expect(seen.at(-1)).toEqual({ interrupted: true });
  });

  it('surfaces an error event without ending the session, and a 1011 close as a recoverable error', async () => {
    serve(async (peer) => {
      await accept(peer);
      peer.send({
        type: 'error',
        event_id: 'ev_9',
        error: { type: 'invalid_request_error', code: 'invalid_value', message: 'Bad item' },
      });
      peer.close(1011, 'server error');
    });
    const connection = await model().connect(request);
    const { responses, error } = await collect(connection);
    expect(responses).toEqual([{ errorCode: 'invalid_value', errorMessage: 'Bad item' }]);
    expect(error).toMatchObject({ code: 'LIVE_CONNECTION_CLOSED', closeCode: 1011, recoverable: true });
  });

  it('fails connect when the server rejects session.update', async () => {
    serve(async (peer) => {
      peer.send({ type: 'session.created', session: { id: 'sess_2' } });
      await peer.next();
      peer.send({
        type: 'error',
        error: { type: 'invalid_request_error', code: 'invalid_value', message: "Invalid value: 'nobody'" },
      });
    });
    const error = await model()
      .connect(request)
      .catch((e: unknown) => e);
    expect(isApiCallError(error)).toBe(true);
    expect((error as Error).message).toContain("Invalid value: 'nobody'");
  });

  it('turns a malformed frame into a typed error and closes the socket', async () => {
    const served = serve(async (peer) => {
      await accept(peer);
      peer.sendRaw('{"type":"response.output_text.delta","delta":');
      expect(await peer.closed).toBe(1002);
    });
    const connection = await model().connect(request);
    const { error } = await collect(connection);
    expect(isAdkError(error, 'LIVE_PROTOCOL')).toBe(true);
    await served;
  });

  it('reports a refused handshake (401) as an ApiCallError', async () => {
    server.refuse = {
      status: 401,
      body: { error: { message: 'Incorrect API key provided', type: 'invalid_request_error' } },
    };
    try {
      const error = await model()
        .connect(request)
        .catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'API_CALL', status: 401, failure: 'http' });
      expect((error as Error).message).toContain('Incorrect API key provided');
    } finally {
      server.refuse = undefined;
    }
  });

  it('reports a refused handshake (429) as a RateLimitError', async () => {
    server.refuse = {
      status: 429,
      body: { error: { message: 'Rate limit reached', type: 'rate_limit_error' } },
    };
    try {
      const error = await model()
        .connect(request)
        .catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'RATE_LIMIT', status: 429, isRetryable: true });
    } finally {
      server.refuse = undefined;
    }
  });

  it('reaches an Azure-style endpoint through baseURL, headers and realtimeModel', async () => {
    const served = serve(async (peer) => {
      await accept(peer);
      peer.close(1000);
    });
    const azure = new OpenAIChat('gpt-4o', {
      apiKey: null,
      baseURL: `${server.url.replace('ws:', 'http:')}/openai/v1`,
      headers: { 'api-key': 'azure-key' },
      realtimeModel: 'my-realtime-deployment',
    });
    await collect(await azure.connect(request));
    const peer = await served;
    expect(peer.url).toBe('/openai/v1/realtime?model=my-realtime-deployment');
    expect(peer.headers['api-key']).toBe('azure-key');
    expect(peer.headers.authorization).toBeUndefined();
  });
});

describe('OpenAI Realtime through Runner.runLive', () => {
  it('runs a tool called over the Realtime API and stores the conversation and transcriptions', async () => {
    const served = serve(async (peer) => {
      const update = await accept(peer);
      expect(update.session.output_modalities).toEqual(['audio']);
      expect(await peer.next()).toEqual({
        type: 'conversation.item.create',
        item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Weather in Lima?' }] },
      });
      expect(await peer.next()).toEqual({ type: 'response.create' });
      peer.send({ type: 'response.created', response: { id: 'r1' } });
      peer.send({
        type: 'response.function_call_arguments.done',
        call_id: 'call_lima',
        name: 'get_weather',
        arguments: '{"city":"Lima"}',
      });
      peer.send({ type: 'response.done', response: { id: 'r1', status: 'completed' } });
      expect(await peer.next()).toEqual({
        type: 'conversation.item.create',
        item: {
          type: 'function_call_output',
          call_id: 'call_lima',
          output: '{"city":"Lima","forecast":"mild"}',
        },
      });
      expect(await peer.next()).toEqual({ type: 'response.create' });
      peer.send({ type: 'response.created', response: { id: 'r2' } });
      peer.send({ type: 'response.output_audio.delta', item_id: 'it_2', delta: 'AAAAAA==' });
      peer.send({ type: 'response.output_audio_transcript.delta', item_id: 'it_2', delta: 'Mild in Lima.' });
      peer.send({
        type: 'response.output_audio_transcript.done',
        item_id: 'it_2',
        transcript: 'Mild in Lima.',
      });
      peer.send({ type: 'response.done', response: { id: 'r2', status: 'completed' } });
      await peer.closed;
    });
    const agent = new LlmAgent({
      name: 'assistant',
      model: model(),
      instruction: 'Be brief.',
      tools: [
        new FunctionTool({
          name: 'get_weather',
          description: 'Weather for a city',
          parameters: z.object({ city: z.string() }),
          execute: async ({ city }) => ({ city, forecast: 'mild' }),
        }),
      ],
    });
    const sessionService = new InMemorySessionService();
    const runner = new Runner({ appName: 'app', agent, sessionService, autoCreateSession: true });
    const queue = new LiveRequestQueue();
    queue.sendContent(userContent('Weather in Lima?'));
    const events: Event[] = [];
    for await (const event of runner.runLive({
      userId: 'u',
      sessionId: 's',
      liveRequestQueue: queue,
      runConfig: { responseModalities: ['AUDIO'], outputAudioTranscription: true },
    })) {
      events.push(event);
      if (event.turnComplete) queue.close();
    }
    await served;
    const session = await sessionService.getSession({ appName: 'app', userId: 'u', sessionId: 's' });
    const stored = (session?.events ?? []).map((e) => {
      const part = e.content?.parts[0];
      return `${e.author}:${part?.text ?? part?.functionCall?.name ?? part?.functionResponse?.name ?? e.outputTranscription?.text}`;
    });
    expect(stored).toEqual([
      'user:Weather in Lima?',
      'assistant:get_weather',
      'assistant:get_weather',
      'assistant:Mild in Lima.',
    ]);
    expect(events.some((e) => e.content?.parts[0]?.inlineData?.mimeType === 'audio/pcm;rate=24000')).toBe(
      true,
    );
  });
});
