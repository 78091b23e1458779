import assert from 'node:assert/strict';
import type { BaseAgent } from '../agents/base-agent.js';
import { LlmAgent } from '../agents/llm-agent.js';
import type { ArtifactService } from '../artifacts/artifact-service.js';
import { InMemoryArtifactService } from '../artifacts/in-memory-artifact-service.js';
import { isAdkError } from '../errors/errors.js';
import { contentText, userContent } from '../events/content.js';
import type { Event } from '../events/event.js';
import type { Llm } from '../models/llm.js';
import { Runner } from '../runner/runner.js';
import type { RunStore } from '../runs/run-store.js';
import type { SessionService } from '../sessions/session.js';
import type { ConformanceSuite } from './conformance.js';
import { functionCallResponse, ScriptedModel } from './scripted-model.js';

/** The stores a time-travel case runs the Runner on. */
export interface TimeTravelStores {
  sessionService: SessionService;
  artifactService?: ArtifactService;
  runStore?: RunStore;
  /** Called after the case (close pools, drop data). */
  teardown?: () => Promise<void> | void;
}

let counter = 0;

/**
 * Rewind and fork through the Runner (docs/architecture.md §5.5) on a given set of stores: state and
 * artifacts return to the point (initial state kept, `app:`/`user:` untouched), the next request
 * holds no rewound content, the agent active at the point answers next, a second rewind reaches
 * further back, a fork diverges from its source, and a rewind is refused while a run is in flight.
 */
export function timeTravelRunnerConformance(
  factory: () => TimeTravelStores | Promise<TimeTravelStores>,
): ConformanceSuite {
  const setup = async (agent: BaseAgent) => {
    const stores = await factory();
    const appName = `tt-${process.pid}-${++counter}`;
    const artifactService = stores.artifactService ?? new InMemoryArtifactService();
    const runner = new Runner({
      appName,
      agent,
      sessionService: stores.sessionService,
      artifactService,
      ...(stores.runStore ? { runStore: stores.runStore } : {}),
    });
    const send = async (sessionId: string, text: string, stateDelta?: Record<string, unknown>) => {
      const events: Event[] = [];
      for await (const e of runner.run({
        userId: 'u',
        sessionId,
        newMessage: userContent(text),
        ...(stateDelta ? { stateDelta } : {}),
      }))
        events.push(e);
      return events;
    };
    const session = async (sessionId: string) => {
      const s = await stores.sessionService.getSession({ appName, userId: 'u', sessionId });
      assert.ok(s, `session ${sessionId} exists`);
      return s;
    };
    const close = async () => {
      await runner.close();
      await stores.teardown?.();
    };
    return { appName, runner, send, session, artifactService, stores, close };
  };
  const userInvocation = (events: Event[], text: string) => {
    const e = events.find((x) => x.author === 'user' && contentText(x.content) === text);
    assert.ok(e, `a user event "${text}"`);
    return e.invocationId;
  };
  const requestTexts = (model: ScriptedModel) =>
    (model.requests.at(-1)?.contents ?? []).map((c) => contentText(c));
  const artifactAgent = (model: ScriptedModel) =>
    new LlmAgent({
      name: 'root',
      model,
      // Saves the artifact a turn asks for (state key `save`), so artifact versions follow turns.
      beforeAgentCallback: async ({ context }) => {
        const save = context.state.get<{ name: string; text: string }>('save');
        if (save) await context.saveArtifact(save.name, { text: save.text });
      },
    });

  return [
    {
      name: 'rewind restores session state and artifacts of the point; app:/user: and the initial state kept',
      run: async () => {
        const model = new ScriptedModel({ respond: (_r, i) => `answer ${i + 1}` });
        const t = await setup(artifactAgent(model));
        try {
          await t.stores.sessionService.createSession({
            appName: t.appName,
            userId: 'u',
            sessionId: 's',
            state: { topic: 'cats', 'user:lang': 'fr', 'app:theme': 'dark' },
          });
          await t.send('s', 'one', { step: 1, save: { name: 'notes.txt', text: 'v-one' } });
          const before = await t.session('s');
          const notesBefore = await t.artifactService.loadArtifact({
            appName: t.appName,
            userId: 'u',
            sessionId: 's',
            filename: 'notes.txt',
          });
          const turn2 = await t.send('s', 'two', {
            step: 2,
            topic: 'dogs',
            added: 'x',
            'user:lang': 'de',
            'app:theme': 'light',
            save: { name: 'notes.txt', text: 'v-two' },
          });
          await t.send('s', 'three', { save: { name: 'later.txt', text: 'new' } });
          const rewind = await t.runner.rewind({
            userId: 'u',
            sessionId: 's',
            rewindBeforeInvocationId: userInvocation(turn2, 'two'),
          });
          assert.equal(rewind.actions.rewindBeforeInvocationId, userInvocation(turn2, 'two'));
          const after = await t.session('s');
          assert.deepEqual(after.events.at(-1), JSON.parse(JSON.stringify(rewind)));
          const live = (state: Record<string, unknown>) =>
            Object.fromEntries(Object.entries(state).filter(([, v]) => v !== null && v !== undefined));
          const expected = { ...live(before.state), 'user:lang': 'de', 'app:theme': 'light' };
          assert.deepEqual(live(after.state), expected);
          assert.equal(after.state.topic, 'cats');
          const scope = { appName: t.appName, userId: 'u', sessionId: 's' };
          const notes = await t.artifactService.loadArtifact({ ...scope, filename: 'notes.txt' });
          assert.deepEqual(notes, notesBefore);
          assert.equal(await t.artifactService.loadArtifact({ ...scope, filename: 'later.txt' }), undefined);
          assert.deepEqual(await t.artifactService.listArtifactKeys(scope), ['notes.txt']);

          await t.send('s', 'four');
          const texts = requestTexts(model);
          assert.ok(texts.includes('one') && texts.includes('four'), JSON.stringify(texts));
          for (const gone of ['two', 'three', 'answer 2', 'answer 3'])
            assert.ok(
              !texts.some((x) => x.includes(gone)),
              `"${gone}" left the history: ${JSON.stringify(texts)}`,
            );
        } finally {
          await t.close();
        }
      },
    },
    {
      name: 'after a rewind the agent that was active at the point answers; a second rewind reaches further back',
      run: async () => {
        const helperModel = new ScriptedModel({ respond: () => 'helper here' });
        const rootModel = new ScriptedModel({
          respond: (request) => {
            const last = contentText(request.contents.at(-1));
            if (last.includes('go to helper'))
              return functionCallResponse('transfer_to_agent', { agent_name: 'helper' });
            return `root: ${last}`;
          },
        });
        const helper = new LlmAgent({ name: 'helper', model: helperModel });
        const root = new LlmAgent({ name: 'root', model: rootModel, subAgents: [helper] });
        const t = await setup(root);
        try {
          await t.stores.sessionService.createSession({ appName: t.appName, userId: 'u', sessionId: 's' });
          const t1 = await t.send('s', 'hello');
          const t2 = await t.send('s', 'go to helper');
          assert.ok(t2.some((e) => e.author === 'helper'));
          const t3 = await t.send('s', 'still there?');
          assert.ok(
            t3.some((e) => e.author === 'helper'),
            'the helper keeps the conversation',
          );
          await t.runner.rewind({
            userId: 'u',
            sessionId: 's',
            rewindBeforeInvocationId: userInvocation(t3, 'still there?'),
          });
          const again = await t.send('s', 'and now?');
          assert.ok(
            again.some((e) => e.author === 'helper'),
            'helper was active at the first point',
          );
          // Further back, before the transfer: the root answers again.
          await t.runner.rewind({
            userId: 'u',
            sessionId: 's',
            rewindBeforeInvocationId: userInvocation(t2, 'go to helper'),
          });
          const back = await t.send('s', 'who is this?');
          assert.deepEqual(
            back.filter((e) => e.author !== 'user').map((e) => e.author),
            ['root'],
          );
          const texts = requestTexts(rootModel);
          assert.ok(texts.includes('hello'));
          for (const gone of ['go to helper', 'still there?', 'and now?', 'helper here'])
            assert.ok(
              !texts.some((x) => x.includes(gone)),
              `"${gone}" left the history: ${JSON.stringify(texts)}`,
            );
          // A rewind to an invocation that is already rewound, or unknown, is a typed error.
          for (const id of [userInvocation(t3, 'still there?'), 'no-such-invocation'])
            await assert.rejects(
              t.runner.rewind({ userId: 'u', sessionId: 's', rewindBeforeInvocationId: id }),
              (e) => isAdkError(e, 'NOT_FOUND') && (e as Error).name === 'InvocationNotFoundError',
            );
          assert.ok(t1.length > 0);
        } finally {
          await t.close();
        }
      },
    },
    {
      name: 'a fork holds the history to its point and diverges; the source stays byte for byte',
      run: async () => {
        const model = new ScriptedModel({
          respond: (request) => `re: ${contentText(request.contents.at(-1))}`,
        });
        const t = await setup(artifactAgent(model));
        try {
          await t.stores.sessionService.createSession({
            appName: t.appName,
            userId: 'u',
            sessionId: 'src',
            state: { topic: 'cats' },
          });
          const t1 = await t.send('src', 'one', { step: 1, save: { name: 'a.txt', text: 'first' } });
          await t.send('src', 'two', { step: 2, save: { name: 'a.txt', text: 'second' } });
          const sourceBefore = JSON.stringify((await t.session('src')).events);
          const last1 = t1.filter((e) => !e.partial).at(-1);
          assert.ok(last1);
          const fork = await t.runner.forkSession({
            userId: 'u',
            sessionId: 'src',
            atEventId: last1.id,
            newSessionId: 'fork',
          });
          assert.equal(fork.id, 'fork');
          assert.deepEqual(fork.forkedFrom, { sessionId: 'src', eventId: last1.id });
          assert.equal(fork.state.step, 1);
          assert.equal(fork.state.topic, 'cats');
          const scope = { appName: t.appName, userId: 'u' };
          assert.deepEqual(
            await t.artifactService.loadArtifact({ ...scope, sessionId: 'fork', filename: 'a.txt' }),
            {
              text: 'first',
            },
          );
          await t.send('fork', 'fork path');
          assert.deepEqual(requestTexts(model), ['one', 're: one', 'fork path']);
          await t.send('src', 'source path');
          assert.deepEqual(requestTexts(model), ['one', 're: one', 'two', 're: two', 'source path']);
          const source = await t.session('src');
          assert.equal(JSON.stringify(source.events.slice(0, JSON.parse(sourceBefore).length)), sourceBefore);
          assert.deepEqual(
            await t.artifactService.loadArtifact({ ...scope, sessionId: 'src', filename: 'a.txt' }),
            { text: 'second' },
          );
          const forked = await t.session('fork');
          assert.equal(forked.events.filter((e) => contentText(e.content) === 'source path').length, 0);
          assert.deepEqual(forked.forkedFrom, { sessionId: 'src', eventId: last1.id });
        } finally {
          await t.close();
        }
      },
    },
    {
      name: 'a rewind or fork is refused while a run is in flight, or cancels it when asked',
      run: async () => {
        // Holds the turn "slow" until its run is cancelled (the model honours the run's signal).
        let reached = false;
        const model: Llm = {
          model: 'gated',
          async *generate(request, options) {
            const last = contentText(request.contents.at(-1));
            if (last === 'slow') {
              reached = true;
              await new Promise((_resolve, reject) => {
                const signal = options?.signal;
                if (signal?.aborted) reject(signal.reason);
                signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
              });
            }
            yield { content: { role: 'model', parts: [{ text: `re: ${last}` }] }, finishReason: 'STOP' };
          },
        };
        const t = await setup(new LlmAgent({ name: 'root', model }));
        try {
          await t.stores.sessionService.createSession({ appName: t.appName, userId: 'u', sessionId: 's' });
          const t1 = await t.send('s', 'one');
          const record = await t.runner.startRun({
            userId: 'u',
            sessionId: 's',
            newMessage: userContent('slow'),
          });
          for (let i = 0; i < 500 && !reached; i++) await new Promise((r) => setTimeout(r, 10));
          assert.ok(reached, 'the slow run reached the model');
          const target = userInvocation(t1, 'one');
          await assert.rejects(
            t.runner.rewind({ userId: 'u', sessionId: 's', rewindBeforeInvocationId: target }),
            (e) => isAdkError(e, 'CONCURRENT_INVOCATION'),
          );
          await assert.rejects(
            t.runner.forkSession({ userId: 'u', sessionId: 's', beforeInvocationId: target }),
            (e) => isAdkError(e, 'CONCURRENT_INVOCATION'),
          );
          const rewind = await t.runner.rewind({
            userId: 'u',
            sessionId: 's',
            rewindBeforeInvocationId: target,
            cancelRunning: true,
          });
          assert.equal((await t.runner.getRun(record.id))?.status, 'cancelled');
          const after = await t.session('s');
          assert.equal(after.events.at(-1)?.id, rewind.id);
        } finally {
          await t.close();
        }
      },
    },
  ];
}
