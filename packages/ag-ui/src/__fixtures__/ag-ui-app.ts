import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FunctionTool, InMemorySessionService, LlmAgent, type LlmRequest, Runner } from '@adk/core';
import { functionCallResponse, ScriptedModel } from '@adk/core/testing';
import { z } from 'zod';
import type { AgUiHandler } from '../index.js';

/**
 * The scripted agent of the AG-UI tests: "think" thinks then answers, "weather in X" calls
 * get_weather, "delete X" asks for approval, "paint X" calls the client's change_background tool
 * when the client declared it, "remember X" stores X in state; after a tool result it reports it.
 */
export function agUiAgent(options: { delayMs?: number } = {}): LlmAgent {
  const model = new ScriptedModel({
    model: 'gemini-2.5-flash',
    chunkSize: 4,
    ...(options.delayMs ? { delayMs: options.delayMs } : {}),
    respond: (request: LlmRequest) => {
      const last = request.contents.at(-1);
      const response = last?.parts.find((p) => p.functionResponse)?.functionResponse;
      if (response) return `Result of ${response.name}: ${JSON.stringify(response.response)}`;
      const text = last?.parts.map((p) => p.text ?? '').join('') ?? '';
      if (/think/i.test(text)) return [{ text: 'Pondering.', thought: true }, { text: 'Forty-two.' }];
      const weather = /weather in (\w+)/i.exec(text);
      if (weather) return functionCallResponse('get_weather', { city: weather[1] });
      const del = /delete (\S+)/i.exec(text);
      if (del) return functionCallResponse('delete_file', { path: del[1] });
      const paint = /paint (\w+)/i.exec(text);
      if (paint && request.tools?.some((t) => t.name === 'change_background'))
        return functionCallResponse('change_background', { color: paint[1] });
      const remember = /remember (\w+)/i.exec(text);
      if (remember) return functionCallResponse('remember', { value: remember[1] });
      if (/story/i.test(text)) return `Once upon a time ${'there was a long story '.repeat(8)}The end.`;
      return `You said: ${text}`;
    },
  });
  return new LlmAgent({
    name: 'helper',
    description: 'Helps with tools',
    model,
    instruction: 'Help.',
    tools: [
      new FunctionTool({
        name: 'get_weather',
        description: 'Weather of a city',
        parameters: z.object({ city: z.string() }),
        execute: ({ city }) => ({ city, forecast: 'rainy' }),
      }),
      new FunctionTool({
        name: 'delete_file',
        description: 'Deletes a file (asks first)',
        parameters: z.object({ path: z.string() }),
        requireConfirmation: true,
        execute: ({ path }) => ({ deleted: path }),
      }),
      new FunctionTool({
        name: 'remember',
        description: 'Remembers a value in state',
        parameters: z.object({ value: z.string() }),
        execute: ({ value }, context) => {
          context.state.set('remembered', value);
          return { ok: true };
        },
      }),
    ],
  });
}

export function agUiRunner(agent: LlmAgent = agUiAgent()): Runner {
  return new Runner({ appName: 'helper', agent, sessionService: new InMemorySessionService() });
}

/** Every SSE `data:` JSON a response carried. */
export interface FrameLog {
  frames: Record<string, unknown>[];
}

async function collectFrames(body: ReadableStream<Uint8Array>, log: FrameLog): Promise<void> {
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true });
    for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      for (const line of block.split('\n'))
        if (line.startsWith('data: ')) log.frames.push(JSON.parse(line.slice(6)) as Record<string, unknown>);
    }
  }
}

/** A Node HTTP server in front of the handler (as any framework would mount it), recording frames. */
export async function serve(
  handler: AgUiHandler,
): Promise<{ url: string; log: FrameLog; settle: () => Promise<void>; close: () => Promise<void> }> {
  const log: FrameLog = { frames: [] };
  const pending: Promise<void>[] = [];
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const abort = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) abort.abort();
    });
    const request = new Request(`http://127.0.0.1${req.url}`, {
      method: req.method ?? 'GET',
      headers: req.headers as Record<string, string>,
      ...(chunks.length > 0 ? { body: Buffer.concat(chunks) } : {}),
      signal: abort.signal,
    });
    const response = await handler(request);
    res.writeHead(response.status, Object.fromEntries(response.headers));
    if (!response.body) {
      res.end();
      return;
    }
    const [mine, theirs] = response.body.tee();
    if (response.headers.get('content-type')?.startsWith('text/event-stream'))
      pending.push(collectFrames(mine, log));
    else void mine.cancel();
    try {
      for await (const chunk of theirs) res.write(chunk);
    } catch {
      // the client went away
    }
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/ag-ui`,
    log,
    settle: async () => {
      await Promise.all(pending);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
