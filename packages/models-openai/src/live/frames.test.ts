import { isAdkError, type LlmRequest, type LlmResponse } from '@adk/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  bargeIn,
  buildRealtimeSessionUpdate,
  flushRealtimeState,
  initialRealtimeState,
  parseRealtimeEvent,
  type RealtimeClientEvent,
  type RealtimeState,
  realtimeContentEvents,
  realtimeHistoryEvents,
  realtimeMediaEvents,
  translateRealtimeEvent,
} from './frames.js';
import { PcmResampler, pcmFromBase64, pcmToBase64 } from './resample.js';

// Server events as the Realtime API reference (GA) describes them.

const voice: LlmRequest = {
  model: 'gpt-realtime',
  systemInstruction: 'You are a helpful voice assistant.',
  contents: [],
  tools: [
    {
      name: 'get_weather',
      description: 'Weather for a city',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    },
  ],
  config: {
    maxOutputTokens: 512,
    live: {
      responseModalities: ['AUDIO'],
      speechConfig: { voiceName: 'marin', languageCode: 'en-US' },
      inputAudioTranscription: true,
      outputAudioTranscription: true,
      realtimeInputConfig: { automaticActivityDetection: { silenceDurationMs: 600, prefixPaddingMs: 200 } },
    },
  },
};

function replay(
  events: unknown[],
  state: RealtimeState = initialRealtimeState(voice),
  clock: () => number = () => 0,
) {
  const responses: LlmResponse[] = [];
  const send: RealtimeClientEvent[] = [];
  let s = state;
  for (const event of events) {
    const out = translateRealtimeEvent(parseRealtimeEvent(JSON.stringify(event)), s, clock());
    s = out.state;
    responses.push(...out.responses);
    send.push(...out.send);
  }
  return { responses, send, state: s };
}

describe('client events', () => {
  it('builds session.update (GA shape) from the request and its live config', () => {
    expect(buildRealtimeSessionUpdate(voice)).toEqual({
      type: 'session.update',
      session: {
        type: 'realtime',
        output_modalities: ['audio'],
        instructions: 'You are a helpful voice assistant.',
        tools: [
          {
            type: 'function',
            name: 'get_weather',
            description: 'Weather for a city',
            parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
          },
        ],
        max_output_tokens: 512,
        audio: {
          input: {
            format: { type: 'audio/pcm', rate: 24000 },
            transcription: { model: 'gpt-4o-mini-transcribe', language: 'en' },
            turn_detection: {
              type: 'server_vad',
              prefix_padding_ms: 200,
              silence_duration_ms: 600,
              create_response: true,
              interrupt_response: true,
            },
          },
          output: { format: { type: 'audio/pcm', rate: 24000 }, voice: 'marin' },
        },
      },
    });
  });

  it('turns voice activity detection off for manual activity and text-only sessions', () => {
    const update = buildRealtimeSessionUpdate(
      {
        model: 'gpt-realtime',
        contents: [],
        config: {
          toolChoice: 'required',
          live: {
            responseModalities: ['TEXT'],
            realtimeInputConfig: { automaticActivityDetection: { disabled: true } },
          },
        },
      },
      { transcriptionModel: 'whisper-1' },
    ) as unknown as { session: Record<string, unknown> };
    expect(update.session.output_modalities).toEqual(['text']);
    expect(update.session.tool_choice).toBe('required');
    expect((update.session.audio as { input: Record<string, unknown> }).input.turn_detection).toBeNull();
  });

  it('sends history as conversation items and asks for a response when it ends with the user', () => {
    expect(
      realtimeHistoryEvents([
        {
          role: 'user',
          parts: [{ text: 'Weather in Paris?' }, { inlineData: { mimeType: 'audio/pcm', data: 'AAAA' } }],
        },
        {
          role: 'model',
          parts: [{ functionCall: { id: 'call_1', name: 'get_weather', args: { city: 'Paris' } } }],
        },
        {
          role: 'user',
          parts: [{ functionResponse: { id: 'call_1', name: 'get_weather', response: { result: 'rain' } } }],
        },
        { role: 'model', parts: [{ text: 'Thinking', thought: true }, { text: 'It rains.' }] },
        { role: 'user', parts: [{ text: 'Thanks' }] },
      ]),
    ).toEqual([
      {
        type: 'conversation.item.create',
        item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Weather in Paris?' }] },
      },
      {
        type: 'conversation.item.create',
        item: {
          type: 'function_call',
          call_id: 'call_1',
          name: 'get_weather',
          arguments: '{"city":"Paris"}',
        },
      },
      {
        type: 'conversation.item.create',
        item: { type: 'function_call_output', call_id: 'call_1', output: '{"result":"rain"}' },
      },
      {
        type: 'conversation.item.create',
        item: { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'It rains.' }] },
      },
      {
        type: 'conversation.item.create',
        item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Thanks' }] },
      },
      { type: 'response.create' },
    ]);
    expect(realtimeHistoryEvents([{ role: 'model', parts: [{ text: 'Hi' }] }])).toHaveLength(1);
  });

  it('sends tool results as function_call_output then response.create, except silent ones', () => {
    const result = { functionResponse: { id: 'call_2', name: 'get_weather', response: { result: 'sun' } } };
    expect(realtimeContentEvents({ role: 'user', parts: [result] })).toEqual([
      {
        type: 'conversation.item.create',
        item: { type: 'function_call_output', call_id: 'call_2', output: '{"result":"sun"}' },
      },
      { type: 'response.create' },
    ]);
    const silent = { functionResponse: { ...result.functionResponse, scheduling: 'SILENT' } as never };
    expect(realtimeContentEvents({ role: 'user', parts: [silent] }).map((e) => e.type)).toEqual([
      'conversation.item.create',
    ]);
  });

  it('resamples 16 kHz input audio to 24 kHz and passes 24 kHz through', () => {
    const ramp = Int16Array.from({ length: 160 }, (_, i) => i * 100);
    const [event] = realtimeMediaEvents({ mimeType: 'audio/pcm;rate=16000', data: pcmToBase64(ramp) });
    const out = pcmFromBase64((event as unknown as { audio: string }).audio);
    expect(event?.type).toBe('input_audio_buffer.append');
    // 239 now; the 240th sample falls past the last input sample and comes with the next chunk.
    expect(out.length).toBe(239);
    // A linear ramp stays a linear ramp: every output sample lies on the line.
    for (let j = 0; j < out.length; j++) expect(out[j]).toBe(Math.round(j * (2 / 3) * 100));
    expect(realtimeMediaEvents({ mimeType: 'audio/pcm;rate=24000', data: 'AAEC' })).toEqual([
      { type: 'input_audio_buffer.append', audio: 'AAEC' },
    ]);
    expect(realtimeMediaEvents({ mimeType: 'image/jpeg', data: '/9j/' })).toEqual([
      {
        type: 'conversation.item.create',
        item: {
          type: 'message',
          role: 'user',
          content: [{ type: 'input_image', image_url: 'data:image/jpeg;base64,/9j/' }],
        },
      },
    ]);
    let error: unknown;
    try {
      realtimeMediaEvents({ mimeType: 'video/mp4', data: 'AAAA' });
    } catch (e) {
      error = e;
    }
    expect(isAdkError(error, 'VALIDATION')).toBe(true);
  });

  it('resamples a stream cut into chunks as if it were whole', () => {
    const signal = Int16Array.from({ length: 999 }, (_, i) => Math.round(Math.sin(i / 7) * 10_000));
    const whole = new PcmResampler(16_000, 24_000).push(signal);
    const chunked = new PcmResampler(16_000, 24_000);
    const pieces: number[] = [];
    for (let i = 0; i < signal.length; i += 97) pieces.push(...chunked.push(signal.subarray(i, i + 97)));
    expect(pieces).toEqual([...whole]);
  });
});

describe('PcmResampler (properties)', () => {
  const signal = fc.array(fc.integer({ min: -32768, max: 32767 }), { minLength: 1, maxLength: 600 });
  const cuts = fc.array(fc.integer({ min: 1, max: 200 }), { minLength: 1, maxLength: 20 });
  const rates = fc.constantFrom(8_000, 16_000, 22_050, 44_100, 48_000);

  it('any chunking resamples like the whole signal, with the expected length, within the input range', () => {
    fc.assert(
      fc.property(signal, cuts, rates, (samples, sizes, rate) => {
        const input = Int16Array.from(samples);
        const whole = [...new PcmResampler(rate, 24_000).push(input)];
        const chunked = new PcmResampler(rate, 24_000);
        const pieces: number[] = [];
        for (let at = 0, k = 0; at < input.length; at += sizes[k++ % sizes.length] as number)
          pieces.push(...chunked.push(input.subarray(at, at + (sizes[k % sizes.length] as number))));
        expect(pieces).toEqual(whole);
        // Output samples at k * rate/24000 for every k up to the last input sample.
        expect(whole.length).toBe(Math.floor(((input.length - 1) * 24_000) / rate) + 1);
        const [low, high] = [Math.min(...samples), Math.max(...samples)];
        for (const v of whole) expect(v >= low && v <= high).toBe(true);
      }),
    );
  });
});

describe('server events', () => {
  it('streams text deltas (GA and beta names) and repeats the text whole at response.done', () => {
    const { responses } = replay([
      { type: 'session.created', session: { id: 'sess_1' } },
      { type: 'response.created', response: { id: 'resp_1', status: 'in_progress' } },
      {
        type: 'response.output_text.delta',
        response_id: 'resp_1',
        item_id: 'item_1',
        output_index: 0,
        content_index: 0,
        delta: 'Hello',
      },
      {
        type: 'response.text.delta',
        response_id: 'resp_1',
        item_id: 'item_1',
        output_index: 0,
        content_index: 0,
        delta: ' there',
      },
      {
        type: 'response.done',
        response: {
          id: 'resp_1',
          status: 'completed',
          usage: {
            total_tokens: 30,
            input_tokens: 20,
            output_tokens: 10,
            input_token_details: { cached_tokens: 4 },
          },
        },
      },
    ]);
    expect(responses).toEqual([
      { content: { role: 'model', parts: [{ text: 'Hello' }] }, partial: true },
      { content: { role: 'model', parts: [{ text: ' there' }] }, partial: true },
      { content: { role: 'model', parts: [{ text: 'Hello there' }] } },
      { turnComplete: true },
      {
        usageMetadata: {
          promptTokenCount: 20,
          candidatesTokenCount: 10,
          totalTokenCount: 30,
          cachedContentTokenCount: 4,
        },
      },
    ]);
  });

  it('passes audio through as 24 kHz partial inline data with both transcriptions', () => {
    const { responses } = replay([
      {
        type: 'conversation.item.input_audio_transcription.delta',
        item_id: 'item_u',
        content_index: 0,
        delta: 'What time',
      },
      {
        type: 'conversation.item.input_audio_transcription.completed',
        item_id: 'item_u',
        content_index: 0,
        transcript: 'What time is it?',
      },
      { type: 'response.created', response: { id: 'resp_2' } },
      { type: 'response.output_audio.delta', response_id: 'resp_2', item_id: 'item_a', delta: 'AAAAAA==' },
      {
        type: 'response.output_audio_transcript.delta',
        response_id: 'resp_2',
        item_id: 'item_a',
        delta: 'Noon.',
      },
      {
        type: 'response.output_audio_transcript.done',
        response_id: 'resp_2',
        item_id: 'item_a',
        transcript: 'Noon.',
      },
      { type: 'response.done', response: { id: 'resp_2', status: 'completed' } },
    ]);
    expect(responses).toEqual([
      { inputTranscription: { text: 'What time', finished: false }, partial: true },
      { inputTranscription: { text: 'What time is it?', finished: true } },
      {
        content: {
          role: 'model',
          parts: [{ inlineData: { mimeType: 'audio/pcm;rate=24000', data: 'AAAAAA==' } }],
        },
        partial: true,
      },
      { outputTranscription: { text: 'Noon.', finished: false }, partial: true },
      { outputTranscription: { text: 'Noon.', finished: true } },
      { turnComplete: true },
    ]);
  });

  it('leaves transcriptions out when the session did not ask for them', () => {
    const { responses } = replay(
      [
        { type: 'response.audio_transcript.delta', delta: 'Hi' },
        { type: 'conversation.item.input_audio_transcription.completed', transcript: 'Hello' },
      ],
      initialRealtimeState({ model: 'm', contents: [], config: {} }),
    );
    expect(responses).toEqual([]);
  });

  it('emits a tool call at response.function_call_arguments.done, without a turnComplete after it', () => {
    const { responses } = replay([
      { type: 'response.created', response: { id: 'resp_3' } },
      {
        type: 'response.output_item.added',
        response_id: 'resp_3',
        output_index: 0,
        item: { id: 'item_f', type: 'function_call', call_id: 'call_7', name: 'get_weather' },
      },
      { type: 'response.function_call_arguments.delta', call_id: 'call_7', delta: '{"city":' },
      {
        type: 'response.function_call_arguments.done',
        response_id: 'resp_3',
        item_id: 'item_f',
        output_index: 0,
        call_id: 'call_7',
        arguments: '{"city":"Rome"}',
      },
      {
        type: 'response.function_call_arguments.done',
        call_id: 'call_8',
        name: 'get_weather',
        arguments: '{"city":',
      },
      { type: 'response.done', response: { id: 'resp_3', status: 'completed' } },
    ]);
    expect(responses).toEqual([
      {
        content: {
          role: 'model',
          parts: [{ functionCall: { id: 'call_7', name: 'get_weather', args: { city: 'Rome' } } }],
        },
      },
      {
        content: {
          role: 'model',
          parts: [{ functionCall: { id: 'call_8', name: 'get_weather', args: {}, invalidArgs: '{"city":' } }],
        },
      },
    ]);
  });

  it('barges in on speech_started: cancels the response, truncates the playing item, reports interrupted', () => {
    let now = 1_000;
    const second = 'A'.repeat(64_000); // 48,000 bytes: one second of 24 kHz audio
    const { responses, send } = replay(
      [
        { type: 'response.created', response: { id: 'resp_4' } },
        { type: 'response.output_text.delta', item_id: 'item_b', delta: 'Once upon' },
        { type: 'response.output_audio.delta', item_id: 'item_b', delta: second },
        { type: 'input_audio_buffer.speech_started', audio_start_ms: 1500, item_id: 'item_u2' },
        // The server's own cancellation may make ours redundant; that error is not reported.
        {
          type: 'error',
          error: {
            type: 'invalid_request_error',
            code: 'response_cancel_not_active',
            message: 'no active response',
          },
        },
        { type: 'response.done', response: { id: 'resp_4', status: 'cancelled' } },
      ],
      initialRealtimeState(voice),
      () => {
        now += 100;
        return now;
      },
    );
    expect(send).toEqual([
      { type: 'response.cancel' },
      { type: 'conversation.item.truncate', item_id: 'item_b', content_index: 0, audio_end_ms: 100 },
    ]);
    expect(responses.slice(2)).toEqual([
      { content: { role: 'model', parts: [{ text: 'Once upon' }] } },
      { interrupted: true },
    ]);
  });

  it('does not interrupt when nothing is playing', () => {
    expect(bargeIn(initialRealtimeState(voice), 5_000)).toEqual({
      state: initialRealtimeState(voice),
      responses: [],
      send: [],
    });
  });

  it('reports errors and failed responses as error responses', () => {
    const { responses } = replay([
      {
        type: 'error',
        event_id: 'ev_1',
        error: {
          type: 'invalid_request_error',
          code: 'invalid_value',
          message: 'Bad voice',
          param: 'session.audio.output.voice',
        },
      },
      {
        type: 'response.done',
        response: {
          id: 'resp_5',
          status: 'failed',
          status_details: {
            type: 'failed',
            error: { type: 'server_error', code: 'internal', message: 'boom' },
          },
        },
      },
      {
        type: 'response.done',
        response: {
          id: 'resp_6',
          status: 'incomplete',
          status_details: { type: 'incomplete', reason: 'max_output_tokens' },
        },
      },
    ]);
    expect(responses).toEqual([
      { errorCode: 'invalid_value', errorMessage: 'Bad voice' },
      { errorCode: 'internal', errorMessage: 'boom' },
      { turnComplete: true, finishReason: 'MAX_TOKENS' },
    ]);
  });

  it('flushes an unfinished turn when the connection ends', () => {
    const { state } = replay([
      { type: 'conversation.item.input_audio_transcription.delta', delta: 'Hel' },
      { type: 'response.output_text.delta', delta: 'Hi' },
    ]);
    expect(flushRealtimeState(state).responses).toEqual([
      { inputTranscription: { text: 'Hel', finished: true } },
      { content: { role: 'model', parts: [{ text: 'Hi' }] } },
    ]);
  });

  it('ignores events it does not read, reads binary frames and rejects malformed ones with a typed error', () => {
    expect(
      replay([{ type: 'rate_limits.updated', rate_limits: [] }, { type: 'response.content_part.added' }])
        .responses,
    ).toEqual([]);
    expect(parseRealtimeEvent(new TextEncoder().encode('{"type":"session.updated"}')).type).toBe(
      'session.updated',
    );
    for (const frame of [
      'nope',
      '{}',
      '{"type":7}',
      '[]',
      '{"type":"response.output_text.delta","delta":5}',
    ]) {
      let error: unknown;
      try {
        parseRealtimeEvent(frame);
      } catch (e) {
        error = e;
      }
      expect(isAdkError(error, 'LIVE_PROTOCOL'), frame).toBe(true);
    }
  });
});
