import { describe, expect, it } from 'vitest';
import { isA2aError } from '../../protocol/errors.js';
import type { Task, TaskState } from '../../protocol/types.js';
import type { TaskStore } from '../task-store.js';

/** A task at a given status time (ms offset from a fixed epoch). */
export function taskAt(
  id: string,
  offsetMs: number,
  extra: Partial<Task> = {},
  state: TaskState = 'TASK_STATE_WORKING',
): Task {
  return {
    id,
    contextId: 'ctx-1',
    status: { state, timestamp: new Date(Date.UTC(2026, 0, 1) + offsetMs).toISOString() },
    history: [{ messageId: `m-${id}`, role: 'ROLE_USER', parts: [{ text: `hello ${id}` }] }],
    ...extra,
  };
}

/**
 * The behaviour every TaskStore shares. `create` returns a fresh, empty store (and a cleanup).
 */
export function taskStoreSuite(
  name: string,
  create: () => Promise<{ store: TaskStore; close?: () => Promise<void> }>,
): void {
  describe(`TaskStore: ${name}`, () => {
    const withStore = (fn: (store: TaskStore) => Promise<void>) => async () => {
      const { store, close } = await create();
      try {
        await fn(store);
      } finally {
        await close?.();
      }
    };

    it(
      'saves, returns and replaces tasks; unknown ids are undefined; copies are detached',
      withStore(async (store) => {
        expect(await store.get('missing')).toBeUndefined();
        const task = taskAt('t1', 0, {
          artifacts: [{ artifactId: 'a', parts: [{ data: { n: 1, nested: [true, null] } }] }],
          metadata: { k: 'v' },
        });
        await store.save(task);
        expect(await store.get('t1')).toEqual(task);
        const copy = (await store.get('t1')) as Task;
        copy.status.state = 'TASK_STATE_FAILED';
        expect((await store.get('t1'))?.status.state).toBe('TASK_STATE_WORKING');
        await store.save({
          ...task,
          status: { state: 'TASK_STATE_COMPLETED', timestamp: task.status.timestamp },
        });
        expect((await store.get('t1'))?.status.state).toBe('TASK_STATE_COMPLETED');
      }),
    );

    it(
      'isolates tasks by owner; the owner recorded at creation never changes',
      withStore(async (store) => {
        await store.save(taskAt('alice-task', 0), 'alice');
        await store.save(taskAt('shared-task', 1));
        expect(await store.get('alice-task', 'alice')).toBeDefined();
        expect(await store.get('alice-task', 'bob')).toBeUndefined();
        expect(await store.get('alice-task')).toBeUndefined();
        expect(await store.get('shared-task', 'bob')).toBeDefined();
        await store.save(taskAt('alice-task', 2), 'bob');
        expect(await store.get('alice-task', 'bob')).toBeUndefined();
        expect((await store.get('alice-task', 'alice'))?.status.timestamp).toBe(
          taskAt('x', 2).status.timestamp,
        );
        const bobs = await store.list({ owner: 'bob', pageSize: 10 });
        expect(bobs.tasks.map((t) => t.id)).toEqual(['shared-task']);
        const alices = await store.list({ owner: 'alice', pageSize: 10 });
        expect(alices.tasks.map((t) => t.id)).toEqual(['alice-task', 'shared-task']);
      }),
    );

    it(
      'lists newest first and pages with cursors that visit every task once',
      withStore(async (store) => {
        // t3 and t4 share a timestamp: the id breaks the tie
        for (const [id, at] of [
          ['t1', 10],
          ['t2', 20],
          ['t3', 30],
          ['t4', 30],
          ['t5', 50],
        ] as const) {
          await store.save(taskAt(id, at));
        }
        const seen: string[] = [];
        let token: string | undefined;
        let pages = 0;
        do {
          const page = await store.list({ pageSize: 2, ...(token ? { pageToken: token } : {}) });
          expect(page.totalSize).toBe(5);
          seen.push(...page.tasks.map((t) => t.id));
          token = page.nextPageToken || undefined;
          pages++;
        } while (token);
        expect(seen).toEqual(['t5', 't4', 't3', 't2', 't1']);
        expect(pages).toBe(3);
      }),
    );

    it(
      'filters by context, state and status time',
      withStore(async (store) => {
        await store.save(taskAt('a', 10, { contextId: 'c1' }));
        await store.save(taskAt('b', 20, { contextId: 'c2' }, 'TASK_STATE_COMPLETED'));
        await store.save(taskAt('c', 30, { contextId: 'c1' }, 'TASK_STATE_COMPLETED'));
        const ids = async (q: Parameters<TaskStore['list']>[0]) =>
          (await store.list(q)).tasks.map((t) => t.id);
        expect(await ids({ contextId: 'c1', pageSize: 10 })).toEqual(['c', 'a']);
        expect(await ids({ status: 'TASK_STATE_COMPLETED', pageSize: 10 })).toEqual(['c', 'b']);
        const after = Date.UTC(2026, 0, 1) + 10;
        expect(await ids({ statusTimestampAfter: after, pageSize: 10 })).toEqual(['c', 'b']);
        const filtered = await store.list({ contextId: 'c1', status: 'TASK_STATE_COMPLETED', pageSize: 10 });
        expect(filtered.totalSize).toBe(1);
      }),
    );

    it(
      'refuses an unreadable page token with InvalidParams',
      withStore(async (store) => {
        const error = await store.list({ pageSize: 1, pageToken: 'not-a-token' }).catch((e: unknown) => e);
        expect(isA2aError(error) && error.type).toBe('INVALID_PARAMS');
      }),
    );

    it(
      'keeps push configs per task: create, replace, list, get, delete (idempotent)',
      withStore(async (store) => {
        await store.save(taskAt('t1', 0));
        const config = { id: 'c1', taskId: 't1', url: 'https://hooks.example.com/a', token: 'tok' };
        await store.savePushConfig(config);
        await store.savePushConfig({ id: 'c2', taskId: 't1', url: 'https://hooks.example.com/b' });
        await store.savePushConfig({ id: 'c1', taskId: 't2', url: 'https://hooks.example.com/other' });
        expect(await store.getPushConfig('t1', 'c1')).toEqual(config);
        await store.savePushConfig({
          ...config,
          authentication: { scheme: 'Bearer', credentials: 'secret' },
        });
        expect((await store.getPushConfig('t1', 'c1'))?.authentication).toEqual({
          scheme: 'Bearer',
          credentials: 'secret',
        });
        expect((await store.listPushConfigs('t1')).map((c) => c.id).sort()).toEqual(['c1', 'c2']);
        await store.deletePushConfig('t1', 'c1');
        await store.deletePushConfig('t1', 'c1');
        expect(await store.getPushConfig('t1', 'c1')).toBeUndefined();
        expect((await store.listPushConfigs('t1')).map((c) => c.id)).toEqual(['c2']);
        expect((await store.listPushConfigs('t2')).map((c) => c.url)).toEqual([
          'https://hooks.example.com/other',
        ]);
        expect(await store.listPushConfigs('none')).toEqual([]);
      }),
    );
  });
}
