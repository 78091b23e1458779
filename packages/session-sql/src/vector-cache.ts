/**
 * The memory vectors of recently searched users, held in process memory as unit-length Float32
 * rows, so that a search without pgvector scans a contiguous matrix instead of reading every one of
 * the user's blobs from the database (the scan is exact either way).
 *
 * Kept current without trusting this process to see every write: each search first reads the rows
 * stored after the newest one held (an index range, empty when nothing changed), and at most every
 * `recheckMs` compares the number of rows held with the table's (another process's delete or
 * replace shows there, and the user's vectors are read again). This process's own deletes drop the
 * user's entry at once. Bounded by `maxBytes` over all users, the least recently searched first out.
 */

/** One stored vector row, as the cache reads it. */
export interface VectorRow {
  id: number;
  vector: Float32Array;
  kind: string;
  sessionId: string;
  eventId: string;
  /** µs since the epoch. */
  timestampUs: number;
}

/** Which rows a search may return. */
export interface VectorFilter {
  sessionId?: string;
  kinds?: ReadonlySet<string>;
  /** µs, inclusive */
  fromUs?: number;
  /** µs, inclusive */
  toUs?: number;
  /** Event ids of superseded facts. */
  excludedEventIds?: ReadonlySet<string>;
}

export interface VectorSource {
  /** Rows with an id above `afterId` (all with 0), in id order. */
  rowsAfter(afterId: number): Promise<VectorRow[]>;
  /** How many rows with a vector the user has now. */
  count(): Promise<number>;
}

class UserVectors {
  ids: number[] = [];
  kinds: string[] = [];
  sessions: string[] = [];
  eventIds: string[] = [];
  times: number[] = [];
  matrix: Float32Array;
  size = 0;
  /** Rows read, with a vector of another length (not held) included. */
  seen = 0;
  maxId = 0;
  checkedAt = 0;
  lastUsed = 0;

  constructor(readonly dims: number) {
    this.matrix = new Float32Array(dims * 64);
  }

  get bytes(): number {
    return this.matrix.byteLength + this.size * 96;
  }

  add(rows: readonly VectorRow[]): void {
    for (const row of rows) {
      if (row.id > this.maxId) this.maxId = row.id;
      this.seen++;
      if (row.vector.length !== this.dims) continue;
      if ((this.size + 1) * this.dims > this.matrix.length) {
        const grown = new Float32Array(this.matrix.length * 2);
        grown.set(this.matrix);
        this.matrix = grown;
      }
      let norm = 0;
      for (let i = 0; i < this.dims; i++) norm += (row.vector[i] as number) ** 2;
      norm = Math.sqrt(norm) || 1;
      const at = this.size * this.dims;
      for (let i = 0; i < this.dims; i++) this.matrix[at + i] = (row.vector[i] as number) / norm;
      this.ids.push(row.id);
      this.kinds.push(row.kind);
      this.sessions.push(row.sessionId);
      this.eventIds.push(row.eventId);
      this.times.push(row.timestampUs);
      this.size++;
    }
  }

  /** The `limit` rows most similar to `query` (cosine) among those the filter lets through. */
  nearest(query: Float32Array, limit: number, filter: VectorFilter): { id: number; score: number }[] {
    const dims = this.dims;
    let qn = 0;
    for (let i = 0; i < dims; i++) qn += (query[i] as number) ** 2;
    qn = Math.sqrt(qn) || 1;
    const q = new Float32Array(dims);
    for (let i = 0; i < dims; i++) q[i] = (query[i] as number) / qn;
    const filtered =
      filter.sessionId !== undefined ||
      filter.kinds !== undefined ||
      filter.fromUs !== undefined ||
      filter.toUs !== undefined ||
      (filter.excludedEventIds?.size ?? 0) > 0;
    // The best `limit` so far, best first; `floor` is the score a row must beat to enter.
    const top: { index: number; score: number }[] = [];
    let floor = Number.NEGATIVE_INFINITY;
    const m = this.matrix;
    for (let r = 0, at = 0; r < this.size; r++, at += dims) {
      let dot = 0;
      for (let i = 0; i < dims; i++) dot += (m[at + i] as number) * (q[i] as number);
      if (dot <= floor && top.length >= limit) continue;
      if (filtered && !this.passes(r, filter)) continue;
      let pos = top.length;
      while (pos > 0 && (top[pos - 1] as { score: number }).score < dot) pos--;
      top.splice(pos, 0, { index: r, score: dot });
      if (top.length > limit) top.pop();
      if (top.length >= limit) floor = (top[top.length - 1] as { score: number }).score;
    }
    return top.map((t) => ({ id: this.ids[t.index] as number, score: t.score }));
  }

  private passes(r: number, f: VectorFilter): boolean {
    if (f.sessionId !== undefined && this.sessions[r] !== f.sessionId) return false;
    if (f.kinds && !f.kinds.has(this.kinds[r] as string)) return false;
    const t = this.times[r] as number;
    if (f.fromUs !== undefined && t < f.fromUs) return false;
    if (f.toUs !== undefined && t > f.toUs) return false;
    if (f.excludedEventIds?.has(this.eventIds[r] as string)) return false;
    return true;
  }
}

export class VectorCache {
  private readonly users = new Map<string, UserVectors>();
  private readonly loading = new Map<string, Promise<UserVectors>>();

  constructor(private readonly options: { maxBytes: number; recheckMs: number }) {}

  /** The user's vectors, brought up to date with the store. */
  async vectors(key: string, dims: number, source: VectorSource): Promise<UserVectors> {
    const pending = this.loading.get(key);
    if (pending) return pending;
    const update = this.update(key, dims, source).finally(() => this.loading.delete(key));
    this.loading.set(key, update);
    return update;
  }

  private async update(key: string, dims: number, source: VectorSource): Promise<UserVectors> {
    let user = this.users.get(key);
    if (user && user.dims !== dims) user = undefined;
    const now = Date.now();
    if (user && now - user.checkedAt >= this.options.recheckMs) {
      user.add(await source.rowsAfter(user.maxId));
      // Rows held but gone from the store (another process deleted or replaced them): read again.
      if ((await source.count()) !== user.seen) user = undefined;
      else user.checkedAt = now;
    } else if (user) {
      user.add(await source.rowsAfter(user.maxId));
    }
    if (!user) {
      user = new UserVectors(dims);
      user.add(await source.rowsAfter(0));
      user.checkedAt = now;
    }
    user.lastUsed = now;
    this.users.delete(key);
    this.users.set(key, user);
    this.evict();
    return user;
  }

  /** Forgets a user's vectors (this process deleted some of them). */
  drop(key: string): void {
    this.users.delete(key);
  }

  private evict(): void {
    let total = 0;
    for (const user of this.users.values()) total += user.bytes;
    for (const [key, user] of this.users) {
      if (total <= this.options.maxBytes || this.users.size <= 1) break;
      this.users.delete(key);
      total -= user.bytes;
    }
  }
}
