// The same recall over the same corpus through Mastra's `Memory` (semantic recall on LibSQL), so the
// memory-recall scenario can print Mastra's figures beside ours. Same vectors (our hashing embedder
// behind the AI SDK embedding-model interface Mastra takes), same questions, same top K and
// neighbour window: only the machinery differs. See docs/decisions/0068-memory-recall-vs-mastra.md.
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { type EmbedOptions, HashingEmbedder } from '@adk/core';
import type { MastraDBMessage } from '@mastra/core/agent';
import { LibSQLStore, LibSQLVector } from '@mastra/libsql';
import { Memory } from '@mastra/memory';
import { fmt, fmtMs, fmtRatio } from '../harness/format.js';
import { median } from '../harness/stats.js';
import type { BenchConfig, ScenarioReport } from '../harness/types.js';
import {
  type Corpus,
  type CorpusTurn,
  type RetrievalScores,
  scoreRetrieval,
} from './memory-recall-corpus.js';

const RESOURCE = 'u';
const LIVE_THREAD = 'live';

/** The AI SDK v3 embedding-model shape (`specificationVersion: 'v3'`) that Mastra's Memory accepts. */
interface EmbeddingModelV3 {
  readonly specificationVersion: 'v3';
  readonly provider: string;
  readonly modelId: string;
  readonly maxEmbeddingsPerCall: number | undefined;
  readonly supportsParallelCalls: boolean;
  doEmbed(options: { values: string[] }): Promise<{ embeddings: number[][]; warnings: [] }>;
}

interface DocumentEmbeddings {
  embed(texts: string[], options?: EmbedOptions): Promise<number[][]>;
}

/**
 * Our embedder as an AI SDK v3 embedding model. While `documents` is set (seeding), texts are
 * embedded as documents through the scenario's shared document cache, as our stores' seeding is;
 * otherwise (questions) by a fresh hashing embedder of the same dimensions, whose query cache starts
 * empty as ours does. The hashing embedder ignores the task type, so the vectors are the same.
 */
function embeddingModel(
  shared: DocumentEmbeddings,
  dimensions: number,
): { model: EmbeddingModelV3; setDocuments(on: boolean): void } {
  const queries = new HashingEmbedder({ dimensions });
  let documents = false;
  return {
    setDocuments(on) {
      documents = on;
    },
    model: {
      specificationVersion: 'v3',
      provider: 'adk',
      modelId: `hashing-${dimensions}`,
      maxEmbeddingsPerCall: undefined,
      supportsParallelCalls: true,
      async doEmbed({ values }) {
        const embeddings = documents
          ? await shared.embed(values, { taskType: 'RETRIEVAL_DOCUMENT' })
          : await queries.embed(values);
        return { embeddings, warnings: [] };
      },
    },
  };
}

function messageOf(turn: CorpusTurn): MastraDBMessage {
  return {
    id: turn.id,
    role: turn.author === 'user' ? 'user' : 'assistant',
    createdAt: new Date(turn.timestamp),
    threadId: turn.sessionId,
    resourceId: RESOURCE,
    content: { format: 2, parts: [{ type: 'text', text: turn.text }] },
  };
}

export interface MastraRecallOptions {
  corpus: Corpus;
  tmpDir: string;
  embeddings: DocumentEmbeddings;
  dimensions: number;
  /** Semantic-recall topK: the number of vector hits (ours: the search limit). */
  topK: number;
  /** Neighbouring messages each side of a hit (ours: window before/after). */
  range: number;
  samples: number;
  log: (line: string) => void;
}

export interface MastraRecallResult {
  seedMs: number;
  p50: number;
  scores: RetrievalScores;
  /** Messages one recall returned on average (hits plus neighbours, deduplicated). */
  messagesPerRecall: number;
}

/**
 * Seeds the corpus into a LibSQL file through `Memory.saveThread`/`saveMessages` (one call per
 * session, each embedding its messages and upserting their vectors), then measures retrieval quality
 * from the vector ranking semantic recall uses and the p50 of `Memory.recall` with a search string.
 */
export async function mastraRecall(options: MastraRecallOptions): Promise<MastraRecallResult> {
  const { corpus, topK, range } = options;
  const file = join(options.tmpDir, `memory-recall-mastra-${corpus.turns.length}-${process.pid}.db`);
  const url = `file:${file}`;
  const storage = new LibSQLStore({ id: 'bench-mastra-storage', url });
  const vector = new LibSQLVector({ id: 'bench-mastra-vector', url });
  const embedder = embeddingModel(options.embeddings, options.dimensions);
  const semanticRecall = { topK, messageRange: { before: range, after: range }, scope: 'resource' as const };
  const memory = new Memory({
    storage,
    vector,
    embedder: embedder.model,
    options: { lastMessages: false, semanticRecall },
  });
  try {
    const bySession = new Map<string, CorpusTurn[]>();
    for (const t of options.corpus.turns) {
      const list = bySession.get(t.sessionId) ?? [];
      bySession.set(t.sessionId, list);
      list.push(t);
    }
    embedder.setDocuments(true);
    const started = performance.now();
    for (const [sessionId, list] of bySession) {
      const first = list[0] as CorpusTurn;
      const date = new Date(first.timestamp);
      await memory.saveThread({
        thread: { id: sessionId, resourceId: RESOURCE, title: sessionId, createdAt: date, updatedAt: date },
      });
      await memory.saveMessages({ messages: list.map(messageOf) });
    }
    const seedMs = performance.now() - started;
    embedder.setDocuments(false);
    // The thread the live questions come from (empty: everything recalled is from earlier threads).
    const now = new Date();
    await memory.saveThread({
      thread: { id: LIVE_THREAD, resourceId: RESOURCE, title: LIVE_THREAD, createdAt: now, updatedAt: now },
    });

    // Quality: the ranking of semantic recall's vector stage (Memory.recall returns its messages in
    // date order, without scores), top 10 per question, message ids mapped back to corpus ids.
    const indexes = await vector.listIndexes();
    const indexName = indexes.find((name) => name.startsWith('memory_messages'));
    if (!indexName) throw new Error(`Mastra created no message index (indexes: ${indexes.join(', ')})`);
    const rankings: string[][] = [];
    for (const q of corpus.queries) {
      const [queryVector] = await embedder.model.doEmbed({ values: [q.query] }).then((r) => r.embeddings);
      const hits = await vector.query({
        indexName,
        queryVector: queryVector as number[],
        topK: 10,
        filter: { resource_id: RESOURCE },
      });
      const ids: string[] = [];
      for (const hit of hits) {
        const id = String(hit.metadata?.message_id ?? '');
        if (!ids.includes(id)) ids.push(id);
      }
      rankings.push(ids);
    }
    const scores = scoreRetrieval(corpus.queries, rankings);

    // The recall step: what Memory does per turn with semantic recall on (embed the message, vector
    // query over the resource, load hits with their neighbours), history off so only recall counts.
    const recall = (query: string) =>
      memory.recall({ threadId: LIVE_THREAD, resourceId: RESOURCE, vectorSearchString: query });
    const questions = corpus.queries.map((q) => q.query);
    const variants = ['', ' please', ' again', ' exactly', ' now', ' today'];
    for (const q of questions.slice(0, 5)) await recall(`${q} (warm-up)`);
    const times: number[] = [];
    let returned = 0;
    for (let i = 0; i < options.samples; i++) {
      const query = `${questions[i % questions.length]}${variants[Math.floor(i / questions.length) % variants.length]}`;
      const t0 = performance.now();
      const { messages } = await recall(query);
      times.push(performance.now() - t0);
      returned += messages.length;
    }
    const p50 = median(times);
    options.log(
      `memory-recall: Mastra ${corpus.turns.length}: seeded in ${seedMs.toFixed(0)} ms, recall p50 ${p50.toFixed(2)} ms`,
    );
    return { seedMs, p50, scores, messagesPerRecall: returned / Math.max(1, options.samples) };
  } finally {
    await memory.settled().catch(() => undefined);
    await vector.close().catch(() => undefined);
    await storage.close().catch(() => undefined);
    await rm(file, { force: true }).catch(() => undefined);
    await rm(`${file}-wal`, { force: true }).catch(() => undefined);
    await rm(`${file}-shm`, { force: true }).catch(() => undefined);
  }
}

/**
 * The hook memory-recall.ts calls once per size: Mastra's rows for the quality and timing tables,
 * and the informational ratio of the recall step p50 (Mastra's ÷ ours on the first store measured).
 */
export async function compareWithMastra(args: {
  config: BenchConfig;
  report: ScenarioReport;
  corpus: Corpus;
  embeddings: DocumentEmbeddings & { dimensions: number };
  samples: number;
  ours: { store: string; p50: number; seedMs: number } | undefined;
}): Promise<{ quality: string[]; timing: string[] }> {
  const { config, report, corpus, ours } = args;
  const size = corpus.turns.length;
  const result = await mastraRecall({
    corpus,
    tmpDir: config.tmpDir,
    embeddings: args.embeddings,
    dimensions: args.embeddings.dimensions,
    topK: 5 * 3 + 1,
    range: 1,
    samples: args.samples,
    log: config.log,
  });
  if (ours) {
    const value = result.p50 / ours.p50;
    report.checks.push({
      scenario: report.title,
      label: `Mastra Memory.recall p50 ÷ ours (${ours.store}) at ${fmt(size, 0)} turns`,
      target: '(informational)',
      measured: `${fmtRatio(value)} (${fmtMs(result.p50)} vs ${fmtMs(ours.p50)})`,
      pass: undefined,
      ratio: { value, target: Number.NaN, chartLabel: `Memory recall vs Mastra (${fmt(size, 0)} turns)` },
    });
    report.notes.push(
      `Mastra at ${fmt(size, 0)} turns: bulk indexing ${fmtMs(result.seedMs)} (ours on ${ours.store}: ${fmtMs(ours.seedMs)}); one recall returned ${fmt(result.messagesPerRecall, 1)} messages on average.`,
    );
  }
  return {
    quality: [
      'Mastra Memory (LibSQL vector, semantic recall)',
      fmt(size, 0),
      fmt(result.scores.recallAt5, 2),
      fmt(result.scores.mrr, 2),
      fmt(result.scores.outdatedRate, 2),
    ],
    timing: ['Mastra Memory', 'LibSQL vector', fmt(size, 0), fmtMs(result.seedMs), fmtMs(result.p50)],
  };
}
