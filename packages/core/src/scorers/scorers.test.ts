import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  attachScorers,
  defineScorer,
  type Event,
  InMemoryMemoryJobQueue,
  InMemoryMemoryService,
  InMemoryScoreStore,
  InMemorySessionService,
  isSampled,
  LlmAgent,
  llmJudgeScorer,
  MemoryJobWorker,
  parseJudgeVerdict,
  Runner,
  SCORE_JOB_KIND,
  type ScoreAlertPayload,
  ScorersPlugin,
  scoreJobHandler,
  summarizeScores,
  userContent,
} from '../index.js';
import { ScriptedModel } from '../testing/index.js';

async function drain(iterable: AsyncIterable<Event>): Promise<Event[]> {
  const out: Event[] = [];
  for await (const e of iterable) out.push(e);
  return out;
}

function runnerWith(
  plugin: ScorersPlugin,
  reply = 'the answer is 42',
  sessionService = new InMemorySessionService(),
) {
  return new Runner({
    appName: 'app',
    sessionService,
    autoCreateSession: true,
    agent: new LlmAgent({ name: 'root', model: new ScriptedModel({ respond: () => reply }) }),
    plugins: [plugin],
  });
}

describe('scorers on live traffic', () => {
  it('a scorer sampled at 10% over 500 turns scores 50 ± 15 turns, the same ones for the same seed', async () => {
    const counted = async (seed: string) => {
      const store = new InMemoryScoreStore();
      const plugin = new ScorersPlugin({
        store,
        seed,
        scorers: [defineScorer({ name: 'length', sampleRate: 0.1, score: (t) => t.responseText.length })],
      });
      const runner = runnerWith(plugin);
      for (let i = 0; i < 500; i++)
        await drain(
          runner.run({
            userId: 'u',
            sessionId: `s${i % 10}`,
            invocationId: `inv-${i}`,
            newMessage: userContent(`question ${i}`),
          }),
        );
      await plugin.flush();
      const scores = await store.list({ appName: 'app', limit: 1000 });
      expect(scores.every((s) => s.status === 'ok' && s.score === 16)).toBe(true);
      return scores.map((s) => s.invocationId).sort();
    };
    const first = await counted('seed-a');
    expect(first.length).toBeGreaterThanOrEqual(35);
    expect(first.length).toBeLessThanOrEqual(65);
    expect(await counted('seed-a')).toEqual(first);
    // The decision is the hash's, not the runner's: the same call answers the same way.
    const expected = Array.from({ length: 500 }, (_, i) => `inv-${i}`)
      .filter((id) => isSampled(0.1, 'length', id, 'seed-a'))
      .sort();
    expect(first).toEqual(expected);
  }, 120_000);

  it('a scorer that throws never fails a turn: the turn answers and a failed score is stored', async () => {
    const store = new InMemoryScoreStore();
    const errors: unknown[] = [];
    const plugin = new ScorersPlugin({
      store,
      onError: (e) => errors.push(e),
      scorers: [
        defineScorer({
          name: 'broken',
          score: () => {
            throw new Error('scorer bug');
          },
        }),
        defineScorer({ name: 'nan', score: () => Number.NaN }),
        defineScorer({
          name: 'picky',
          filter: () => {
            throw new Error('filter bug');
          },
          score: () => 1,
        }),
      ],
    });
    const events = await drain(
      runnerWith(plugin).run({ userId: 'u', sessionId: 's', newMessage: userContent('hi') }),
    );
    expect(events.some((e) => e.errorCode !== undefined)).toBe(false);
    expect(events.at(-1)?.content?.parts[0]?.text).toBe('the answer is 42');
    await plugin.flush();
    const byName = Object.fromEntries((await store.list({ appName: 'app' })).map((s) => [s.scorerName, s]));
    expect(byName.broken).toMatchObject({ status: 'failed', error: 'Error: scorer bug' });
    expect(byName.broken?.score).toBeUndefined();
    expect(byName.nan).toMatchObject({ status: 'failed' });
    expect(byName.nan?.error).toMatch(/^SCORER_OUTPUT/);
    expect(byName.picky).toMatchObject({ status: 'failed', error: 'Error: filter bug' });
    expect(errors).toEqual([]);
  });

  it('the run ends before a slow scorer; a scorer past its timeout is a failed SCORER_TIMEOUT score', async () => {
    const store = new InMemoryScoreStore();
    let aborted = false;
    const plugin = new ScorersPlugin({
      store,
      scorers: [
        defineScorer({
          name: 'slow',
          timeoutMs: 200,
          score: (_t, { signal }) =>
            new Promise<number>((_, reject) =>
              signal.addEventListener('abort', () => {
                aborted = true;
                reject(signal.reason);
              }),
            ),
        }),
      ],
    });
    await drain(runnerWith(plugin).run({ userId: 'u', sessionId: 's', newMessage: userContent('hi') }));
    // The run is over; the scorer still waits.
    expect(await store.list({ appName: 'app' })).toEqual([]);
    await plugin.flush();
    const [score] = await store.list({ appName: 'app' });
    expect(score?.status).toBe('failed');
    expect(score?.error).toMatch(/^SCORER_TIMEOUT/);
    expect(aborted).toBe(true);
  });

  it('an LLM judge grades with a rubric; a malformed verdict is a failed score', async () => {
    const store = new InMemoryScoreStore();
    const judge = new ScriptedModel({
      script: ['```json\n{"score": 0.8, "reason": "mostly right"}\n```', 'I think it is good, 9/10'],
    });
    const scorer = llmJudgeScorer({
      name: 'helpful',
      version: '2',
      model: judge,
      rubric: 'The answer states a number.',
    });
    const plugin = new ScorersPlugin({ store, scorers: [scorer] });
    const runner = runnerWith(plugin);
    await drain(
      runner.run({ userId: 'u', sessionId: 's', invocationId: 'i1', newMessage: userContent('n?') }),
    );
    await plugin.flush();
    await drain(
      runner.run({ userId: 'u', sessionId: 's', invocationId: 'i2', newMessage: userContent('n?') }),
    );
    await plugin.flush();
    const [first] = await store.list({ appName: 'app', invocationId: 'i1' });
    expect(first).toMatchObject({ status: 'ok', score: 0.8, reason: 'mostly right', scorerVersion: '2' });
    const [second] = await store.list({ appName: 'app', invocationId: 'i2' });
    expect(second?.status).toBe('failed');
    expect(second?.error).toMatch(/^SCORER_OUTPUT: Judge answer is not a JSON object/);
    const prompt = judge.requests[0]?.contents[0]?.parts[0]?.text ?? '';
    expect(prompt).toContain('The answer states a number.');
    expect(prompt).toContain('the answer is 42');
    expect(() => parseJudgeVerdict('{"score": 2, "reason": "x"}')).toThrow(/outside 0..1/);
    expect(() => parseJudgeVerdict('{"score": 1, "reason": "x", "extra": 1}')).toThrow(/unexpected keys/);
    expect(() => parseJudgeVerdict('{"score": "1", "reason": "x"}')).toThrow(/numeric score/);
  });

  it('scorers attached to an agent score only that agent’s turns', async () => {
    const store = new InMemoryScoreStore();
    const plugin = new ScorersPlugin({ store });
    const agent = attachScorers(
      new LlmAgent({ name: 'root', model: new ScriptedModel({ respond: () => 'ok' }) }),
      [defineScorer({ name: 'one', score: () => 1 })],
    );
    const runner = new Runner({
      appName: 'app',
      sessionService: new InMemorySessionService(),
      autoCreateSession: true,
      agent,
      plugins: [plugin],
    });
    await drain(runner.run({ userId: 'u', sessionId: 's', newMessage: userContent('hi') }));
    await plugin.flush();
    expect((await store.list({ appName: 'app' })).map((s) => s.scorerName)).toEqual(['one']);
    expect(() => defineScorer({ name: 'x', sampleRate: 1.5, score: () => 1 })).toThrow(/sampleRate/);
    expect(() => defineScorer({ name: 'bad name', score: () => 1 })).toThrow(/Invalid scorer name/);
  });

  it('aggregates per scorer and window: count, mean, p50, min, max', () => {
    const at = (min: number) => 1_700_000_000_000 - (1_700_000_000_000 % 60_000) + min * 60_000;
    const rec = (scorerName: string, score: number | undefined, createdAt: number) => ({
      appName: 'app',
      scorerName,
      status: score === undefined ? ('failed' as const) : ('ok' as const),
      ...(score === undefined ? {} : { score }),
      createdAt,
    });
    const records = [
      rec('a', 1, at(0)),
      rec('a', 3, at(0)),
      rec('a', 2, at(0)),
      rec('a', undefined, at(0)),
      rec('a', 10, at(1)),
      rec('b', 0.5, at(1)),
    ];
    const summaries = summarizeScores(records, { appName: 'app', bucketMs: 60_000, from: at(0), to: at(2) });
    expect(summaries).toEqual([
      {
        appName: 'app',
        scorerName: 'a',
        from: at(0),
        to: at(1),
        count: 4,
        failed: 1,
        mean: 2,
        p50: 2,
        min: 1,
        max: 3,
      },
      {
        appName: 'app',
        scorerName: 'a',
        from: at(1),
        to: at(2),
        count: 1,
        failed: 0,
        mean: 10,
        p50: 10,
        min: 10,
        max: 10,
      },
      {
        appName: 'app',
        scorerName: 'b',
        from: at(1),
        to: at(2),
        count: 1,
        failed: 0,
        mean: 0.5,
        p50: 0.5,
        min: 0.5,
        max: 0.5,
      },
    ]);
  });

  describe('threshold alert webhook', () => {
    let server: Server;
    let url: string;
    const received: { body: ScoreAlertPayload; headers: IncomingMessage['headers'] }[] = [];
    beforeAll(async () => {
      server = createServer((req, res) => {
        let text = '';
        req.on('data', (c) => {
          text += c;
        });
        req.on('end', () => {
          received.push({ body: JSON.parse(text) as ScoreAlertPayload, headers: req.headers });
          res.writeHead(204).end();
        });
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    it('posts once per window when the mean falls below the threshold', async () => {
      const store = new InMemoryScoreStore();
      let next = 1;
      const plugin = new ScorersPlugin({
        store,
        scorers: [defineScorer({ name: 'quality', score: () => next })],
        alerts: [
          {
            scorerName: 'quality',
            threshold: 0.5,
            windowMs: 86_400_000,
            url,
            headers: { authorization: 'Bearer t' },
          },
        ],
      });
      const runner = runnerWith(plugin);
      for (const score of [1, 1, 0, 0, 0, 0]) {
        next = score;
        await drain(runner.run({ userId: 'u', sessionId: 's', newMessage: userContent('hi') }));
        await plugin.flush();
      }
      // Mean 1, 1, 0.67, 0.5, 0.4 (crosses: one POST), 0.33 (same window: none).
      expect(received).toHaveLength(1);
      const [hit] = received;
      expect(hit?.headers.authorization).toBe('Bearer t');
      expect(hit?.headers['content-type']).toBe('application/json');
      expect(hit?.body).toMatchObject({
        type: 'adk.score_alert',
        appName: 'app',
        scorerName: 'quality',
        direction: 'below',
        threshold: 0.5,
        count: 5,
        failed: 0,
        mean: 0.4,
        min: 0,
        max: 1,
      });
      expect((hit?.body.window.to ?? 0) - (hit?.body.window.from ?? 0)).toBe(86_400_000);
      expect(
        () => new ScorersPlugin({ store, alerts: [{ scorerName: 'q', threshold: 1, url: 'ftp://x' }] }),
      ).toThrow(/http/);
    });
  });

  it('durable mode: sampled turns become score jobs, idempotent by scorer and invocation', async () => {
    const store = new InMemoryScoreStore();
    const queue = new InMemoryMemoryJobQueue();
    const sessions = new InMemorySessionService();
    const scorers = [
      defineScorer({
        name: 'len',
        version: '3',
        score: (t) => ({ score: t.responseText.length, reason: 'chars' }),
      }),
    ];
    const plugin = new ScorersPlugin({ store, queue, scorers });
    const runner = runnerWith(plugin, 'hello', sessions);
    await drain(
      runner.run({ userId: 'u', sessionId: 's', invocationId: 'inv-1', newMessage: userContent('hi') }),
    );
    await plugin.flush();
    expect((await queue.list()).map((j) => j.kind)).toEqual([SCORE_JOB_KIND]);
    // The same (scorer, invocation) again is no new job.
    await drain(
      runner.run({ userId: 'u', sessionId: 's', invocationId: 'inv-1', newMessage: userContent('hi') }),
    );
    await plugin.flush();
    expect(await queue.list()).toHaveLength(1);
    expect(await store.list({ appName: 'app' })).toEqual([]);
    const worker = new MemoryJobWorker({ queue, memory: new InMemoryMemoryService() });
    worker.registerHandler(
      SCORE_JOB_KIND,
      scoreJobHandler({
        store,
        scorerFor: (_app, name) => scorers.find((s) => s.name === name),
        loadEvents: async (job) =>
          (
            await sessions.getSession({
              appName: job.appName,
              userId: job.userId,
              sessionId: job.sessionId ?? '',
            })
          )?.events ?? [],
      }),
    );
    await worker.flush();
    const [score] = await store.list({ appName: 'app' });
    expect(score).toMatchObject({
      invocationId: 'inv-1',
      scorerName: 'len',
      scorerVersion: '3',
      score: 5,
      reason: 'chars',
    });
    expect((await queue.stats()).done).toBe(1);
  });
});
