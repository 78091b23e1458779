import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { buildAgentCard } from '../protocol/agent-card.js';
import type { StreamResponse, TaskPushNotificationConfig } from '../protocol/types.js';
import { SqlTaskStore } from '../stores/sql/sql-task-store.js';
import type { AgentExecutor } from './agent-executor.js';
import type { PushNotificationSender } from './push-sender.js';
import { A2aRequestHandler } from './request-handler.js';
import { PostgresTaskEventBus } from './task-event-bus.js';

// Provided by the Postgres globalSetup this package borrows from session-sql (see vitest.config.ts).
declare module 'vitest' {
  export interface ProvidedContext {
    postgres: { url?: string; skipReason?: string };
  }
}

const postgres = inject('postgres');
if (postgres.skipReason) console.warn(`[a2a] task event bus on Postgres skipped: ${postgres.skipReason}`);

/** An agent that reports three working steps, then completes. */
const steps: AgentExecutor = {
  async *execute() {
    for (let i = 1; i <= 3; i++) {
      await new Promise((r) => setTimeout(r, 150));
      yield { kind: 'status', state: 'TASK_STATE_WORKING', parts: [{ text: `step ${i}` }] };
    }
    yield { kind: 'status', state: 'TASK_STATE_COMPLETED', parts: [{ text: 'done' }] };
  },
};

function recordingSender(): PushNotificationSender & { sent: StreamResponse[] } {
  const sent: StreamResponse[] = [];
  return {
    sent,
    validateUrl: async () => undefined,
    send: async (_c: TaskPushNotificationConfig, item) => void sent.push(item),
  };
}

// Two handlers on one SQL task store and one Postgres stand for two server instances.
describe.skipIf(postgres.skipReason !== undefined)(
  'A2A task updates across instances (Postgres LISTEN/NOTIFY)',
  () => {
    let db: Kysely<unknown>;
    const handlers: A2aRequestHandler[] = [];
    const buses: PostgresTaskEventBus[] = [];
    const senders = [recordingSender(), recordingSender()];
    beforeAll(async () => {
      db = new Kysely({
        dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: postgres.url }) }),
      });
      const card = buildAgentCard({ name: 'steps', description: 'steps' }, 'http://127.0.0.1/', {
        streaming: true,
        pushNotifications: true,
        extendedAgentCard: false,
      });
      for (const sender of senders) {
        const bus = new PostgresTaskEventBus({
          connectionString: postgres.url ?? '',
          channel: `bus_${process.pid}`,
        });
        buses.push(bus);
        handlers.push(
          new A2aRequestHandler({
            executor: steps,
            card: () => card,
            store: new SqlTaskStore({ db }),
            eventBus: bus,
            pushSender: sender,
          }),
        );
      }
    });
    afterAll(async () => {
      for (const h of handlers) await h.close();
      for (const b of buses) await b.close();
      await db?.destroy();
    });

    it('a resubscribe on the other instance streams the task to its end; push notifications are sent once', async () => {
      const [a, b] = handlers;
      if (!a || !b) throw new Error('handlers missing');
      const stream = await a.sendStreamingMessage({
        message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'go' }] },
        configuration: { taskPushNotificationConfig: { id: 'hook', url: 'https://hooks.example/a2a' } },
      });
      const iterator = stream[Symbol.asyncIterator]();
      const first = (await iterator.next()).value as StreamResponse;
      if (!('task' in first)) throw new Error('expected the task first');
      const taskId = first.task.id;

      const seen: string[] = [];
      for await (const item of await b.subscribe(taskId)) {
        if ('task' in item) seen.push(`task:${item.task.status.state}`);
        if ('statusUpdate' in item) {
          const text = item.statusUpdate.status.message?.parts[0];
          seen.push(`${item.statusUpdate.status.state}:${text && 'text' in text ? text.text : ''}`);
        }
      }
      for (;;) if ((await iterator.next()).done) break;

      expect(seen[0]).toMatch(/^task:/);
      expect(seen.slice(1)).toEqual(
        expect.arrayContaining(['TASK_STATE_WORKING:step 3', 'TASK_STATE_COMPLETED:done']),
      );
      expect(seen.at(-1)).toBe('TASK_STATE_COMPLETED:done');
      await new Promise((r) => setTimeout(r, 200));
      const pushedBy = senders.map((s) => s.sent.length);
      expect(pushedBy[0]).toBeGreaterThanOrEqual(4);
      expect(pushedBy[1]).toBe(0);
    });

    it("delivers each update once after a lost connection whose 'end' comes after a new client opened", async () => {
      const clients: pg.Client[] = [];
      const channel = `bus_lost_${process.pid}`;
      const listening = new PostgresTaskEventBus({
        channel,
        createClient: () => {
          const client = new pg.Client({ connectionString: postgres.url });
          clients.push(client);
          return client;
        },
      });
      const sending = new PostgresTaskEventBus({ connectionString: postgres.url ?? '', channel });
      try {
        const received: unknown[] = [];
        await listening.subscribe('t1', (item) => received.push(item));
        const first = clients[0];
        if (!first) throw new Error('no client');
        // pg reports a dropped connection as 'error' and then 'end'; a publish between the two
        // opens a new client.
        first.emit('error', new Error('connection lost'));
        await listening.publish('t0', { task: { id: 't0' } } as unknown as StreamResponse);
        first.emit('end');
        await listening.publish('t0', { task: { id: 't0' } } as unknown as StreamResponse);
        expect(clients).toHaveLength(2);

        await sending.publish('t1', { task: { id: 't1' } } as unknown as StreamResponse);
        await new Promise((r) => setTimeout(r, 300));
        expect(received).toHaveLength(1);
      } finally {
        await listening.close();
        await sending.close();
        for (const client of clients) await client.end().catch(() => undefined);
      }
    });

    it('a listener that throws does not reach the connection, and the other listeners still get the update', async () => {
      const channel = `bus_throw_${process.pid}`;
      const listening = new PostgresTaskEventBus({ connectionString: postgres.url ?? '', channel });
      const sending = new PostgresTaskEventBus({ connectionString: postgres.url ?? '', channel });
      try {
        const received: unknown[] = [];
        await listening.subscribe('t', () => {
          throw new Error('a broken subscriber');
        });
        await listening.subscribe('t', (item) => received.push(item));
        await sending.publish('t', { task: { id: 't' } } as unknown as StreamResponse);
        await expect.poll(() => received.length).toBe(1);
      } finally {
        await listening.close();
        await sending.close();
      }
    });
  },
);
