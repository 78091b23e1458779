import { tokenize } from '../memory/memory-service.js';
import { evictOldest } from '../utils/bounded.js';
import type { Embedder, EmbedOptions } from './embedder.js';

export interface HashingEmbedderOptions {
  /** Vector length (default 256). */
  dimensions?: number;
  /** Character n-gram length inside words (default 3; 0 turns them off). */
  charNgram?: number;
}

function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/**
 * A hashing embedder, not a language model: word unigrams and bigrams and character n-grams of
 * each word are hashed (FNV-1a, signed) into a fixed-size vector, L2-normalised. Deterministic,
 * offline and instant, for tests, examples and setups that must not download or call a model. It
 * finds shared words and word pieces ("hike" ~ "hiking"), not meaning ("car" is not near "auto").
 */
export class HashingEmbedder implements Embedder {
  readonly model = 'adk-hashing-embedder';
  readonly dimensions: number;
  readonly maxBatchSize = 4096;
  private readonly charNgram: number;

  constructor(options: HashingEmbedderOptions = {}) {
    this.dimensions = options.dimensions ?? 256;
    this.charNgram = options.charNgram ?? 3;
    if (!Number.isInteger(this.dimensions) || this.dimensions < 1)
      throw new RangeError(`HashingEmbedder dimensions must be a positive integer, got ${this.dimensions}`);
  }

  async embed(texts: readonly string[], options?: EmbedOptions): Promise<number[][]> {
    options?.signal?.throwIfAborted();
    return texts.map((t) => this.embedOne(t));
  }

  /** The vector of one text, synchronously. */
  embedOne(text: string): number[] {
    const v = new Array<number>(this.dimensions).fill(0);
    const add = (feature: string, weight: number) => {
      const h = fnv1a(feature);
      const index = h % this.dimensions;
      v[index] = (v[index] ?? 0) + (h & 0x80000000 ? -weight : weight);
    };
    const words = tokenize(text);
    words.forEach((w, i) => {
      add(`w:${w}`, 1);
      const next = words[i + 1];
      if (next !== undefined) add(`b:${w} ${next}`, 0.5);
      const n = this.charNgram;
      if (n > 0 && w.length > n) {
        const padded = `<${w}>`;
        for (let j = 0; j + n <= padded.length; j++) add(`c:${padded.slice(j, j + n)}`, 0.25);
      }
    });
    let norm = 0;
    for (const x of v) norm += x * x;
    if (norm === 0) return v;
    const scale = 1 / Math.sqrt(norm);
    return v.map((x) => x * scale);
  }
}

/**
 * Wraps an embedder with a bounded LRU cache of query embeddings (task type `RETRIEVAL_QUERY`
 * or none): the same question asked again costs no embedding call. Documents are not cached.
 */
export class CachingEmbedder implements Embedder {
  readonly model: string;
  readonly dimensions: number;
  readonly maxBatchSize?: number;
  private readonly cache = new Map<string, number[]>();
  hits = 0;
  misses = 0;

  constructor(
    private readonly inner: Embedder,
    private readonly maxEntries = 1000,
  ) {
    this.model = inner.model;
    this.dimensions = inner.dimensions;
    if (inner.maxBatchSize !== undefined) this.maxBatchSize = inner.maxBatchSize;
  }

  async embed(texts: readonly string[], options?: EmbedOptions): Promise<number[][]> {
    const cacheable = options?.taskType === undefined || options.taskType === 'RETRIEVAL_QUERY';
    if (!cacheable) return this.inner.embed(texts, options);
    const out: (number[] | undefined)[] = texts.map((t) => {
      const hit = this.cache.get(t);
      if (hit) {
        this.cache.delete(t);
        this.cache.set(t, hit);
        this.hits++;
      }
      return hit;
    });
    const missing = [...new Set(texts.filter((_, i) => !out[i]))];
    if (missing.length > 0) {
      this.misses += missing.length;
      const vectors = await this.inner.embed(missing, options);
      missing.forEach((t, i) => {
        const v = vectors[i];
        if (!v) return;
        this.cache.set(t, v);
        evictOldest(this.cache, this.maxEntries);
      });
      texts.forEach((t, i) => {
        out[i] ??= vectors[missing.indexOf(t)];
      });
    }
    return out.map((v) => v ?? []);
  }
}
