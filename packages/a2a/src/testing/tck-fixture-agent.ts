import type { AgentCardInput } from '../protocol/agent-card.js';
import type { Part } from '../protocol/types.js';
import { type A2aServer, type A2aServerOptions, createA2aServer } from '../server/a2a-server.js';
import type { AgentExecutor, AgentUpdate } from '../server/agent-executor.js';
import { type ListeningServer, listen } from '../server/node-adapter.js';

/**
 * The A2A TCK drives its system under test in-band: the prefix of each message's `messageId` says
 * which behaviour the test expects (e.g. `tck-input-required-…` → the task waits for input). This
 * agent implements those scripted behaviours, so the TCK can be pointed at a server built by this
 * package, and our own conformance suite uses the same fixture.
 */
export interface TckFixtureOptions {
  /**
   * How long a `test-resubscribe-message-id` task keeps working (ms). The TCK needs at least twice
   * its streaming timeout; default 2 × `TCK_STREAMING_TIMEOUT` (seconds, env) or 4 s.
   */
  resubscribeHoldMs?: number;
}

const FILE_PART: Part = {
  raw: Buffer.from('tck').toString('base64'),
  mediaType: 'text/plain',
  filename: 'output.txt',
};

const working: AgentUpdate = { kind: 'status', state: 'TASK_STATE_WORKING' };
const completed: AgentUpdate = { kind: 'status', state: 'TASK_STATE_COMPLETED' };
const artifact = (artifactId: string, parts: Part[], extra: Partial<AgentUpdate> = {}): AgentUpdate =>
  ({ kind: 'artifact', artifact: { artifactId, parts }, lastChunk: true, ...extra }) as AgentUpdate;

/** Resolves after `ms`, or when the signal aborts. */
function hold(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}

function defaultHoldMs(): number {
  const seconds = Number(process.env.TCK_STREAMING_TIMEOUT);
  return Number.isFinite(seconds) && seconds > 0 ? Math.ceil(2 * seconds * 1000) + 500 : 4000;
}

/** The scripted behaviour for one message id, in the TCK's order (longer prefixes first). */
function script(messageId: string, holdMs: number, signal: AbortSignal): AsyncGenerator<AgentUpdate> {
  const id = messageId;
  return (async function* () {
    if (id.startsWith('tck-stream-artifact-chunked')) {
      yield working;
      yield artifact('chunked', [{ text: 'chunk-1 ' }], { lastChunk: false });
      yield artifact('chunked', [{ text: 'chunk-2' }], { append: true, lastChunk: true });
      yield completed;
    } else if (id.startsWith('test-resubscribe-message-id')) {
      yield working;
      await hold(holdMs, signal);
      yield completed;
    } else if (id.startsWith('tck-stream-artifact-text')) {
      yield working;
      yield artifact('text', [{ text: 'Streamed text content' }]);
      yield completed;
    } else if (id.startsWith('tck-stream-artifact-file')) {
      yield working;
      yield artifact('file', [FILE_PART]);
      yield completed;
    } else if (id.startsWith('tck-stream-ordering-001')) {
      yield working;
      yield artifact('ordered', [{ text: 'Ordered output' }]);
      yield completed;
    } else if (id.startsWith('tck-artifact-file-url')) {
      yield artifact('file-url', [
        { url: 'https://example.com/output.txt', mediaType: 'text/plain', filename: 'output.txt' },
      ]);
      yield completed;
    } else if (id.startsWith('tck-message-response') || id.startsWith('tck-stream-002')) {
      // CORE-STREAM-002 expects a stream holding exactly one Message.
      yield { kind: 'message', parts: [{ text: 'Direct message response' }] };
    } else if (id.startsWith('tck-input-required')) {
      yield { kind: 'status', state: 'TASK_STATE_INPUT_REQUIRED', parts: [{ text: 'More input, please' }] };
    } else if (id.startsWith('tck-auth-required')) {
      yield { kind: 'status', state: 'TASK_STATE_AUTH_REQUIRED', parts: [{ text: 'Please sign in' }] };
    } else if (id.startsWith('tck-complete-task')) {
      yield { kind: 'status', state: 'TASK_STATE_COMPLETED', parts: [{ text: 'Hello from TCK' }] };
    } else if (id.startsWith('tck-artifact-text')) {
      yield artifact('text', [{ text: 'Generated text content' }]);
      yield completed;
    } else if (id.startsWith('tck-artifact-file')) {
      yield artifact('file', [FILE_PART]);
      yield completed;
    } else if (id.startsWith('tck-artifact-data')) {
      yield artifact('data', [{ data: { key: 'value', count: 42 } }]);
      yield completed;
    } else if (id.startsWith('tck-reject-task')) {
      yield { kind: 'status', state: 'TASK_STATE_REJECTED', parts: [{ text: 'rejected' }] };
    } else if (id.startsWith('tck-stream-001')) {
      yield working;
      yield artifact('stream', [{ text: 'Stream hello from TCK' }]);
      yield completed;
    } else if (id.startsWith('tck-stream-003')) {
      yield working;
      yield artifact('stream', [{ text: 'Stream task lifecycle' }]);
      yield completed;
    } else {
      yield {
        kind: 'status',
        state: 'TASK_STATE_COMPLETED',
        parts: [{ text: `Unhandled messageId prefix: ${id}` }],
      };
    }
  })();
}

/** The fixture's executor and card. */
export function tckFixtureAgent(options: TckFixtureOptions = {}): {
  executor: AgentExecutor;
  card: AgentCardInput;
} {
  const holdMs = options.resubscribeHoldMs ?? defaultHoldMs();
  return {
    executor: { execute: (ctx) => script(ctx.message.messageId, holdMs, ctx.signal) },
    card: {
      name: 'ADK TCK fixture',
      description: 'Follows the A2A TCK scripted messageId prefixes',
      version: '1.0.0',
      skills: [{ id: 'tck', name: 'TCK', description: 'Scripted TCK behaviours', tags: ['tck'] }],
      defaultInputModes: ['text/plain', 'application/json'],
      defaultOutputModes: ['text/plain', 'application/json'],
    },
  };
}

/**
 * Serves the fixture on Node with streaming and push notifications on (webhooks on private
 * networks allowed, since the TCK's receiver runs beside it). Point the TCK at the returned `url`.
 */
export async function serveTckFixture(
  options: TckFixtureOptions &
    Partial<Omit<A2aServerOptions, 'executor' | 'card'>> & { port?: number; host?: string } = {},
): Promise<ListeningServer & { a2a: A2aServer }> {
  const { resubscribeHoldMs, port, host, ...server } = options;
  const fixture = tckFixtureAgent(resubscribeHoldMs !== undefined ? { resubscribeHoldMs } : {});
  const a2a = createA2aServer({
    pushNotifications: { allowPrivateNetworks: true },
    ...server,
    executor: fixture.executor,
    card: fixture.card,
  });
  const listening = await listen((r) => a2a.fetch(r), {
    ...(port ? { port } : {}),
    ...(host ? { host } : {}),
  });
  return {
    ...listening,
    a2a,
    close: async () => {
      await a2a.close();
      await listening.close();
    },
  };
}
