import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type BaseAgent,
  type Content,
  FunctionTool,
  LlmAgent,
  type LlmRequest,
  type LlmResponse,
  SequentialAgent,
} from '@adk/core';
import { functionCallResponse, ScriptedModel } from '@adk/core/testing';
import { z } from 'zod';
import {
  type AdkServer,
  type AdkServerOptions,
  createAdkServer,
  type ListeningAdkServer,
  listenAdkServer,
} from '../index.js';

function lastContent(request: LlmRequest): Content | undefined {
  return request.contents.at(-1);
}

/**
 * The assistant's scripted model, driven by the user's words: "weather in X" calls get_weather,
 * "delete X" calls delete_file (which asks for confirmation), "save X" saves an artifact, "explode"
 * makes the model fail, "slow" waits; anything else is echoed. After a tool result it reports it.
 */
export function assistantModel(): ScriptedModel {
  return new ScriptedModel({
    // A real model's name, so spans carry the GenAI provider it implies.
    model: 'gemini-2.5-flash',
    chunkSize: 5,
    respond: async (request: LlmRequest): Promise<LlmResponse | string | Error> => {
      const last = lastContent(request);
      const response = last?.parts.find((p) => p.functionResponse)?.functionResponse;
      if (response) return `Result of ${response.name}: ${JSON.stringify(response.response)}`;
      const text = last?.parts.map((p) => p.text ?? '').join('') ?? '';
      const weather = /weather in (\w+)/i.exec(text);
      if (weather) return functionCallResponse('get_weather', { city: weather[1] });
      const del = /delete (\S+)/i.exec(text);
      if (del) return functionCallResponse('delete_file', { path: del[1] });
      const save = /save (\S+)/i.exec(text);
      if (save) return functionCallResponse('save_note', { name: save[1], text: `note ${save[1]}` });
      if (/explode/i.test(text)) return new Error('the model exploded');
      if (/metadata/i.test(text))
        return {
          content: { role: 'model', parts: [{ text: 'with metadata' }] },
          finishReason: 'STOP',
          modelVersion: 'gemini-2.5-flash-001',
          avgLogprobs: -0.125,
          logprobsResult: { chosenCandidates: [{ token: 'with', logProbability: -0.125 }] },
          cacheMetadata: { cacheName: 'cachedContents/1' },
          citationMetadata: { citations: [{ startIndex: 0, endIndex: 4 }] },
        };
      if (/slow/i.test(text)) await new Promise((r) => setTimeout(r, 400));
      return `You said: ${text}`;
    },
  });
}

export function assistant(): LlmAgent {
  return new LlmAgent({
    name: 'assistant',
    description: 'A helpful assistant with tools',
    model: assistantModel(),
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
        name: 'save_note',
        description: 'Saves a note as an artifact',
        parameters: z.object({ name: z.string(), text: z.string() }),
        execute: async ({ name, text }, context) => {
          const version = await context.saveArtifact(name, { text });
          return { saved: name, version };
        },
      }),
    ],
  });
}

/** A pipeline of two scripted agents (for the graph routes). */
export function pipeline(): BaseAgent {
  return new SequentialAgent({
    name: 'pipeline',
    description: 'Writes then reviews',
    subAgents: [
      new LlmAgent({
        name: 'writer',
        model: new ScriptedModel({ respond: () => 'draft' }),
        outputKey: 'draft',
      }),
      new LlmAgent({ name: 'reviewer', model: new ScriptedModel({ respond: () => 'approved' }) }),
    ],
  });
}

export interface TestServer {
  server: AdkServer;
  listener: ListeningAdkServer;
  url: string;
  dataDir: string;
  close(): Promise<void>;
}

/** A server on a free port with its own PGlite data folder (removed on close unless kept). */
export async function startServer(
  options: Partial<AdkServerOptions> = {},
  keepData = false,
): Promise<TestServer> {
  const ownDir =
    options.dataDir === undefined && options.databaseUrl === undefined && !options.sessionService;
  const dataDir = options.dataDir ?? (ownDir ? mkdtempSync(join(tmpdir(), 'adk-server-test-')) : '');
  const server = await createAdkServer({
    apps: { assistant: assistant(), pipeline: pipeline() },
    ...(dataDir ? { dataDir } : {}),
    shutdownGraceMs: 2000,
    ...options,
  });
  const listener = await listenAdkServer(server, { port: 0 });
  return {
    server,
    listener,
    url: listener.url,
    dataDir,
    close: async () => {
      await listener.close();
      if (ownDir && !keepData) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Reads an SSE body into its `data:` payloads, checking the framing on the way. */
export async function readSse(
  response: Response,
): Promise<{ raw: string; events: Record<string, unknown>[] }> {
  const raw = await response.text();
  const events: Record<string, unknown>[] = [];
  for (const frame of raw.split('\n\n')) {
    if (frame === '') continue;
    if (!frame.startsWith('data: ')) throw new Error(`Bad SSE frame: ${JSON.stringify(frame)}`);
    events.push(JSON.parse(frame.slice('data: '.length)) as Record<string, unknown>);
  }
  if (!raw.endsWith('\n\n')) throw new Error('SSE body does not end with a blank line');
  return { raw, events };
}
