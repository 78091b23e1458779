import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type Content,
  createEvent,
  type Event,
  isAdkError,
  JoinNode,
  LlmAgent,
  type NodeContext,
  REQUEST_INPUT,
  RequestInput,
  Runner,
  START,
  userContent,
  Workflow,
} from '@adk/core';
import { ScriptedModel } from '@adk/core/testing';
import { sql } from 'kysely';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { z } from 'zod';
import { kyselyFromUrl, migrateToLatest, SqlSessionService } from './index.js';

const dir = mkdtempSync(join(tmpdir(), 'adk-session-sql-graph-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function collect(iterable: AsyncIterable<Event>): Promise<Event[]> {
  const out: Event[] = [];
  for await (const event of iterable) out.push(event);
  return out;
}

/** One "process": a fresh service on the database, a fresh workflow and runner. */
async function boot(url: string, ran: string[], writerScript: string[]) {
  const sessionService = await SqlSessionService.fromUrl(url);
  const prepare = (ctx: NodeContext, input: unknown) => {
    ran.push('prepare');
    ctx.state.set('topic', input);
    return `brief on ${input}`;
  };
  const approve = (_ctx: NodeContext, brief: unknown) => {
    ran.push('approve');
    return new RequestInput({
      interruptId: 'approval',
      message: `Approve "${brief}"?`,
      responseSchema: z.object({ approved: z.boolean(), note: z.string() }),
    });
  };
  const research = (_ctx: NodeContext, brief: unknown) => {
    ran.push('research');
    return `facts for ${brief}`;
  };
  const join = new JoinNode('join');
  const writer = new LlmAgent({ name: 'writer', model: new ScriptedModel(writerScript) });
  const agent = new Workflow({ name: 'article', edges: [START, prepare, [approve, research], join, writer] });
  const runner = new Runner({ appName: 'graph', agent, sessionService, autoCreateSession: true });
  const run = (newMessage: Content) => collect(runner.run({ userId: 'u', sessionId: 's', newMessage }));
  return { sessionService, run };
}

const postgres = inject('postgres');
const targets = [
  { name: 'pglite', url: () => `pglite://${join(dir, 'pgdata')}`, skip: undefined },
  { name: 'sqlite', url: () => `sqlite://${join(dir, 'graph.db')}`, skip: undefined },
  { name: 'postgres', url: () => postgres.url ?? '', skip: postgres.url ? undefined : postgres.skipReason },
];

for (const target of targets) {
  describe.skipIf(target.skip !== undefined)(
    `${target.name}: a paused graph workflow resumes after a restart`,
    () => {
      it('replays finished nodes from the log, answers the question and runs the rest once', async () => {
        const ran: string[] = [];
        const first = await boot(target.url(), ran, []);
        const paused = await first.run(userContent('tides'));
        const ask = paused.find((e) => e.longRunningToolIds?.length);
        expect(ask?.content?.parts[0]?.functionCall).toMatchObject({ id: 'approval', name: REQUEST_INPUT });
        expect(
          paused.some(
            (e) => e.nodeInfo?.path === 'article@1/research@1' && e.output === 'facts for brief on tides',
          ),
        ).toBe(true);
        await first.sessionService.close();

        const second = await boot(target.url(), ran, ['An article about tides.']);
        // A wrong reply is refused and the question stays open.
        const wrong = await second.run({
          role: 'user',
          parts: [
            { functionResponse: { id: 'approval', name: REQUEST_INPUT, response: { approved: 'yes' } } },
          ],
        });
        expect(wrong.at(-1)?.errorCode).toBe('WORKFLOW_RESUME');
        const resumed = await second.run({
          role: 'user',
          parts: [
            {
              functionResponse: {
                id: 'approval',
                name: REQUEST_INPUT,
                response: { approved: true, note: 'go' },
              },
            },
          ],
        });
        expect(ran).toEqual(['prepare', 'approve', 'research']);
        const writerReply = resumed.find((e) => e.author === 'writer' && e.output !== undefined);
        expect(writerReply?.output).toBe('An article about tides.');
        // The writer is the terminal node: its reply is the workflow's output, with no second event.
        expect(writerReply?.nodeInfo?.outputFor).toEqual([writerReply?.nodeInfo?.path, 'article@1']);
        expect(resumed.filter((e) => e.nodeInfo?.outputFor?.includes('article@1'))).toHaveLength(1);
        expect(new Set(resumed.map((e) => e.invocationId))).toEqual(new Set([paused[0]?.invocationId]));

        // The log read back from the database holds the workflow fields unchanged.
        const session = await second.sessionService.getSession({
          appName: 'graph',
          userId: 'u',
          sessionId: 's',
        });
        expect(session?.state.topic).toBe('tides');
        const join = session?.events.find((e) => e.nodeInfo?.path === 'article@1/join@1');
        expect(join?.output).toEqual({
          approve: { approved: true, note: 'go' },
          research: 'facts for brief on tides',
        });
        const writerInput = session?.events.find(
          (e) => e.author === 'user' && e.nodeInfo?.path === 'article@1/writer@1',
        );
        expect(writerInput?.branch).toBe('article.writer@1');
        await second.sessionService.close();
      });
    },
  );
}

describe('pglite: a malformed stored workflow field', () => {
  it('is a VALIDATION error naming the event, not a crash or a silent drop', async () => {
    const db = await kyselyFromUrl('pglite://memory');
    await migrateToLatest(db);
    const service = new SqlSessionService({ db });
    const session = await service.createSession({ appName: 'bad', userId: 'u', sessionId: 's' });
    const event = createEvent({ invocationId: 'i', author: 'wf', output: 1, nodeInfo: { path: 'wf@1/a@1' } });
    await service.appendEvent(session, event);
    await sql`update adk_events set node_info = ${'{"path": 5}'}::jsonb where id = ${event.id}`.execute(db);
    const error = await service
      .getSession({ appName: 'bad', userId: 'u', sessionId: 's' })
      .catch((e: unknown) => e);
    expect(isAdkError(error, 'VALIDATION')).toBe(true);
    expect((error as Error).message).toContain(event.id);
    await db.destroy();
  });
});
