// Child process: the same two api_server routes (create session, POST /run_sse) served by
// @google/adk's Runner behind the same HTTP framework as ours (Hono on @hono/node-server), with
// @google/adk's InMemorySessionService (what `adk api_server` of @google/adk-devtools uses by
// default) or its DatabaseSessionService on Postgres. Prints BENCH_READY with its URL.
import * as google from '@google/adk';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { googleServerApp } from '../frameworks/server-apps.js';
import { emitReady, reportCpuOnSignals, workerArgs } from './protocol.js';

export interface ServerGoogleArgs {
  store: 'memory' | 'postgres';
  postgresUrl?: string;
}

async function main(): Promise<void> {
  const args = workerArgs<ServerGoogleArgs>();
  let sessionService: google.BaseSessionService = new google.InMemorySessionService();
  if (args.store === 'postgres') {
    const database = new google.DatabaseSessionService(args.postgresUrl as string);
    await database.init();
    sessionService = database;
  }
  const runner = new google.Runner({ appName: 'bench', agent: googleServerApp(), sessionService });
  const app = new Hono();
  app.post('/apps/:app/users/:user/sessions', async (c) => {
    const body = (await c.req.json().catch(() => ({}))) as { sessionId?: string };
    const session = await sessionService.createSession({
      appName: c.req.param('app'),
      userId: c.req.param('user'),
      ...(body.sessionId ? { sessionId: body.sessionId } : {}),
    });
    return c.json(session);
  });
  app.post('/run_sse', async (c) => {
    type RunArgs = Parameters<typeof runner.runAsync>[0];
    const req = (await c.req.json()) as Pick<RunArgs, 'userId' | 'sessionId' | 'newMessage'> & {
      streaming?: boolean;
    };
    const encoder = new TextEncoder();
    const events = runner.runAsync({
      userId: req.userId,
      sessionId: req.sessionId,
      newMessage: req.newMessage,
      runConfig: { streamingMode: req.streaming ? google.StreamingMode.SSE : google.StreamingMode.NONE },
    });
    const stream = new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          const next = await events.next();
          if (next.done) controller.close();
          else controller.enqueue(encoder.encode(`data: ${JSON.stringify(next.value)}\n\n`));
        } catch (error) {
          controller.enqueue(encoder.encode(`data: ${JSON.stringify({ error: String(error) })}\n\n`));
          controller.close();
        }
      },
    });
    return new Response(stream, {
      headers: { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' },
    });
  });
  const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const address = server.address() as { port: number };
  reportCpuOnSignals();
  emitReady({ url: `http://127.0.0.1:${address.port}` });
}

await main();
