import { join } from 'node:path';
import {
  createEvent,
  type EmbedOptions,
  type Event,
  HashingEmbedder,
  InMemorySessionService,
  LlmAgent,
  Runner,
  userContent,
} from '@adk/core';
import { ScriptedModel } from '@adk/core/testing';
import { SqlMemoryService } from '@adk/session-sql';
import { fmt, fmtMs, fmtRatio } from '../harness/format.js';
import { type PostgresCluster, postgresSkipped, startPostgres } from '../harness/postgres.js';
import { median } from '../harness/stats.js';
import { type BenchConfig, newReport, type Scenario, type ScenarioReport } from '../harness/types.js';
import {
  bm25Rankings,
  buildCorpus,
  type Corpus,
  type CorpusTurn,
  type RetrievalScores,
  scoreRetrieval,
} from './memory-recall-corpus.js';
import { compareWithMastra } from './memory-recall-mastra.js';

const APP = 'bench';
const USER = 'u';
const DIMENSIONS = 128;
const TOP_K = 5;

/**
 * Document vectors computed once per text and shared by every store (the hashing embedder is
 * deterministic); query vectors are computed on every call, as on the response path.
 */
function sharedEmbeddings() {
  const embedder = new HashingEmbedder({ dimensions: DIMENSIONS });
  const documents = new Map<string, number[]>();
  return {
    dimensions: DIMENSIONS,
    async embed(texts: string[], options?: EmbedOptions): Promise<number[][]> {
      if (options?.taskType !== 'RETRIEVAL_DOCUMENT') return embedder.embed(texts, options);
      const missing = [...new Set(texts.filter((t) => !documents.has(t)))];
      if (missing.length > 0) {
        const vectors = await embedder.embed(missing);
        missing.forEach((t, i) => {
          documents.set(t, vectors[i] as number[]);
        });
      }
      return texts.map((t) => documents.get(t) as number[]);
    },
  };
}

function eventOf(turn: CorpusTurn): Event {
  const event = createEvent({
    invocationId: `i-${turn.sessionId}`,
    author: turn.author,
    content: { role: turn.author === 'user' ? 'user' : 'model', parts: [{ text: turn.text }] },
  });
  return { ...event, id: turn.id, timestamp: turn.timestamp };
}

/** Indexes the corpus one session per call (each a batched embedding and a multi-row insert). */
async function seed(memory: SqlMemoryService, turns: readonly CorpusTurn[]): Promise<number> {
  const started = performance.now();
  const bySession = new Map<string, CorpusTurn[]>();
  for (const t of turns) {
    const list = bySession.get(t.sessionId) ?? [];
    bySession.set(t.sessionId, list);
    list.push(t);
  }
  for (const [sessionId, list] of bySession)
    await memory.addEventsToMemory({ appName: APP, userId: USER, sessionId, events: list.map(eventOf) });
  return performance.now() - started;
}

/** The search the agent's per-turn recall makes before the model call (agent-memory.ts). */
function recallSearch(memory: SqlMemoryService, query: string) {
  return memory.searchMemory({
    appName: APP,
    userId: USER,
    query,
    scope: 'user',
    limit: TOP_K * 3 + 1,
    window: { before: 1, after: 1 },
  });
}

async function quality(memory: SqlMemoryService, corpus: Corpus): Promise<RetrievalScores> {
  const rankings: string[][] = [];
  for (const q of corpus.queries) {
    const { memories } = await memory.searchMemory({ appName: APP, userId: USER, query: q.query, limit: 10 });
    rankings.push(memories.map((m) => m.id ?? ''));
  }
  return scoreRetrieval(corpus.queries, rankings);
}

/** p50 of the recall step over distinct queries (each embedded afresh), after a warm-up. */
async function recallP50(memory: SqlMemoryService, corpus: Corpus, samples: number): Promise<number> {
  const questions = corpus.queries.map((q) => q.query);
  const variants = ['', ' please', ' again', ' exactly', ' now', ' today'];
  for (const q of questions.slice(0, 5)) await recallSearch(memory, `${q} (warm-up)`);
  const times: number[] = [];
  for (let i = 0; i < samples; i++) {
    const query = `${questions[i % questions.length]}${variants[Math.floor(i / questions.length) % variants.length]}`;
    const started = performance.now();
    await recallSearch(memory, query);
    times.push(performance.now() - started);
  }
  return median(times);
}

/** The model latency of the checked turns/s ratio: about a fast hosted model's time to a short answer. */
const MODEL_LATENCY_MS = 300;

/**
 * Turns per second of a Runner whose agent recalls from `memory` before every model call, or not:
 * `concurrency` sessions at once, each sending its share of `turns` one after another, against a
 * scripted model that answers after `delayMs`.
 */
async function turnsPerSecond(
  memory: SqlMemoryService,
  recall: boolean,
  turns: number,
  options: { delayMs?: number; concurrency?: number } = {},
): Promise<number> {
  const concurrency = options.concurrency ?? 1;
  const runner = new Runner({
    appName: APP,
    agent: new LlmAgent({
      name: 'assistant',
      model: new ScriptedModel({
        respond: () => 'Noted.',
        ...(options.delayMs ? { delayMs: options.delayMs } : {}),
      }),
      ...(recall ? { memory: { recall: { topK: TOP_K } } } : {}),
    }),
    sessionService: new InMemorySessionService(),
    memoryService: memory,
    autoCreateSession: true,
  });
  const started = performance.now();
  const each = Math.ceil(turns / concurrency);
  await Promise.all(
    Array.from({ length: concurrency }, async (_, worker) => {
      for (let i = 0; i < each; i++) {
        for await (const _ of runner.run({
          userId: USER,
          sessionId: `live-${recall}-${worker}-${Math.floor(i / 10)}`,
          newMessage: userContent(
            `What did I say about the ${['garden', 'train', 'budget', 'concert'][i % 4]} last time?`,
          ),
        }));
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  await runner.close();
  return (each * concurrency) / seconds;
}

interface StoreTarget {
  name: 'SQLite' | 'PGlite' | 'Postgres';
  url: (size: number) => string;
  target: number | undefined;
}

export const memoryRecall: Scenario = {
  id: 'memory-recall',
  title: 'Memory recall (retrieval quality and the pre-model recall step)',
  async run(config: BenchConfig): Promise<ScenarioReport> {
    const report = newReport(this.id, this.title);
    // BENCH_MEMORY_SIZES=10000,100000 and BENCH_MEMORY_STORES=sqlite,postgres narrow a targeted run.
    const sizes = process.env.BENCH_MEMORY_SIZES
      ? process.env.BENCH_MEMORY_SIZES.split(',').map(Number)
      : config.quick
        ? [500, 1_500]
        : [10_000, 100_000];
    const wanted = process.env.BENCH_MEMORY_STORES?.toLowerCase().split(',');
    const samples = config.quick ? 20 : 60;
    let cluster: PostgresCluster | undefined;
    if (!wanted || wanted.includes('postgres')) {
      try {
        cluster = await startPostgres();
      } catch (error) {
        report.skipped.push(`real Postgres: ${postgresSkipped(error)}`);
      }
    }
    let stores: StoreTarget[] = [
      {
        name: 'SQLite',
        url: (size) => `sqlite://${join(config.tmpDir, `memory-recall-${size}.db`)}`,
        target: 30,
      },
      { name: 'PGlite', url: () => 'pglite://memory', target: 30 },
    ];
    if (cluster) {
      const url = cluster.url;
      stores.push({ name: 'Postgres', url: () => url, target: undefined });
    }
    if (wanted) stores = stores.filter((s) => wanted.includes(s.name.toLowerCase()));
    const embeddings = sharedEmbeddings();
    const quality_rows: string[][] = [];
    const timing_rows: string[][] = [];
    let ratio: number | undefined;
    // BENCH_MEMORY_MASTRA=0 skips the same recall through Mastra's Memory (memory-recall-mastra.ts).
    const withMastra = process.env.BENCH_MEMORY_MASTRA !== '0';
    const mastraMax = Number(process.env.BENCH_MEMORY_MASTRA_MAX ?? 10_000);
    const oursP50 = new Map<number, { store: string; p50: number; seedMs: number }>();
    try {
      for (const size of sizes) {
        const corpus = buildCorpus(size);
        config.log(`memory-recall: ${size} turns, ${corpus.queries.length} questions`);
        const bm25 = scoreRetrieval(
          corpus.queries,
          bm25Rankings(
            corpus.turns,
            corpus.queries.map((q) => q.query),
          ),
        );
        quality_rows.push([
          `BM25 baseline (JS, same turns)`,
          fmt(size, 0),
          fmt(bm25.recallAt5, 2),
          fmt(bm25.mrr, 2),
          fmt(bm25.outdatedRate, 2),
        ]);
        for (const store of stores) {
          const tablePrefix = `mr${size}_${process.pid}_`;
          const memory = await SqlMemoryService.fromUrl(store.url(size), { embeddings, tablePrefix });
          try {
            const seedMs = await seed(memory, corpus.turns);
            // Without pgvector the service ranks the memories it holds in process (vectorCacheBytes
            // left at its default); the stored form is named after it.
            const stored = await memory.vectorMode();
            const mode = stored === 'pgvector' ? 'pgvector' : `held in process (${stored} stored)`;
            const scores = await quality(memory, corpus);
            const p50 = await recallP50(memory, corpus, samples);
            config.log(
              `memory-recall: ${store.name} ${size}: seeded in ${fmtMs(seedMs)}, recall p50 ${fmtMs(p50)}`,
            );
            quality_rows.push([
              `${store.name} (${mode})`,
              fmt(size, 0),
              fmt(scores.recallAt5, 2),
              fmt(scores.mrr, 2),
              fmt(scores.outdatedRate, 2),
            ]);
            timing_rows.push([store.name, mode, fmt(size, 0), fmtMs(seedMs), fmtMs(p50)]);
            if (!oursP50.has(size)) oursP50.set(size, { store: store.name, p50, seedMs });
            report.checks.push({
              scenario: report.title,
              label: `${store.name}: recall step p50 at ${fmt(size, 0)} turns`,
              target: store.target === undefined ? '(pgvector: ≤ 10 ms; none here)' : `≤ ${store.target} ms`,
              measured: fmtMs(p50),
              pass: store.target === undefined || config.quick ? undefined : p50 <= store.target,
            });
            report.checks.push({
              scenario: report.title,
              label: `${store.name}: Recall@5 at ${fmt(size, 0)} turns vs BM25 (${fmt(bm25.recallAt5, 2)})`,
              target: '> BM25',
              measured: fmt(scores.recallAt5, 2),
              pass: scores.recallAt5 > bm25.recallAt5,
            });
            if (size === sizes[sizes.length - 1] && !config.quick)
              report.checks.push({
                scenario: report.title,
                label: `${store.name}: bulk indexing of ${fmt(size, 0)} turns`,
                target: '< 2 min',
                measured: fmtMs(seedMs),
                pass: seedMs < 120_000,
              });
            if (store.name === 'SQLite' && size === sizes[0]) {
              const turns = config.quick ? 40 : 200;
              // Alternated, so drift of the machine's load hits both.
              const off1 = await turnsPerSecond(memory, false, turns / 2);
              const on1 = await turnsPerSecond(memory, true, turns / 2);
              const on2 = await turnsPerSecond(memory, true, turns / 2);
              const off2 = await turnsPerSecond(memory, false, turns / 2);
              report.notes.push(
                `Turns/s with an instant scripted model, one session at a time: recall on ${fmt((on1 + on2) / 2, 0)}, off ${fmt((off1 + off2) / 2, 0)}, ${fmtRatio((on1 + on2) / (off1 + off2))} (SQLite, ${fmt(size, 0)} turns: the recall step against a turn that costs about a millisecond without it).`,
              );
              // The checked ratio: 16 sessions at once against a model that answers in 300 ms, so
              // recall's latency and its CPU (shared by the 16) both count.
              const loaded = { delayMs: MODEL_LATENCY_MS, concurrency: 16 };
              const busy = config.quick ? 32 : 160;
              const offA = await turnsPerSecond(memory, false, busy, loaded);
              const onA = await turnsPerSecond(memory, true, busy, loaded);
              const onB = await turnsPerSecond(memory, true, busy, loaded);
              const offB = await turnsPerSecond(memory, false, busy, loaded);
              ratio = (onA + onB) / (offA + offB);
              report.notes.push(
                `Turns/s with 16 sessions at once and a model that answers in ${MODEL_LATENCY_MS} ms: recall on ${fmt((onA + onB) / 2, 1)}, off ${fmt((offA + offB) / 2, 1)} (SQLite, ${fmt(size, 0)} turns).`,
              );
            }
          } finally {
            await memory.close();
          }
        }
        // Quick mode: Mastra on the smallest size only; else up to BENCH_MEMORY_MASTRA_MAX turns
        // (default 10,000: its seeding is the slow part, see ADR 0068).
        if (withMastra && size > mastraMax)
          report.skipped.push(
            `Mastra Memory at ${fmt(size, 0)} turns (over BENCH_MEMORY_MASTRA_MAX=${mastraMax})`,
          );
        else if (withMastra && (!config.quick || size === sizes[0]))
          await compareWithMastra({
            config,
            report,
            corpus,
            embeddings,
            samples,
            ours: oursP50.get(size),
          }).then(({ quality, timing }) => {
            quality_rows.push(quality);
            timing_rows.push(timing);
          });
      }
    } finally {
      await cluster?.stop();
    }
    report.tables.push({
      caption:
        'Retrieval over a seeded synthetic history (planted facts, updates, dated events among distractor sessions; hashing embedder, 128 dimensions).',
      headers: ['ranking', 'turns', 'Recall@5', 'MRR', 'outdated-fact rate'],
      rows: quality_rows,
    });
    report.tables.push({
      caption: `The pre-model recall step (one query embedding, one search of ${TOP_K * 3 + 1} hits with one neighbour each side), p50 of ${samples} distinct questions.`,
      headers: ['store', 'ranked by', 'turns per user', 'bulk indexing', 'recall step p50'],
      rows: timing_rows,
    });
    if (ratio !== undefined)
      report.checks.push({
        scenario: report.title,
        label: `turns/s with recall on ÷ off (16 sessions, a ${MODEL_LATENCY_MS} ms model)`,
        target: '≥ 0.8×',
        measured: fmtRatio(ratio),
        pass: config.quick ? undefined : ratio >= 0.8,
        ratio: { value: ratio, target: 0.8, chartLabel: 'recall on ÷ off' },
      });
    return report;
  },
};
