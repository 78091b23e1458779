import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import {
  createEvent,
  type Event,
  FunctionTool,
  InMemorySessionService,
  LiveConnectionClosedError,
  LiveRequestQueue,
  LlmAgent,
  latestResumptionHandle,
  type Plugin,
  type RunConfig,
  Runner,
  SequentialAgent,
  type Session,
  stopStreamingTool,
  userContent,
} from '../index.js';
import {
  functionCallResponse,
  type LiveConnectionScript,
  type LiveSent,
  ScriptedLiveModel,
  ScriptedModel,
} from '../testing/index.js';

const AUDIO = { mimeType: 'audio/pcm;rate=24000', data: 'AAAA' };

function text(t: string, partial = false) {
  return { content: { role: 'model' as const, parts: [{ text: t }] }, ...(partial ? { partial: true } : {}) };
}

function setup(
  scripts: LiveConnectionScript[],
  agentOptions: Partial<ConstructorParameters<typeof LlmAgent>[0]> = {},
  plugins: Plugin[] = [],
) {
  const model = new ScriptedLiveModel(scripts);
  const agent = new LlmAgent({ name: 'voice', model, instruction: 'Talk.', ...agentOptions });
  const sessionService = new InMemorySessionService();
  const runner = new Runner({ appName: 'app', agent, sessionService, autoCreateSession: true, plugins });
  const queue = new LiveRequestQueue();
  return { model, agent, runner, queue, sessionService };
}

/** Runs a live session, closing the queue once `until` sees the event it waits for. */
async function live(
  s: ReturnType<typeof setup>,
  options: {
    until?: (event: Event) => boolean;
    runConfig?: RunConfig;
    abortSignal?: AbortSignal;
    resumptionHandle?: string;
    onEvent?: (event: Event) => void;
  } = {},
): Promise<{ events: Event[]; session: Session }> {
  const until = options.until ?? ((e: Event) => e.turnComplete === true);
  const events: Event[] = [];
  for await (const event of s.runner.runLive({
    userId: 'u',
    sessionId: 's',
    liveRequestQueue: s.queue,
    ...(options.runConfig ? { runConfig: options.runConfig } : {}),
    ...(options.abortSignal ? { abortSignal: options.abortSignal } : {}),
    ...(options.resumptionHandle ? { resumptionHandle: options.resumptionHandle } : {}),
  })) {
    events.push(event);
    options.onEvent?.(event);
    if (until(event)) s.queue.close();
  }
  const session = await s.sessionService.getSession({ appName: 'app', userId: 'u', sessionId: 's' });
  return { events, session: session as Session };
}

const textsOf = (events: Event[]) =>
  events.flatMap((e) =>
    (e.content?.parts ?? []).filter((p) => p.text !== undefined).map((p) => `${e.author}:${p.text}`),
  );

describe('LiveRequestQueue', () => {
  it('is a FIFO; an aborted get loses nothing; iteration ends at close; sends after close are ignored', async () => {
    const queue = new LiveRequestQueue();
    const aborted = new AbortController();
    const waiting = queue.get(aborted.signal);
    aborted.abort();
    await expect(waiting).rejects.toMatchObject({ code: 'CANCELLED' });
    queue.sendContent(userContent('a'));
    queue.sendRealtime({ mimeType: 'audio/pcm;rate=16000', data: 'AA==' });
    queue.sendActivityStart();
    queue.sendActivityEnd();
    queue.close();
    queue.sendContent(userContent('late'));
    const seen = [];
    for await (const request of queue) seen.push(Object.keys(request)[0]);
    expect(seen).toEqual(['content', 'blob', 'activityStart', 'activityEnd']);
    expect(await queue.get()).toEqual({ close: true });
  });
});

describe('Runner.runLive', () => {
  it('text round trip: forwards the queue, yields every response, stores only final text, user text and finished transcriptions', async () => {
    const s = setup([
      [
        { waitFor: 'content' },
        { inputTranscription: { text: 'what is' }, partial: true },
        { inputTranscription: { text: 'what is up', finished: true } },
        { content: { role: 'model', parts: [{ inlineData: AUDIO }] }, partial: true },
        { content: { role: 'model', parts: [{ inlineData: AUDIO }] } },
        { outputTranscription: { text: 'Not ' }, partial: true },
        { outputTranscription: { text: 'Not much', finished: true } },
        text('Hel', true),
        text('lo', true),
        text('Hello'),
        { usageMetadata: { totalTokenCount: 7 } },
        { turnComplete: true },
      ],
    ]);
    s.queue.sendContent(userContent('hi'));
    s.queue.sendRealtime({ mimeType: 'audio/pcm;rate=16000', data: 'AQI=' });
    s.queue.sendActivityStart();
    s.queue.sendActivityEnd();
    const { events, session } = await live(s, {
      runConfig: {
        responseModalities: ['AUDIO'],
        inputAudioTranscription: {},
        outputAudioTranscription: true,
        speechConfig: { voiceName: 'Puck' },
        realtimeInputConfig: { automaticActivityDetection: { disabled: true } },
        proactivity: { proactiveAudio: true },
        enableAffectiveDialog: true,
        contextWindowCompression: { slidingWindow: {} },
        sessionResumption: {},
      },
    });

    // Everything is yielded, as it arrives.
    expect(events.map((e) => e.author)).toEqual([
      'user', // the user's text
      'user', // input transcription chunk
      'user', // finished input transcription
      'voice', // audio chunk
      'voice', // audio
      'voice', // output transcription chunk
      'voice', // finished output transcription
      'voice',
      'voice',
      'voice', // aggregated text
      'voice', // usage
      'voice', // turn complete
    ]);
    expect(events[1]).toMatchObject({ partial: true, inputTranscription: { text: 'what is' } });
    expect(events[2]).toMatchObject({ inputTranscription: { text: 'what is up', finished: true } });
    expect(events[3]?.content?.parts[0]?.inlineData).toEqual(AUDIO);

    // Stored: user text, finished transcriptions (user-authored for input), the final text.
    expect(session.events.map((e) => `${e.author}:${e.content?.parts[0]?.text}`)).toEqual([
      'user:hi',
      'user:what is up',
      'voice:Not much',
      'voice:Hello',
    ]);
    for (const e of session.events) {
      expect(e.partial).toBeUndefined();
      expect(e.inputTranscription).toBeUndefined();
      expect(e.outputTranscription).toBeUndefined();
    }

    const [connection] = s.model.connections;
    expect(connection?.sent.map((x) => x.kind)).toEqual([
      'content',
      'realtime',
      'activityStart',
      'activityEnd',
    ]);
    expect(connection?.request.systemInstruction).toContain('Talk.');
    expect(connection?.request.config.live).toEqual({
      responseModalities: ['AUDIO'],
      inputAudioTranscription: true,
      outputAudioTranscription: true,
      speechConfig: { voiceName: 'Puck' },
      realtimeInputConfig: { automaticActivityDetection: { disabled: true } },
      proactivity: { proactiveAudio: true },
      enableAffectiveDialog: true,
      contextWindowCompression: { slidingWindow: {} },
      sessionResumption: {},
    });
    expect(connection?.closed).toBe(true);
  });

  it('sends the session history right after connecting, and a later run continues from what was said live', async () => {
    const s = setup([
      [
        { waitFor: 'content' },
        { inputTranscription: { text: 'spoken', finished: true } },
        text('answer'),
        { turnComplete: true },
      ],
    ]);
    const created = await s.sessionService.createSession({ appName: 'app', userId: 'u', sessionId: 's' });
    await s.sessionService.appendEvent(
      created,
      createEvent({ invocationId: 'e-0', author: 'user', content: userContent('typed') }),
    );
    s.queue.sendContent(userContent('hi'));
    await live(s);
    expect(s.model.connections[0]?.history).toEqual([{ role: 'user', parts: [{ text: 'typed' }] }]);
    // A request/response run after the live session sees the transcription and the answer.
    const textModel = new ScriptedModel(['ok']);
    const agent = new LlmAgent({ name: 'voice', model: textModel });
    const runner = new Runner({ appName: 'app', agent, sessionService: s.sessionService });
    for await (const _ of runner.run({ userId: 'u', sessionId: 's', newMessage: userContent('next') })) {
    }
    expect(textModel.requests[0]?.contents.map((c) => c.parts[0]?.text)).toEqual(
      expect.arrayContaining(['hi', 'spoken', 'answer', 'next']),
    );
  });

  it('runs a tool call at once (Gemini 3 style, before the turn ends), with callbacks, and sends its response back', async () => {
    const calls: string[] = [];
    const weather = new FunctionTool({
      name: 'get_weather',
      description: 'weather',
      parameters: z.object({ city: z.string() }),
      execute: ({ city }, ctx) => {
        ctx.state.set('last_city', city);
        return { city, sky: 'sunny' };
      },
    });
    const s = setup(
      [
        [
          { waitFor: 'content' },
          // The model waits for the tool's response before it finishes its turn.
          functionCallResponse('get_weather', { city: 'Paris' }, 'call-1'),
          { waitFor: 'functionResponse' },
          text('It is sunny in Paris.'),
          { turnComplete: true },
        ],
      ],
      {
        tools: [weather],
        beforeToolCallback: ({ tool, args }) => {
          calls.push(`before:${tool.name}:${JSON.stringify(args)}`);
        },
        afterToolCallback: ({ result }) => {
          calls.push('after');
          return { ...result, checked: true };
        },
      },
    );
    s.queue.sendContent(userContent('Weather in Paris?'));
    const { session } = await live(s);
    expect(calls).toEqual(['before:get_weather:{"city":"Paris"}', 'after']);
    const connection = s.model.connections[0];
    expect(connection?.sentContents.at(-1)).toEqual({
      role: 'user',
      parts: [
        {
          functionResponse: {
            id: 'call-1',
            name: 'get_weather',
            response: { city: 'Paris', sky: 'sunny', checked: true },
          },
        },
      ],
    });
    expect(connection?.request.tools?.map((t) => t.name)).toEqual(['get_weather']);
    const stored = session.events.map((e) => e.content?.parts[0]);
    expect(stored[1]?.functionCall?.id).toBe('call-1');
    expect(stored[2]?.functionResponse?.response).toMatchObject({ checked: true });
    expect(session.state.last_city).toBe('Paris');
    expect(textsOf(session.events)).toEqual(['user:Weather in Paris?', 'voice:It is sunny in Paris.']);
  });

  it('a failing tool is answered with an error response; a connection that fails otherwise ends the run with an error event', async () => {
    const broken = new FunctionTool({
      name: 'broken',
      description: '',
      parameters: z.object({}),
      execute: () => {
        throw new Error('disk full');
      },
    });
    const s = setup(
      [
        async function* (connection) {
          await connection.nextSent('content');
          yield functionCallResponse('broken', {}, 'x1');
          await connection.nextSent('functionResponse');
          throw new Error('protocol violation');
        },
      ],
      { tools: [broken] },
    );
    s.queue.sendContent(userContent('go'));
    const { events, session } = await live(s, { until: () => false });
    const connection = s.model.connections[0];
    expect(connection?.sentContents.at(-1)?.parts[0]?.functionResponse?.response).toEqual({
      error: 'Tool "broken" failed: disk full',
    });
    expect(events.at(-1)).toMatchObject({ errorCode: 'INTERNAL', errorMessage: 'protocol violation' });
    expect(session.events.at(-1)?.errorCode).toBe('INTERNAL');
    expect(connection?.closed).toBe(true);
  });

  it('a call the model cancels aborts the running tool and nothing is sent for it', async () => {
    let aborted = false;
    const slow = new FunctionTool({
      name: 'slow_lookup',
      description: '',
      parameters: z.object({}),
      execute: (_args, ctx) =>
        new Promise((resolve) => {
          ctx.signal.addEventListener('abort', () => {
            aborted = true;
            resolve({ late: true });
          });
        }),
    });
    const s = setup(
      [
        [
          { waitFor: 'content' },
          functionCallResponse('slow_lookup', {}, 'c1'),
          { delayMs: 5 },
          { toolCallCancellation: { ids: ['c1'] } },
          text('Never mind.'),
          { turnComplete: true },
        ],
      ],
      { tools: [slow] },
    );
    s.queue.sendContent(userContent('look it up'));
    const { session } = await live(s);
    expect(aborted).toBe(true);
    const connection = s.model.connections[0];
    expect(connection?.sentContents.some((c) => c.parts.some((p) => p.functionResponse))).toBe(false);
    // The session keeps the call paired with a cancelled response (history stays valid).
    const response = session.events.flatMap((e) => e.content?.parts ?? []).find((p) => p.functionResponse);
    expect(response?.functionResponse).toMatchObject({
      id: 'c1',
      response: { error: expect.stringContaining('cancelled') },
    });
  });

  it('non-blocking tools are declared NON_BLOCKING and answer with their scheduling, without holding up the conversation', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const background = new FunctionTool({
      name: 'book_table',
      description: '',
      parameters: z.object({}),
      behavior: 'NON_BLOCKING',
      scheduling: 'SILENT',
      execute: async () => {
        await gate;
        return { booked: true };
      },
    });
    const s = setup(
      [
        [
          { waitFor: 'content' },
          functionCallResponse('book_table', {}, 'b1'),
          text('Booking it while we talk.'),
          { waitFor: 'functionResponse' },
          { turnComplete: true },
        ],
      ],
      { tools: [background] },
    );
    s.queue.sendContent(userContent('book'));
    const { events } = await live(s, {
      onEvent: (e) => {
        if (e.content?.parts[0]?.text === 'Booking it while we talk.') release();
      },
    });
    const connection = s.model.connections[0];
    expect(connection?.request.tools?.[0]).toMatchObject({ name: 'book_table', behavior: 'NON_BLOCKING' });
    expect(connection?.sentContents.at(-1)?.parts[0]?.functionResponse).toEqual({
      id: 'b1',
      name: 'book_table',
      response: { booked: true },
      scheduling: 'SILENT',
    });
    // The model's talk came before the tool's response.
    const order = events.map(
      (e) => e.content?.parts[0]?.text ?? (e.content?.parts[0]?.functionResponse ? 'response' : ''),
    );
    expect(order.indexOf('Booking it while we talk.')).toBeLessThan(order.indexOf('response'));
  });

  it('streaming tools send each chunk as it comes; stop_streaming stops one; a finished stream says so', async () => {
    let stopped = false;
    const monitor = new FunctionTool({
      name: 'monitor_price',
      description: '',
      parameters: z.object({}),
      execute: async function* (_args, ctx) {
        try {
          for (let i = 0; ; i++) {
            yield { price: 100 + i };
            await new Promise((resolve) => setTimeout(resolve, 2));
            if (ctx.signal.aborted) return;
          }
        } finally {
          stopped = true;
        }
      },
    });
    const countdown = new FunctionTool({
      name: 'countdown',
      description: '',
      parameters: z.object({}),
      scheduling: 'INTERRUPT',
      execute: async function* () {
        yield { n: 2 };
        yield { n: 1 };
      },
    });
    const isChunkOf =
      (name: string) =>
      (x: { kind: string; content?: { parts: { functionResponse?: { name: string } }[] } }) =>
        x.kind === 'content' && x.content?.parts[0]?.functionResponse?.name === name;
    const s = setup(
      [
        [
          { waitFor: 'content' },
          functionCallResponse('monitor_price', {}, 'm1'),
          { waitFor: isChunkOf('monitor_price') },
          { waitFor: isChunkOf('monitor_price') },
          functionCallResponse('stop_streaming', { function_name: 'monitor_price' }, 'st1'),
          { waitFor: isChunkOf('stop_streaming') },
          functionCallResponse('countdown', {}, 'cd1'),
          {
            waitFor: (x) =>
              isChunkOf('countdown')(x) &&
              x.kind === 'content' &&
              x.content.parts[0]?.functionResponse?.willContinue === false,
          },
          { turnComplete: true },
        ],
      ],
      { tools: [monitor, countdown, stopStreamingTool] },
    );
    s.queue.sendContent(userContent('watch it'));
    await live(s);
    // The generator sees the stop at its next step.
    await vi.waitFor(() => expect(stopped).toBe(true));
    const responses = (s.model.connections[0]?.sentContents ?? [])
      .flatMap((c) => c.parts)
      .map((p) => p.functionResponse)
      .filter((r) => r !== undefined);
    const monitorChunks = responses.filter((r) => r.name === 'monitor_price');
    expect(monitorChunks.length).toBeGreaterThanOrEqual(2);
    expect(monitorChunks[0]).toEqual({
      id: 'm1',
      name: 'monitor_price',
      response: { price: 100 },
      willContinue: true,
      scheduling: 'WHEN_IDLE',
    });
    // Nothing of the stopped stream after the stop answer.
    const stopAt = responses.findIndex((r) => r.name === 'stop_streaming');
    expect(responses[stopAt]?.response).toEqual({ status: 'Stopped 1 streaming call of "monitor_price".' });
    expect(responses.slice(stopAt).some((r) => r.name === 'monitor_price')).toBe(false);
    expect(responses.filter((r) => r.name === 'countdown')).toEqual([
      { id: 'cd1', name: 'countdown', response: { n: 2 }, willContinue: true, scheduling: 'INTERRUPT' },
      { id: 'cd1', name: 'countdown', response: { n: 1 }, willContinue: true, scheduling: 'INTERRUPT' },
      {
        id: 'cd1',
        name: 'countdown',
        response: { status: 'The stream has ended.' },
        willContinue: false,
        scheduling: 'INTERRUPT',
      },
    ]);
  });

  it("a streaming tool can watch the client's input while it runs (toolContext.inputStream)", async () => {
    const watcher = new FunctionTool({
      name: 'watch_camera',
      description: '',
      parameters: z.object({}),
      execute: async function* (_args, ctx) {
        let frames = 0;
        for await (const request of ctx.inputStream ?? []) {
          if (!request.blob?.mimeType.startsWith('image/')) continue;
          frames++;
          yield { frames };
          if (frames === 2) return;
        }
      },
    });
    const ended = (x: LiveSent) =>
      x.kind === 'content' && x.content.parts[0]?.functionResponse?.willContinue === false;
    const s = setup(
      [
        [
          { waitFor: 'content' },
          functionCallResponse('watch_camera', {}, 'v1'),
          { waitFor: ended },
          { turnComplete: true },
        ],
      ],
      { tools: [watcher] },
    );
    s.queue.sendContent(userContent('tell me when you see two frames'));
    await live(s, {
      onEvent: (e) => {
        if (!e.content?.parts[0]?.functionCall) return;
        s.queue.sendRealtime({ mimeType: 'audio/pcm;rate=16000', data: 'AA==' });
        s.queue.sendRealtime({ mimeType: 'image/jpeg', data: '/9j/' });
        s.queue.sendRealtime({ mimeType: 'image/jpeg', data: '/9k/' });
      },
    });
    const connection = s.model.connections[0];
    // The frames reached the model too.
    expect(connection?.sent.filter((x) => x.kind === 'realtime').length).toBe(3);
    expect(connection?.sentContents.flatMap((c) => c.parts).map((p) => p.functionResponse?.response)).toEqual(
      [undefined, { frames: 1 }, { frames: 2 }, { status: 'The stream has ended.' }],
    );
  });

  it('transfer_to_agent closes the connection and the target agent goes on live with the same queue', async () => {
    const model = new ScriptedLiveModel([
      [{ waitFor: 'content' }, functionCallResponse('transfer_to_agent', { agent_name: 'billing' }, 't1')],
      [text('Billing here.'), { waitFor: 'content' }, text('Refunded.'), { turnComplete: true }],
    ]);
    const billing = new LlmAgent({
      name: 'billing',
      description: 'Handles billing',
      instruction: 'You do billing.',
    });
    const agent = new LlmAgent({ name: 'front', model, instruction: 'Route.', subAgents: [billing] });
    const sessionService = new InMemorySessionService();
    const runner = new Runner({ appName: 'app', agent, sessionService, autoCreateSession: true });
    const queue = new LiveRequestQueue();
    queue.sendContent(userContent('I need a refund'));
    const s = { model, agent, runner, queue, sessionService };
    const { session } = await live(s, {
      onEvent: (e) => {
        // A message while the hand-over happens is neither lost nor sent twice.
        if (e.content?.parts[0]?.functionCall) queue.sendContent(userContent('Meanwhile.'));
        if (e.author === 'billing' && e.content?.parts[0]?.text === 'Billing here.')
          queue.sendContent(userContent('Please.'));
      },
    });
    const [first, second] = model.connections;
    expect(first?.closed).toBe(true);
    // The transfer's response stays in the session; it is not sent to the closing connection.
    expect(first?.sentContents.some((c) => c.parts.some((p) => p.functionResponse))).toBe(false);
    expect(second?.request.systemInstruction).toContain('You do billing.');
    expect(second?.history?.[0]).toEqual({ role: 'user', parts: [{ text: 'I need a refund' }] });
    expect(second?.history).toContainEqual({ role: 'user', parts: [{ text: 'Meanwhile.' }] });
    expect(second?.sentContents).toEqual([{ role: 'user', parts: [{ text: 'Please.' }] }]);
    expect(textsOf(session.events)).toEqual([
      'user:I need a refund',
      'user:Meanwhile.',
      'billing:Billing here.',
      'user:Please.',
      'billing:Refunded.',
    ]);
    expect(session.events.find((e) => e.actions.transferToAgent)?.actions.transferToAgent).toBe('billing');
  });

  it('keeps resumption handles as events and reconnects with the latest one on goAway, without resending history', async () => {
    const s = setup([
      [
        { waitFor: 'content' },
        { liveSessionResumptionUpdate: { newHandle: 'h-1', resumable: true } },
        text('Fir', true),
        // Mid-turn: the connection is replaced once the turn is over, not in the middle of it.
        { goAway: { timeLeft: '50s' } },
        text('First.'),
        { liveSessionResumptionUpdate: { newHandle: 'h-2', resumable: true } },
        { liveSessionResumptionUpdate: { resumable: false } },
        { turnComplete: true },
      ],
      [{ waitFor: 'content' }, text('Second.'), { turnComplete: true }],
    ]);
    s.queue.sendContent(userContent('one'));
    let turns = 0;
    const { session } = await live(s, {
      runConfig: { sessionResumption: { transparent: true } },
      until: (e) => e.turnComplete === true && ++turns === 2,
      onEvent: (e) => {
        if (e.turnComplete && turns === 0) s.queue.sendContent(userContent('two'));
      },
    });
    const [first, second] = s.model.connections;
    expect(first?.closed).toBe(true);
    expect(second?.options.resumptionHandle).toBe('h-2');
    expect(second?.history).toBeUndefined();
    expect(first?.request.config.live?.sessionResumption).toEqual({ transparent: true });
    expect(latestResumptionHandle(session)).toBe('h-2');
    expect(session.events.filter((e) => e.customMetadata?.liveSessionResumptionHandle).length).toBe(2);
    expect(textsOf(session.events)).toEqual(['user:one', 'voice:First.', 'user:two', 'voice:Second.']);
    // Every message reached exactly one connection.
    expect(
      [...(first?.sentContents ?? []), ...(second?.sentContents ?? [])].map((c) => c.parts[0]?.text),
    ).toEqual(['one', 'two']);
  });

  it('after a goAway, the announced close itself (even a normal one) is followed by a reconnect', async () => {
    const s = setup([
      [
        { liveSessionResumptionUpdate: { newHandle: 'h-9' } },
        text('Talking', true),
        { goAway: { timeLeft: '30s' } },
        { end: true },
      ],
      [text('Still here.'), { turnComplete: true }],
    ]);
    const { events } = await live(s);
    expect(s.model.connections[1]?.options.resumptionHandle).toBe('h-9');
    expect(textsOf(events)).toContain('voice:Still here.');
  });

  it('a tool that asks for confirmation is answered with an error in a live session instead of hanging', async () => {
    const guarded = new FunctionTool({
      name: 'delete_all',
      description: '',
      parameters: z.object({}),
      requireConfirmation: true,
      execute: () => ({ deleted: true }),
    });
    const s = setup(
      [
        [
          { waitFor: 'content' },
          functionCallResponse('delete_all', {}, 'd1'),
          { waitFor: 'functionResponse' },
          { turnComplete: true },
        ],
      ],
      { tools: [guarded] },
    );
    s.queue.sendContent(userContent('delete everything'));
    const { session } = await live(s);
    const sent = s.model.connections[0]?.sentContents.at(-1)?.parts[0]?.functionResponse;
    expect(sent?.response.error).toContain('confirmation');
    expect(session.events.some((e) => e.actions.requestedToolConfirmations)).toBe(false);
  });

  it('runLive({ resumptionHandle }) connects with it and sends no history', async () => {
    const s = setup([[text('Welcome back.'), { turnComplete: true }]]);
    await live(s, { resumptionHandle: 'h-old' });
    expect(s.model.connections[0]?.options.resumptionHandle).toBe('h-old');
    expect(s.model.connections[0]?.history).toBeUndefined();
  });

  it('reconnects after a 1011 close, resending the history when there is no handle', async () => {
    const s = setup([
      [{ waitFor: 'content' }, text('One.'), { close: 1011, reason: 'internal error' }],
      [text('Two.'), { turnComplete: true }],
    ]);
    s.queue.sendContent(userContent('hi'));
    const { events, session } = await live(s, { runConfig: { liveReconnect: { initialDelayMs: 1 } } });
    expect(events.some((e) => e.errorCode)).toBe(false);
    expect(s.model.connections[1]?.history).toEqual([
      { role: 'user', parts: [{ text: 'hi' }] },
      { role: 'model', parts: [{ text: 'One.' }] },
    ]);
    expect(textsOf(session.events)).toEqual(['user:hi', 'voice:One.', 'voice:Two.']);
  });

  it('retries a first connection that drops at once (1011), and fails at once on one that is refused otherwise', async () => {
    const s = setup([new LiveConnectionClosedError(1011, 'busy'), [text('Hello.'), { turnComplete: true }]]);
    const { events } = await live(s, { runConfig: { liveReconnect: { initialDelayMs: 1 } } });
    expect(textsOf(events)).toEqual(['voice:Hello.']);

    const refused = setup([new LiveConnectionClosedError(1008, 'bad key'), [text('never')]]);
    const result = await live(refused, { until: () => false });
    expect(result.events.map((e) => e.errorCode)).toEqual(['LIVE_CONNECTION_CLOSED']);
    expect(refused.model.connections.length).toBe(0);
  });

  it('gives up after the reconnect limit with a LIVE_CONNECTION_CLOSED error event; other close codes are not retried', async () => {
    // A resumption update right after connecting does not make a connection count as working.
    const s = setup([
      [{ liveSessionResumptionUpdate: { newHandle: 'h' } }, { close: 1011 }],
      [{ close: 1012 }],
      [{ close: 1006 }],
      [text('never')],
    ]);
    const { events, session } = await live(s, {
      runConfig: { liveReconnect: { maxAttempts: 2, initialDelayMs: 1 } },
    });
    expect(s.model.connections.length).toBe(3);
    const error = events.at(-1);
    expect(error).toMatchObject({ errorCode: 'LIVE_CONNECTION_CLOSED' });
    expect(error?.errorMessage).toContain('gave up after 2 reconnect attempts');
    expect(session.events.at(-1)?.errorCode).toBe('LIVE_CONNECTION_CLOSED');

    const policy = setup([[{ close: 1008, reason: 'policy violation' }], [text('never')]]);
    const result = await live(policy);
    expect(policy.model.connections.length).toBe(1);
    expect(result.events.at(-1)).toMatchObject({ errorCode: 'LIVE_CONNECTION_CLOSED' });
    expect(result.events.at(-1)?.errorMessage).toContain('1008');
  });

  it('abortSignal ends the session cleanly: no error event, the connection closes, running tools abort, afterRun runs', async () => {
    let toolAborted = false;
    const hooks: string[] = [];
    const wait = new FunctionTool({
      name: 'wait_forever',
      description: '',
      parameters: z.object({}),
      execute: (_args, ctx) =>
        new Promise((resolve) =>
          ctx.signal.addEventListener('abort', () => {
            toolAborted = true;
            resolve({});
          }),
        ),
    });
    const s = setup(
      [[{ waitFor: 'content' }, functionCallResponse('wait_forever', {}, 'w1')]],
      { tools: [wait] },
      [{ name: 'p', afterRun: () => void hooks.push('afterRun') }],
    );
    const controller = new AbortController();
    s.queue.sendContent(userContent('go'));
    const { events } = await live(s, {
      abortSignal: controller.signal,
      until: () => false,
      onEvent: (e) => {
        if (e.content?.parts[0]?.functionCall) setTimeout(() => controller.abort(), 5);
      },
    });
    expect(events.some((e) => e.errorCode)).toBe(false);
    expect(toolAborted).toBe(true);
    expect(s.model.connections[0]?.closed).toBe(true);
    expect(hooks).toEqual(['afterRun']);
  });

  it('a caller that stops iterating closes the connection; the server ending the session ends the run', async () => {
    const s = setup([
      [text('a'), text('b')],
      [text('x'), { end: true }],
    ]);
    for await (const event of s.runner.runLive({ userId: 'u', sessionId: 's', liveRequestQueue: s.queue })) {
      expect(event.content?.parts[0]?.text).toBe('a');
      break;
    }
    expect(s.model.connections[0]?.closed).toBe(true);
    const s2 = setup([[text('x'), { end: true }]]);
    const { events } = await live(s2, { until: () => false });
    expect(textsOf(events)).toEqual(['voice:x']);
  });

  it('plugins and agent callbacks run as in run: onUserMessage, beforeRun/afterRun, onEvent, before/after agent', async () => {
    const seen: string[] = [];
    const plugin: Plugin = {
      name: 'audit',
      beforeRun: () => void seen.push('beforeRun'),
      afterRun: () => void seen.push('afterRun'),
      onUserMessage: ({ message }) => ({ role: 'user', parts: [{ text: `${message.parts[0]?.text}!` }] }),
      onEvent: ({ event }) => {
        if (event.turnComplete) seen.push('onEvent:turnComplete');
        return event.content?.parts[0]?.text === 'secret'
          ? { ...event, content: { role: 'model', parts: [{ text: '[redacted]' }] } }
          : undefined;
      },
    };
    const s = setup(
      [[{ waitFor: 'content' }, text('secret'), { turnComplete: true }]],
      {
        beforeAgentCallback: () => void seen.push('beforeAgent'),
        afterAgentCallback: () => void seen.push('afterAgent'),
      },
      [plugin],
    );
    s.queue.sendContent(userContent('hello'));
    const { session } = await live(s);
    expect(s.model.connections[0]?.sentContents).toEqual([{ role: 'user', parts: [{ text: 'hello!' }] }]);
    expect(textsOf(session.events)).toEqual(['user:hello!', 'voice:[redacted]']);
    expect(seen).toEqual(['beforeRun', 'beforeAgent', 'onEvent:turnComplete', 'afterAgent', 'afterRun']);

    const halting = setup([], {}, [
      { name: 'halt', beforeRun: () => ({ halt: { role: 'model', parts: [{ text: 'closed today' }] } }) },
    ]);
    const halted = await live(halting, { until: () => false });
    expect(textsOf(halted.events)).toEqual(['voice:closed today']);
    expect(halting.model.connections.length).toBe(0);
  });

  it('a model without live support or a workflow root ends with a LIVE_NOT_SUPPORTED error event', async () => {
    const agent = new LlmAgent({ name: 'plain', model: new ScriptedModel(['hi']) });
    const runner = new Runner({
      appName: 'app',
      agent,
      sessionService: new InMemorySessionService(),
      autoCreateSession: true,
    });
    const events: Event[] = [];
    for await (const e of runner.runLive({
      userId: 'u',
      sessionId: 's',
      liveRequestQueue: new LiveRequestQueue(),
    }))
      events.push(e);
    expect(events.map((e) => e.errorCode)).toEqual(['LIVE_NOT_SUPPORTED']);

    const seq = new SequentialAgent({
      name: 'seq',
      subAgents: [new LlmAgent({ name: 'x', model: new ScriptedLiveModel([]) })],
    });
    const runner2 = new Runner({
      appName: 'app',
      agent: seq,
      sessionService: new InMemorySessionService(),
      autoCreateSession: true,
    });
    const events2: Event[] = [];
    for await (const e of runner2.runLive({
      userId: 'u',
      sessionId: 's',
      liveRequestQueue: new LiveRequestQueue(),
    }))
      events2.push(e);
    expect(events2.map((e) => e.errorCode)).toEqual(['LIVE_NOT_SUPPORTED']);
  });
});
