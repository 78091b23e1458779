// Child process: our A2A server (@adk/a2a's fetch handler on its Node adapter) with the trivial
// benchmark agent. Prints BENCH_READY with its URL and serves until killed; BENCH_SKIP when
// @adk/a2a does not export a server yet.
import { emitReady, emitSkip, reportCpuOnSignals } from './protocol.js';

type Part = { text?: string };
type AgentUpdate =
  | { kind: 'status'; state: string; parts?: Part[] }
  | { kind: 'artifact'; artifact: { artifactId: string; name?: string; parts: Part[] }; lastChunk?: boolean };
interface ExecutionContext {
  message: { parts: Part[] };
}
interface A2aModule {
  createA2aServer(options: {
    executor: { execute(context: ExecutionContext): AsyncIterable<AgentUpdate> };
    card: { name: string; description: string; version?: string };
    url?: string;
  }): { fetch(request: Request): Promise<Response> };
  listen(
    handler: (request: Request) => Promise<Response>,
    options: { port?: number; host?: string },
  ): Promise<{ url: string }>;
}

/** The trivial agent: a task that goes submitted → working → one text artifact → completed. */
const executor = {
  async *execute(context: ExecutionContext): AsyncIterable<AgentUpdate> {
    const text = context.message.parts[0]?.text ?? '';
    yield { kind: 'status', state: 'TASK_STATE_WORKING' };
    yield {
      kind: 'artifact',
      artifact: { artifactId: 'answer', name: 'answer', parts: [{ text: `echo: ${text}` }] },
      lastChunk: true,
    };
    yield { kind: 'status', state: 'TASK_STATE_COMPLETED' };
  },
};

async function main(): Promise<void> {
  const a2a: Record<string, unknown> = await import('@adk/a2a');
  const missing = ['createA2aServer', 'listen'].filter((name) => typeof a2a[name] !== 'function');
  if (missing.length > 0) return emitSkip(`@adk/a2a does not export ${missing.join(', ')} yet`);
  const { createA2aServer, listen } = a2a as unknown as A2aModule;
  const server = createA2aServer({
    executor,
    card: { name: 'bench-echo', description: 'Echoes the message as a task artifact.', version: '1.0.0' },
  });
  const listening = await listen((request) => server.fetch(request), { port: 0, host: '127.0.0.1' });
  reportCpuOnSignals();
  emitReady({ url: `${listening.url}/` });
}

await main();
