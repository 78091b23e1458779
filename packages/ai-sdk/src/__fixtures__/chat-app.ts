import { FunctionTool, InMemorySessionService, LlmAgent, type LlmRequest, Runner } from '@adk/core';
import { functionCallResponse, ScriptedModel } from '@adk/core/testing';
import {
  AbstractChat,
  type ChatInit,
  type ChatState,
  type ChatStatus,
  DefaultChatTransport,
  parseJsonEventStream,
  type UIMessage,
  uiMessageChunkSchema,
} from 'ai';
import { z } from 'zod';
import type { ChatHandler } from '../index.js';

/**
 * The scripted agent of the chat tests, driven by the user's words: "think" answers with a thought
 * and a text, "weather in X" calls get_weather, "delete X" calls delete_file (asks first), "pick a
 * color" calls the client-side tool pick_color, "story" tells a long story slowly; after a tool
 * result the model reports it.
 */
export function chatAgent(options: { delayMs?: number } = {}): LlmAgent {
  const model = new ScriptedModel({
    model: 'gemini-2.5-flash',
    chunkSize: 4,
    ...(options.delayMs ? { delayMs: options.delayMs } : {}),
    respond: (request: LlmRequest) => {
      const last = request.contents.at(-1);
      const response = last?.parts.find((p) => p.functionResponse)?.functionResponse;
      if (response) return `Result of ${response.name}: ${JSON.stringify(response.response)}`;
      const text = last?.parts.map((p) => p.text ?? '').join('') ?? '';
      if (/think/i.test(text))
        return [{ text: 'Let me think.', thought: true }, { text: 'The answer is 42.' }];
      const weather = /weather in (\w+)/i.exec(text);
      if (weather) return functionCallResponse('get_weather', { city: weather[1] });
      const del = /delete (\S+)/i.exec(text);
      if (del) return functionCallResponse('delete_file', { path: del[1] });
      if (/pick a color/i.test(text)) return functionCallResponse('pick_color', { choices: ['red', 'blue'] });
      if (/story/i.test(text)) return `Once upon a time ${'there was a very long story '.repeat(6)}The end.`;
      return `You said: ${text}`;
    },
  });
  return new LlmAgent({
    name: 'assistant',
    description: 'Chats with tools',
    model,
    instruction: 'Help the user.',
    tools: [
      new FunctionTool({
        name: 'get_weather',
        description: 'Weather of a city',
        parameters: z.object({ city: z.string() }),
        execute: ({ city }) => ({ city, forecast: 'sunny' }),
      }),
      new FunctionTool({
        name: 'delete_file',
        description: 'Deletes a file (asks first)',
        parameters: z.object({ path: z.string() }),
        requireConfirmation: true,
        execute: ({ path }) => ({ deleted: path }),
      }),
      new FunctionTool({
        name: 'pick_color',
        description: 'Asks the user, in the browser, to pick a color',
        parameters: z.object({ choices: z.array(z.string()) }),
        isLongRunning: true,
        execute: () => undefined,
      }),
    ],
  });
}

export function chatRunner(agent: LlmAgent = chatAgent()): Runner {
  return new Runner({ appName: 'chat', agent, sessionService: new InMemorySessionService() });
}

/** Every chunk a response carried, each checked by the installed `ai`'s `uiMessageChunkSchema`. */
export interface ChunkLog {
  chunks: Record<string, unknown>[];
  invalid: unknown[];
  pending: Promise<void>[];
}

export function chunkLog(): ChunkLog {
  return { chunks: [], invalid: [], pending: [] };
}

/** Reads an SSE body as the transport does (with `ai`'s own parser and schema) into the log. */
export async function recordChunks(body: ReadableStream<Uint8Array>, log: ChunkLog): Promise<void> {
  const reader = parseJsonEventStream({ stream: body, schema: uiMessageChunkSchema }).getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    if (value.success) log.chunks.push(value.value as Record<string, unknown>);
    else log.invalid.push(value.error);
  }
}

/** A fetch that calls the handler directly, recording (and validating) each response's chunks. */
export function handlerFetch(handler: ChatHandler, log: ChunkLog): typeof fetch {
  return (async (input: string | URL | Request, init?: RequestInit) => {
    const request = new Request(input, init);
    const response = await handler(request);
    if (!response.body || !response.headers.get('x-vercel-ai-ui-message-stream')) return response;
    const [mine, theirs] = response.body.tee();
    log.pending.push(recordChunks(mine, log));
    return new Response(theirs, { status: response.status, headers: response.headers });
  }) as typeof fetch;
}

class TestChatState implements ChatState<UIMessage> {
  status: ChatStatus = 'ready';
  error: Error | undefined;
  messages: UIMessage[];
  constructor(messages: UIMessage[] = []) {
    this.messages = messages;
  }
  pushMessage = (message: UIMessage) => {
    this.messages = [...this.messages, message];
  };
  popMessage = () => {
    this.messages = this.messages.slice(0, -1);
  };
  replaceMessage = (index: number, message: UIMessage) => {
    this.messages = [...this.messages.slice(0, index), message, ...this.messages.slice(index + 1)];
  };
  snapshot = <T>(thing: T): T => structuredClone(thing);
}

/** The AI SDK's chat, with plain state (what `useChat` wraps in React state). */
export class TestChat extends AbstractChat<UIMessage> {
  constructor(init: ChatInit<UIMessage> & { initialMessages?: UIMessage[] }) {
    const { initialMessages, ...rest } = init;
    super({ ...rest, state: new TestChatState(initialMessages) });
  }
}

export function transportFor(handler: ChatHandler, log: ChunkLog, body?: Record<string, unknown>) {
  return new DefaultChatTransport<UIMessage>({
    api: 'http://127.0.0.1/apps/chat/chat',
    fetch: handlerFetch(handler, log),
    ...(body ? { body } : {}),
  });
}
