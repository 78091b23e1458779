import { isAdkError, type LlmRequest, type LlmResponse } from '@adk/core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  buildGeminiLiveSetup,
  flushGeminiLiveState,
  type GeminiLiveState,
  geminiActivityFrame,
  geminiContentFrames,
  geminiHistoryFrames,
  geminiRealtimeFrame,
  initialGeminiLiveState,
  parseGeminiLiveFrame,
  translateGeminiLiveMessage,
} from './frames.js';

// Server frames as the Live API reference describes BidiGenerateContentServerMessage.

/** Feeds frames (JSON text) through parse + translate, as a connection does. */
function replay(frames: unknown[], state: GeminiLiveState = initialGeminiLiveState) {
  const responses: LlmResponse[] = [];
  let s = state;
  let ids = 0;
  for (const frame of frames) {
    const out = translateGeminiLiveMessage(
      parseGeminiLiveFrame(JSON.stringify(frame)),
      s,
      () => `gen-${++ids}`,
    );
    s = out.state;
    responses.push(...out.responses);
  }
  return { responses, state: s };
}

const request: LlmRequest = {
  model: 'gemini-live-2.5-flash-preview',
  systemInstruction: 'You are a helpful voice assistant.',
  contents: [],
  tools: [
    {
      name: 'get_weather',
      description: 'Weather for a city',
      parameters: z.toJSONSchema(z.object({ city: z.string() })),
      behavior: 'NON_BLOCKING',
    } as LlmRequest['tools'] extends (infer T)[] | undefined ? T : never,
  ],
  config: {
    temperature: 0.4,
    live: {
      responseModalities: ['AUDIO'],
      speechConfig: { voiceName: 'Kore', languageCode: 'en-US' },
      inputAudioTranscription: true,
      outputAudioTranscription: true,
      realtimeInputConfig: {
        automaticActivityDetection: {
          disabled: false,
          silenceDurationMs: 500,
          startOfSpeechSensitivity: 'LOW',
          endOfSpeechSensitivity: 'HIGH',
        },
        activityHandling: 'START_OF_ACTIVITY_INTERRUPTS',
      },
      proactivity: { proactiveAudio: true },
      enableAffectiveDialog: true,
      contextWindowCompression: { triggerTokens: 25_600, slidingWindow: { targetTokens: 12_800 } },
      sessionResumption: { transparent: true },
    },
  },
};

describe('client frames', () => {
  it('builds the setup frame from the request and its live config', () => {
    expect(
      buildGeminiLiveSetup(request, { model: 'models/gemini-live-2.5-flash-preview', vertex: false }),
    ).toEqual({
      setup: {
        model: 'models/gemini-live-2.5-flash-preview',
        generationConfig: {
          temperature: 0.4,
          responseModalities: ['AUDIO'],
          speechConfig: {
            voiceConfig: { prebuiltVoiceConfig: { voiceName: 'Kore' } },
            languageCode: 'en-US',
          },
          enableAffectiveDialog: true,
        },
        systemInstruction: { parts: [{ text: 'You are a helpful voice assistant.' }] },
        tools: [
          {
            functionDeclarations: [
              {
                name: 'get_weather',
                description: 'Weather for a city',
                parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
                behavior: 'NON_BLOCKING',
              },
            ],
          },
        ],
        realtimeInputConfig: {
          automaticActivityDetection: {
            disabled: false,
            silenceDurationMs: 500,
            startOfSpeechSensitivity: 'START_SENSITIVITY_LOW',
            endOfSpeechSensitivity: 'END_SENSITIVITY_HIGH',
          },
          activityHandling: 'START_OF_ACTIVITY_INTERRUPTS',
        },
        inputAudioTranscription: {},
        outputAudioTranscription: {},
        proactivity: { proactiveAudio: true },
        contextWindowCompression: { triggerTokens: 25_600, slidingWindow: { targetTokens: 12_800 } },
        // The Gemini API has no transparent resumption.
        sessionResumption: {},
      },
    });
  });

  it('puts the resumption handle in setup, keeps transparent mode and drops `behavior` on Vertex AI', () => {
    const frame = buildGeminiLiveSetup(request, {
      model: 'projects/p/locations/us-central1/publishers/google/models/gemini-live-2.5-flash',
      vertex: true,
      resumptionHandle: 'handle-7',
    }) as { setup: Record<string, unknown> };
    expect(frame.setup.sessionResumption).toEqual({ handle: 'handle-7', transparent: true });
    const tools = frame.setup.tools as { functionDeclarations: Record<string, unknown>[] }[];
    expect(tools[0]?.functionDeclarations[0]).not.toHaveProperty('behavior');
  });

  it('asks for session resumption only when configured or resuming', () => {
    const plain = buildGeminiLiveSetup(
      { model: 'm', contents: [], config: {} },
      { model: 'models/m', vertex: false },
    ) as { setup: Record<string, unknown> };
    expect(plain.setup).toEqual({ model: 'models/m' });
    const resumed = buildGeminiLiveSetup(
      { model: 'm', contents: [], config: {} },
      { model: 'models/m', vertex: false, resumptionHandle: 'h1' },
    ) as { setup: Record<string, unknown> };
    expect(resumed.setup.sessionResumption).toEqual({ handle: 'h1' });
  });

  it('sends history as one clientContent, complete when it ends with the user, without audio chunks', () => {
    expect(
      geminiHistoryFrames([
        {
          role: 'user',
          parts: [{ text: 'Hi' }, { inlineData: { mimeType: 'audio/pcm;rate=16000', data: 'AAAA' } }],
        },
        { role: 'model', parts: [{ text: 'Hello!' }] },
        { role: 'user', parts: [{ inlineData: { mimeType: 'audio/pcm;rate=16000', data: 'AAAA' } }] },
        { role: 'user', parts: [{ text: 'Weather in Paris?' }] },
      ]),
    ).toEqual([
      {
        clientContent: {
          turns: [
            { role: 'user', parts: [{ text: 'Hi' }] },
            { role: 'model', parts: [{ text: 'Hello!' }] },
            { role: 'user', parts: [{ text: 'Weather in Paris?' }] },
          ],
          turnComplete: true,
        },
      },
    ]);
    expect(geminiHistoryFrames([{ role: 'model', parts: [{ text: 'Hello!' }] }])).toEqual([
      { clientContent: { turns: [{ role: 'model', parts: [{ text: 'Hello!' }] }], turnComplete: false } },
    ]);
    expect(geminiHistoryFrames([])).toEqual([]);
  });

  it('sends user text as a complete turn and function responses as toolResponse', () => {
    expect(geminiContentFrames({ role: 'user', parts: [{ text: 'And tomorrow?' }] })).toEqual([
      {
        clientContent: { turns: [{ role: 'user', parts: [{ text: 'And tomorrow?' }] }], turnComplete: true },
      },
    ]);
    expect(
      geminiContentFrames({
        role: 'user',
        parts: [
          {
            functionResponse: {
              id: 'call-1',
              name: 'get_weather',
              response: { result: 'sunny' },
              scheduling: 'WHEN_IDLE',
              willContinue: false,
            } as never,
          },
          // Our own ids (adk-…) mean nothing to the server and are not sent.
          { functionResponse: { id: 'adk-1', name: 'get_time', response: { result: '12:00' } } },
        ],
      }),
    ).toEqual([
      {
        toolResponse: {
          functionResponses: [
            {
              id: 'call-1',
              name: 'get_weather',
              response: { result: 'sunny' },
              willContinue: false,
              scheduling: 'WHEN_IDLE',
            },
            { name: 'get_time', response: { result: '12:00' } },
          ],
        },
      },
    ]);
  });

  it('routes realtime blobs by type and signals activity', () => {
    expect(geminiRealtimeFrame({ mimeType: 'audio/pcm;rate=16000', data: 'AAEC' })).toEqual({
      realtimeInput: { audio: { mimeType: 'audio/pcm;rate=16000', data: 'AAEC' } },
    });
    expect(geminiRealtimeFrame({ mimeType: 'image/jpeg', data: '/9j/' })).toEqual({
      realtimeInput: { video: { mimeType: 'image/jpeg', data: '/9j/' } },
    });
    expect(
      geminiRealtimeFrame({ mimeType: 'text/plain', data: Buffer.from('hi').toString('base64') }),
    ).toEqual({
      realtimeInput: { text: 'hi' },
    });
    expect(geminiActivityFrame('start')).toEqual({ realtimeInput: { activityStart: {} } });
    expect(geminiActivityFrame('end')).toEqual({ realtimeInput: { activityEnd: {} } });
  });
});

describe('server frames', () => {
  it('acknowledges setup', () => {
    const out = translateGeminiLiveMessage(
      parseGeminiLiveFrame('{"setupComplete":{}}'),
      initialGeminiLiveState,
    );
    expect(out).toEqual({ responses: [], state: initialGeminiLiveState, setupComplete: true });
  });

  it('streams text as partial chunks and repeats it whole when the turn completes', () => {
    const { responses } = replay([
      { serverContent: { modelTurn: { parts: [{ text: 'Hello' }] } } },
      { serverContent: { modelTurn: { parts: [{ text: ', world' }] } } },
      { serverContent: { generationComplete: true } },
      { serverContent: { turnComplete: true } },
      { usageMetadata: { promptTokenCount: 10, responseTokenCount: 4, totalTokenCount: 14 } },
    ]);
    expect(responses).toEqual([
      { content: { role: 'model', parts: [{ text: 'Hello' }] }, partial: true },
      { content: { role: 'model', parts: [{ text: ', world' }] }, partial: true },
      { content: { role: 'model', parts: [{ text: 'Hello, world' }] } },
      { turnComplete: true },
      { usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 4, totalTokenCount: 14 } },
    ]);
  });

  it('passes audio through as partial inline data and finishes both transcriptions', () => {
    const { responses } = replay([
      { serverContent: { inputTranscription: { text: 'What is' } } },
      { serverContent: { inputTranscription: { text: ' the time?' } } },
      {
        serverContent: {
          modelTurn: { parts: [{ inlineData: { mimeType: 'audio/pcm;rate=24000', data: 'AAAB' } }] },
        },
      },
      { serverContent: { outputTranscription: { text: 'It is noon.' } } },
      { serverContent: { turnComplete: true } },
    ]);
    expect(responses).toEqual([
      { inputTranscription: { text: 'What is', finished: false }, partial: true },
      { inputTranscription: { text: ' the time?', finished: false }, partial: true },
      {
        content: {
          role: 'model',
          parts: [{ inlineData: { mimeType: 'audio/pcm;rate=24000', data: 'AAAB' } }],
        },
        partial: true,
      },
      { outputTranscription: { text: 'It is noon.', finished: false }, partial: true },
      { inputTranscription: { text: 'What is the time?', finished: true } },
      { outputTranscription: { text: 'It is noon.', finished: true } },
      { turnComplete: true },
    ]);
  });

  it('finishes a transcription when the server says so', () => {
    const { responses, state } = replay([
      { serverContent: { inputTranscription: { text: 'Hi there', finished: true } } },
    ]);
    expect(responses).toEqual([
      { inputTranscription: { text: 'Hi there', finished: false }, partial: true },
      { inputTranscription: { text: 'Hi there', finished: true } },
    ]);
    expect(state.inputTranscript).toBe('');
  });

  it('emits tool calls as soon as the toolCall frame arrives, after the text before them', () => {
    const { responses } = replay([
      { serverContent: { modelTurn: { parts: [{ text: 'Let me check.' }] } } },
      {
        toolCall: {
          functionCalls: [{ id: 'fc-1', name: 'get_weather', args: { city: 'Paris' } }, { name: 'get_time' }],
        },
      },
    ]);
    expect(responses).toEqual([
      { content: { role: 'model', parts: [{ text: 'Let me check.' }] }, partial: true },
      { content: { role: 'model', parts: [{ text: 'Let me check.' }] } },
      {
        content: {
          role: 'model',
          parts: [
            { functionCall: { id: 'fc-1', name: 'get_weather', args: { city: 'Paris' } } },
            { functionCall: { id: 'gen-1', name: 'get_time', args: {} } },
          ],
        },
      },
    ]);
  });

  it('reports an interruption after the text said so far', () => {
    const { responses } = replay([
      { serverContent: { modelTurn: { parts: [{ text: 'The weather in' }] } } },
      { serverContent: { interrupted: true } },
    ]);
    expect(responses.slice(1)).toEqual([
      { content: { role: 'model', parts: [{ text: 'The weather in' }] } },
      { interrupted: true },
    ]);
  });

  it('translates cancellation, goAway and resumption updates', () => {
    const { responses } = replay([
      { toolCallCancellation: { ids: ['fc-1', 'fc-2'] } },
      { goAway: { timeLeft: '10s' } },
      { sessionResumptionUpdate: { newHandle: 'h-42', resumable: true } },
      { sessionResumptionUpdate: { resumable: false } },
    ]);
    expect(responses).toEqual([
      { toolCallCancellation: { ids: ['fc-1', 'fc-2'] } },
      { goAway: { timeLeft: '10s' } },
      { liveSessionResumptionUpdate: { newHandle: 'h-42', resumable: true } },
      { liveSessionResumptionUpdate: { resumable: false } },
    ]);
  });

  it('keeps thoughts apart from the answer and grounding on the turn end', () => {
    const { responses } = replay([
      { serverContent: { modelTurn: { parts: [{ text: 'Thinking…', thought: true }] } } },
      {
        serverContent: {
          modelTurn: { parts: [{ text: 'Answer' }] },
          groundingMetadata: { webSearchQueries: ['q'] },
        },
      },
      { serverContent: { turnComplete: true } },
    ]);
    expect(responses.slice(2)).toEqual([
      { content: { role: 'model', parts: [{ text: 'Thinking…', thought: true }, { text: 'Answer' }] } },
      { turnComplete: true, groundingMetadata: { webSearchQueries: ['q'] } },
    ]);
  });

  it('flushes an unfinished turn when the connection ends', () => {
    const { state } = replay([
      { serverContent: { inputTranscription: { text: 'Hel' } } },
      { serverContent: { modelTurn: { parts: [{ text: 'Hi' }] } } },
    ]);
    expect(flushGeminiLiveState(state)).toEqual({
      responses: [
        { inputTranscription: { text: 'Hel', finished: true } },
        { content: { role: 'model', parts: [{ text: 'Hi' }] } },
      ],
      state: { ...initialGeminiLiveState, groundingMetadata: undefined },
    });
  });

  it('reads binary frames (UTF-8 JSON) like text frames', () => {
    const bytes = new TextEncoder().encode('{"goAway":{"timeLeft":"5s"}}');
    expect(parseGeminiLiveFrame(bytes)).toEqual({ goAway: { timeLeft: '5s' } });
  });

  it('rejects malformed frames with a typed error', () => {
    for (const frame of [
      'not json',
      '[1,2]',
      'null',
      '{"toolCall":{"functionCalls":[{"args":{}}]}}',
      '{"serverContent":{"turnComplete":"yes"}}',
    ]) {
      let error: unknown;
      try {
        parseGeminiLiveFrame(frame);
      } catch (e) {
        error = e;
      }
      expect(isAdkError(error, 'LIVE_PROTOCOL'), frame).toBe(true);
    }
  });

  it('ignores message kinds it does not know', () => {
    expect(replay([{ voiceActivity: { type: 'ACTIVITY_START' } }]).responses).toEqual([]);
  });
});
