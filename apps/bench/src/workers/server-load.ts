// Child process: `sessions` concurrent conversations against an ADK api_server, each running `turns`
// turns one after the other through POST /run_sse (each reply read to its end and checked), or, in
// `runs` mode, as background runs (POST …/runs, then GET …/runs/{id}/events read to its `end`);
// prints turns per second, per-turn latencies and errors. node:http with keep-alive, as in the A2A
// load. `chat` and `ag-ui` modes run the same turns through the front-end protocol routes
// (POST /apps/bench/chat, the AI SDK's UI message stream; POST /apps/bench/ag-ui, AG-UI).
import { Agent, request as httpRequest } from 'node:http';
import { FINAL_TEXT } from '../frameworks/types.js';
import { postJson } from '../harness/http-post.js';
import { emitResult, workerArgs } from './protocol.js';

export interface ServerLoadArgs {
  url: string;
  sessions: number;
  turns: number;
  /** Prefix of the session ids, so a warm-up and a measured run never share sessions. */
  prefix: string;
  /**
   * `run_sse` (default): POST /run_sse; `runs`: POST …/runs and tail …/runs/{id}/events; `chat`:
   * POST /apps/bench/chat (useChat's body); `ag-ui`: POST /apps/bench/ag-ui (a RunAgentInput).
   */
  mode?: 'run_sse' | 'runs' | 'chat' | 'ag-ui';
}

export interface ServerLoadResult {
  totalMs: number;
  turns: number;
  errors: number;
  firstError?: string;
  latencyMs: number[];
  /** SSE events in the last reply (user, call, response, answer). */
  eventsPerTurn: number;
}

async function main(): Promise<void> {
  const args = workerArgs<ServerLoadArgs>();
  const base = new URL(args.url);
  const agent = new Agent({ keepAlive: true, maxSockets: args.sessions });
  const ids = Array.from({ length: args.sessions }, (_, i) => `${args.prefix}-${process.pid}-${i}`);
  for (const sessionId of ids) {
    const { status, text } = await postJson(
      // The id in the path: the form every ADK api_server takes (devtools ignores a body id).
      new URL(`/apps/bench/users/bench-user/sessions/${sessionId}`, base),
      agent,
      JSON.stringify({}),
    );
    if (status !== 200) throw new Error(`create session: HTTP ${status} ${text.slice(0, 200)}`);
  }
  const latencyMs: number[] = [];
  let errors = 0;
  let firstError: string | undefined;
  let eventsPerTurn = 0;
  const runUrl = new URL('/run_sse', base);
  const mode = args.mode ?? 'run_sse';
  const started = performance.now();
  await Promise.all(
    ids.map(async (sessionId) => {
      for (let turn = 0; turn < args.turns; turn++) {
        const message = { role: 'user', parts: [{ text: `What is the weather in Paris? (${turn})` }] };
        const t0 = performance.now();
        try {
          let status: number;
          let text: string;
          if (mode === 'runs') {
            const runsUrl = new URL(`/apps/bench/users/bench-user/sessions/${sessionId}/runs`, base);
            const started = await postJson(runsUrl, agent, JSON.stringify({ newMessage: message }));
            if (started.status !== 202)
              throw new Error(`start run: HTTP ${started.status}: ${started.text.slice(0, 300)}`);
            const { runId } = JSON.parse(started.text) as { runId: string };
            ({ status, text } = await getText(new URL(`${runsUrl.pathname}/${runId}/events`, base), agent));
            const end = text.split('\n\n').find((f) => f.startsWith('event: end\n'));
            const record = end
              ? (JSON.parse(end.slice(end.indexOf('data: ') + 6)) as { status?: string })
              : {};
            if (record.status !== 'succeeded')
              throw new Error(`run ${runId} ended ${record.status}: ${text.slice(-300)}`);
          } else if (mode === 'chat' || mode === 'ag-ui') {
            const text0 = message.parts[0]?.text ?? '';
            const body =
              mode === 'chat'
                ? {
                    id: sessionId,
                    userId: 'bench-user',
                    trigger: 'submit-message',
                    messages: [{ id: `m${turn}`, role: 'user', parts: [{ type: 'text', text: text0 }] }],
                  }
                : {
                    threadId: sessionId,
                    runId: `r${turn}`,
                    protocolVersion: '1.0',
                    forwardedProps: { userId: 'bench-user' },
                    messages: [{ id: `m${turn}`, role: 'user', content: text0 }],
                  };
            ({ status, text } = await postJson(
              new URL(`/apps/bench/${mode}`, base),
              agent,
              JSON.stringify(body),
            ));
            const chunks = text
              .split('\n\n')
              .filter((f) => f.startsWith('data: {'))
              .map((f) => JSON.parse(f.slice(6)) as Record<string, unknown>);
            const deltaType = mode === 'chat' ? 'text-delta' : 'TEXT_MESSAGE_CONTENT';
            const answer = chunks
              .filter((c) => c.type === deltaType)
              .map((c) => c.delta)
              .join('');
            const last = chunks.at(-1)?.type;
            if (status !== 200 || answer !== FINAL_TEXT || (last !== 'finish' && last !== 'RUN_FINISHED'))
              throw new Error(`HTTP ${status}: ${text.slice(0, 300)}`);
            eventsPerTurn = chunks.length;
            latencyMs.push(performance.now() - t0);
            continue;
          } else {
            ({ status, text } = await postJson(
              runUrl,
              agent,
              JSON.stringify({ appName: 'bench', userId: 'bench-user', sessionId, newMessage: message }),
            ));
          }
          const frames = text
            .split('\n\n')
            .filter((f) => !f.startsWith('event: '))
            .map((f) => f.split('\n').find((line) => line.startsWith('data: ')))
            .filter((line): line is string => line !== undefined);
          const last =
            frames.length > 0
              ? (JSON.parse((frames.at(-1) as string).slice(6)) as Record<string, unknown>)
              : {};
          const answer = (last.content as { parts?: { text?: string }[] } | undefined)?.parts?.[0]?.text;
          if (status !== 200 || answer !== FINAL_TEXT)
            throw new Error(`HTTP ${status}: ${text.slice(0, 300)}`);
          eventsPerTurn = frames.length;
          latencyMs.push(performance.now() - t0);
        } catch (error) {
          errors++;
          firstError ??= (error as Error).message;
        }
      }
    }),
  );
  const totalMs = performance.now() - started;
  agent.destroy();
  emitResult({
    totalMs,
    turns: latencyMs.length,
    errors,
    firstError,
    latencyMs,
    eventsPerTurn,
  } satisfies ServerLoadResult);
}

/** GET through node:http on the keep-alive agent, the body read to its end (an SSE tail ends itself). */
function getText(url: URL, agent: Agent): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      { method: 'GET', agent, headers: { accept: 'text/event-stream' } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

await main();
