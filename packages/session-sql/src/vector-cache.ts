/**
 * The memories of recently searched users, held in process memory for search: vectors as
 * unit-length Float32 rows, the words of each memory's search text in an inverted index, each
 * session's turns in time order, and the ids of superseded facts. A search then ranks by vector
 * (an exact scan of a contiguous matrix) and by words (BM25) and finds each hit's neighbouring turns
 * without a query, and reads only the winners' rows from the database.
 *
 * Kept current without trusting this process to see every write: each search first reads the rows
 * stored after the newest one held (an index range, empty when nothing changed), and at most every
 * `recheckMs` compares the number of rows held with the table's (another process's delete or
 * replace shows there, and the user's rows are read again). This process's own deletes drop the
 * user's entry at once. Bounded by `maxBytes` over all users, the least recently searched first out.
 */

/** One stored memory row, as the cache reads it. */
export interface VectorRow {
  id: number;
  /** Absent when the row has no vector (it is then found by its words only). */
  vector: Float32Array | undefined;
  kind: string;
  sessionId: string;
  eventId: string;
  /** µs since the epoch. */
  timestampUs: number;
  /** The normalised words the row is searched by (`search_text`), separated by single spaces. */
  searchText: string;
  /** The event id of the fact this one supersedes. */
  supersedes: string | null;
}

/** Which rows a search may return. */
export interface VectorFilter {
  sessionId?: string;
  kinds?: ReadonlySet<string>;
  /** µs, inclusive */
  fromUs?: number;
  /** µs, inclusive */
  toUs?: number;
}

export interface VectorSource {
  /** Rows with an id above `afterId` (all with 0), in id order. */
  rowsAfter(afterId: number): Promise<VectorRow[]>;
  /** How many rows the user has now. */
  count(): Promise<number>;
}

/** BM25's term-frequency saturation and length normalisation (the usual values). */
const BM25_K1 = 1.2;
const BM25_B = 0.75;

/** A ranked row: its id and score. */
export interface Scored {
  id: number;
  score: number;
}

/** One user's memories as held for search. Rows are addressed by their position (`r`). */
export class UserVectors {
  private readonly ids: number[] = [];
  private readonly kinds: string[] = [];
  private readonly sessions: string[] = [];
  private readonly eventIds: string[] = [];
  private readonly times: number[] = [];
  /** Whether row r has a vector (a row without one has zeros in the matrix). */
  private readonly hasVector: boolean[] = [];
  private matrix: Float32Array;
  /** Row position by row id. */
  private readonly positions = new Map<number, number>();
  /** Word ids, and per word the rows holding it (each once) with its count there. */
  private readonly words = new Map<string, number>();
  private readonly postings: number[][] = [];
  private readonly counts: number[][] = [];
  /** Each row's words (ids) in order, for phrases. */
  private readonly texts: Int32Array[] = [];
  private readonly lengths: number[] = [];
  private totalLength = 0;
  private wordSlots = 0;
  /** Positions of each session's turns, ordered by time, then id. */
  private readonly sessionTurns = new Map<string, number[]>();
  /** Event ids superseded by a fact of this user. */
  readonly superseded = new Set<string>();
  /** Scratch for accumulating word scores, one slot per row. */
  private scratch = new Float64Array(0);
  /** Rows held (the store's count of the user's rows when nothing was deleted). */
  size = 0;
  maxId = 0;
  checkedAt = 0;
  lastUsed = 0;

  constructor(readonly dims: number) {
    this.matrix = new Float32Array(dims * 64);
  }

  get bytes(): number {
    return this.matrix.byteLength + this.size * 160 + this.wordSlots * 12 + this.words.size * 64;
  }

  add(rows: readonly VectorRow[]): void {
    for (const row of rows) {
      if (row.id > this.maxId) this.maxId = row.id;
      if (this.positions.has(row.id)) continue;
      const r = this.size;
      if ((r + 1) * this.dims > this.matrix.length) {
        const grown = new Float32Array(this.matrix.length * 2);
        grown.set(this.matrix);
        this.matrix = grown;
      }
      const vector = row.vector?.length === this.dims ? row.vector : undefined;
      if (vector) {
        let norm = 0;
        for (let i = 0; i < this.dims; i++) norm += (vector[i] as number) ** 2;
        norm = Math.sqrt(norm) || 1;
        const at = r * this.dims;
        for (let i = 0; i < this.dims; i++) this.matrix[at + i] = (vector[i] as number) / norm;
      }
      this.hasVector.push(vector !== undefined);
      this.ids.push(row.id);
      this.kinds.push(row.kind);
      this.sessions.push(row.sessionId);
      this.eventIds.push(row.eventId);
      this.times.push(row.timestampUs);
      this.positions.set(row.id, r);
      this.indexWords(r, row.searchText);
      if (row.kind === 'turn') this.addTurn(r, row.sessionId);
      if (row.kind === 'fact' && row.supersedes !== null) this.superseded.add(row.supersedes);
      this.size++;
    }
  }

  private indexWords(r: number, text: string): void {
    const words = text === '' ? [] : text.split(' ');
    const ids = new Int32Array(words.length);
    const here = new Map<number, number>();
    let n = 0;
    for (const word of words) {
      let id = this.words.get(word);
      if (id === undefined) {
        id = this.postings.length;
        this.words.set(word, id);
        this.postings.push([]);
        this.counts.push([]);
      }
      ids[n++] = id;
      here.set(id, (here.get(id) ?? 0) + 1);
    }
    for (const [id, count] of here) {
      (this.postings[id] as number[]).push(r);
      (this.counts[id] as number[]).push(count);
    }
    this.texts.push(ids);
    this.lengths.push(n);
    this.totalLength += n;
    this.wordSlots += n + here.size * 2;
  }

  private addTurn(r: number, sessionId: string): void {
    let turns = this.sessionTurns.get(sessionId);
    if (!turns) {
      turns = [];
      this.sessionTurns.set(sessionId, turns);
    }
    // Rows mostly arrive in time order: search back from the end for the place.
    let at = turns.length;
    while (at > 0 && this.before(r, turns[at - 1] as number)) at--;
    turns.splice(at, 0, r);
  }

  /** Whether row a comes before row b in time (then id) order. */
  private before(a: number, b: number): boolean {
    const ta = this.times[a] as number;
    const tb = this.times[b] as number;
    return ta < tb || (ta === tb && (this.ids[a] as number) < (this.ids[b] as number));
  }

  /** The `limit` rows most similar to `query` (cosine) among those the filter lets through. */
  nearest(query: Float32Array, limit: number, filter: VectorFilter): Scored[] {
    const dims = this.dims;
    let qn = 0;
    for (let i = 0; i < dims; i++) qn += (query[i] as number) ** 2;
    qn = Math.sqrt(qn) || 1;
    const q = new Float32Array(dims);
    for (let i = 0; i < dims; i++) q[i] = (query[i] as number) / qn;
    const top = new TopRows(this, limit);
    const m = this.matrix;
    for (let r = 0, at = 0; r < this.size; r++, at += dims) {
      if (!this.hasVector[r]) continue;
      let dot = 0;
      for (let i = 0; i < dims; i++) dot += (m[at + i] as number) * (q[i] as number);
      if (top.beats(dot) && this.passes(r, filter)) top.add(r, dot);
    }
    return top.rows();
  }

  /**
   * The `limit` best rows by BM25 over the query's terms (any of them; a term of several words is
   * a phrase) among those the filter lets through; ties go to the newer row.
   */
  byWords(terms: readonly (readonly string[])[], limit: number, filter: VectorFilter): Scored[] {
    if (this.size === 0) return [];
    if (this.scratch.length < this.size) this.scratch = new Float64Array(Math.max(this.size, 1024) * 2);
    const acc = this.scratch;
    const touched: number[] = [];
    const average = this.totalLength / this.size || 1;
    for (const term of terms) {
      const ids = term.map((word) => this.words.get(word));
      if (ids.some((id) => id === undefined)) continue;
      const [rows, counts] = this.occurrences(ids as number[]);
      const df = rows.length;
      if (df === 0) continue;
      const idf = Math.log(1 + (this.size - df + 0.5) / (df + 0.5));
      for (let k = 0; k < df; k++) {
        const r = rows[k] as number;
        const tf = counts[k] as number;
        const norm = BM25_K1 * (1 - BM25_B + (BM25_B * (this.lengths[r] as number)) / average);
        if (acc[r] === 0) touched.push(r);
        acc[r] = (acc[r] as number) + (idf * tf * (BM25_K1 + 1)) / (tf + norm);
      }
    }
    const top = new TopRows(this, limit);
    for (const r of touched) {
      const score = acc[r] as number;
      acc[r] = 0;
      if (top.beats(score) && this.passes(r, filter)) top.add(r, score);
    }
    return top.rows();
  }

  /** The rows holding a word (ids.length 1) or a phrase, with how often. */
  private occurrences(ids: readonly number[]): [readonly number[], readonly number[]] {
    const first = ids[0] as number;
    if (ids.length === 1) return [this.postings[first] as number[], this.counts[first] as number[]];
    const rows: number[] = [];
    const counts: number[] = [];
    for (const r of this.postings[first] as number[]) {
      const text = this.texts[r] as Int32Array;
      let count = 0;
      for (let at = 0; at + ids.length <= text.length; at++) {
        let k = 0;
        while (k < ids.length && text[at + k] === ids[k]) k++;
        if (k === ids.length) count++;
      }
      if (count > 0) {
        rows.push(r);
        counts.push(count);
      }
    }
    return [rows, counts];
  }

  /**
   * The ids of the turns just before and after the row `id` in its session (earlier ones first, in
   * time order), or undefined when the row is not a turn held here.
   */
  around(id: number, before: number, after: number): { before: number[]; after: number[] } | undefined {
    const r = this.positions.get(id);
    if (r === undefined || this.kinds[r] !== 'turn') return undefined;
    const turns = this.sessionTurns.get(this.sessions[r] as string) as number[];
    // Binary search for the row's place in its session's time order.
    let lo = 0;
    let hi = turns.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.before(turns[mid] as number, r)) lo = mid + 1;
      else hi = mid;
    }
    const idOf = (p: number) => this.ids[turns[p] as number] as number;
    const earlier: number[] = [];
    for (let p = Math.max(0, lo - before); p < lo; p++) earlier.push(idOf(p));
    const later: number[] = [];
    for (let p = lo + 1; p <= Math.min(turns.length - 1, lo + after); p++) later.push(idOf(p));
    return { before: earlier, after: later };
  }

  /** A row's kind and time (µs), by id. */
  describe(id: number): { kind: string; timestampUs: number } | undefined {
    const r = this.positions.get(id);
    return r === undefined
      ? undefined
      : { kind: this.kinds[r] as string, timestampUs: this.times[r] as number };
  }

  /** Whether row `a` ranks before row `b` at equal score: the newer one, then the higher id. */
  newer(a: number, b: number): boolean {
    return this.before(b, a);
  }

  idAt(r: number): number {
    return this.ids[r] as number;
  }

  private passes(r: number, f: VectorFilter): boolean {
    if (f.sessionId !== undefined && this.sessions[r] !== f.sessionId) return false;
    if (f.kinds && !f.kinds.has(this.kinds[r] as string)) return false;
    const t = this.times[r] as number;
    if (f.fromUs !== undefined && t < f.fromUs) return false;
    if (f.toUs !== undefined && t > f.toUs) return false;
    if (this.superseded.size > 0 && this.superseded.has(this.eventIds[r] as string)) return false;
    return true;
  }
}

/** The best `limit` rows seen so far, best first (equal scores: the newer row first). */
class TopRows {
  private readonly top: { r: number; score: number }[] = [];

  constructor(
    private readonly user: UserVectors,
    private readonly limit: number,
  ) {}

  /** Whether a row with this score could enter (cheap; checked before the filter). */
  beats(score: number): boolean {
    if (this.limit <= 0) return false;
    if (this.top.length < this.limit) return true;
    return score >= (this.top[this.top.length - 1] as { score: number }).score;
  }

  add(r: number, score: number): void {
    const top = this.top;
    let pos = top.length;
    while (pos > 0) {
      const prev = top[pos - 1] as { r: number; score: number };
      if (prev.score > score || (prev.score === score && !this.user.newer(r, prev.r))) break;
      pos--;
    }
    if (pos >= this.limit) return;
    top.splice(pos, 0, { r, score });
    if (top.length > this.limit) top.pop();
  }

  rows(): Scored[] {
    return this.top.map((t) => ({ id: this.user.idAt(t.r), score: t.score }));
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
      if ((await source.count()) !== user.size) user = undefined;
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
