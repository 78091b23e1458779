import {
  defineScorer,
  InMemoryScoreStore,
  InMemorySessionService,
  LlmAgent,
  llmJudgeScorer,
  type Plugin,
  Runner,
  ScorersPlugin,
  userContent,
} from '@adk/core';
import { ScriptedModel } from '@adk/core/testing';
import { fmtMs } from '../harness/format.js';
import { percentile } from '../harness/stats.js';
import { newReport, type Scenario } from '../harness/types.js';

/** The latency of the judge model, so a turn that waited for it would show it. */
const JUDGE_MS = 20;

function runner(plugins: Plugin[]): Runner {
  return new Runner({
    appName: 'bench',
    agent: new LlmAgent({
      name: 'assistant',
      model: new ScriptedModel({ respond: (r) => `Answer number ${r.contents.length}.` }),
      instruction: 'Answer briefly.',
    }),
    sessionService: new InMemorySessionService(),
    autoCreateSession: true,
    plugins,
  });
}

/** Scorers on live traffic: a turn's latency with every turn scored (a function and an LLM judge) vs none. */
export const scorersScenario: Scenario = {
  id: 'scorers',
  title: '18. Scorers on live traffic',
  async run(config) {
    const report = newReport(this.id, this.title);
    const turns = config.quick ? 200 : 2000;
    const sessionTurns = 20;
    const store = new InMemoryScoreStore();
    const plugin = new ScorersPlugin({
      store,
      seed: 'bench',
      scorers: [
        defineScorer({ name: 'length', score: (t) => t.responseText.length }),
        llmJudgeScorer({
          name: 'judge',
          rubric: 'The answer is brief.',
          model: new ScriptedModel({ delayMs: JUDGE_MS, respond: () => '{"score": 1, "reason": "brief"}' }),
        }),
      ],
    });
    const runners = [runner([]), runner([plugin])];
    const times: [number[], number[]] = [[], []];
    config.log(
      `  ${turns} turns with and without scorers (every turn scored, ${JUDGE_MS} ms judge), interleaved`,
    );
    for (let i = -100; i < turns; i++) {
      const sessionId = `s${Math.floor((i + 100) / sessionTurns)}`;
      for (const which of i % 2 === 0 ? [0, 1] : [1, 0]) {
        const start = performance.now();
        for await (const _ of (runners[which] as Runner).run({
          userId: 'u',
          sessionId,
          newMessage: userContent(`question ${i}`),
        })) {
          // drain
        }
        if (i >= 0) (times[which] as number[]).push(performance.now() - start);
      }
    }
    await plugin.flush();
    const scored = (await store.summarize({ appName: 'bench' })).reduce((n, s) => n + s.count, 0);
    const off = percentile(times[0], 50);
    const on = percentile(times[1], 50);
    report.tables.push({
      caption: `${turns} turns each (sessions of ${sessionTurns} turns, in-memory store, a scripted model answering at once), without scorers and with a function scorer and an LLM judge (${JUDGE_MS} ms per call) on every turn; ${scored} results stored.`,
      headers: ['runner', 'turn p50', 'turn p99'],
      rows: [
        ['scorers off', fmtMs(off), fmtMs(percentile(times[0], 99))],
        ['scorers on (rate 1)', fmtMs(on), fmtMs(percentile(times[1], 99))],
      ],
    });
    report.checks.push({
      scenario: report.title,
      label: 'turn p50 with scorers on − off (the judge’s time is not in the turn)',
      target: `within noise, ≪ ${JUDGE_MS} ms`,
      measured: `${fmtMs(on - off)} (${fmtMs(on)} vs ${fmtMs(off)})`,
      pass: config.quick ? undefined : on - off < JUDGE_MS / 4,
    });
    return report;
  },
};
