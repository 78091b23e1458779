import {
  type AddEventsToMemoryParams,
  type AddMemoryParams,
  CachingEmbedder,
  ConfigError,
  type Content,
  contentText,
  type DeleteMemoriesParams,
  type DeleteMemoryParams,
  type EmbeddingTaskType,
  type EmbedOptions,
  type Event,
  extractKeywords,
  isPlainObject,
  type ListMemoriesParams,
  type MemoryEntry,
  type MemoryJobQueue,
  type MemoryKind,
  type MemoryRanks,
  type MemorySearchExplanation,
  type MemoryService,
  memoryTextKey,
  newId,
  parseJson,
  type SearchMemoryParams,
  type SearchMemoryResult,
  type Session,
  ValidationError,
  visibleEvents,
} from '@adk/core';
import { type RawBuilder, sql } from 'kysely';
import { type KyselyFromUrlOptions, kyselyFromUrl, splitConnectionOptions } from './connect.js';
import { stringifyJson } from './dialects/flavor.js';
import { ftsQuery, queryTerms, searchText, tsQuery } from './memory-text.js';
import { microsFromMs, msFromMicros } from './rows.js';
import { storageTablesFor } from './schema/storage-tables.js';
import { SqlStore, type SqlStoreOptions } from './sql-store.js';
import { type Scored, type UserVectors, VectorCache, type VectorFilter } from './vector-cache.js';

/**
 * A pluggable embedding model for vector search (used when pgvector is available). Any `Embedder`
 * from `@adk/core` fits (e.g. `GeminiEmbedder`, `OpenAIEmbedder`, `aiSdkEmbedder(…)`): stored turns
 * are embedded with task type `RETRIEVAL_DOCUMENT`, queries with `RETRIEVAL_QUERY`.
 */
export interface MemoryEmbeddings {
  /** Length of every vector `embed` returns. */
  readonly dimensions: number;
  /** One vector per text, in order. */
  embed(texts: string[], options?: EmbedOptions): Promise<number[][]>;
  /**
   * Fail (ConfigError) when vector search cannot be used here — SQLite, or Postgres without the
   * `vector` extension. Default false: search falls back to full-text ranking alone.
   */
  required?: boolean;
}

export interface SqlMemoryServiceOptions extends SqlStoreOptions {
  /**
   * Adds vector similarity to the full-text ranking: pgvector's HNSW index where the extension
   * exists, else Float32 blobs scanned exactly per user in JS (PGlite 0.5, SQLite, plain Postgres).
   */
  embeddings?: MemoryEmbeddings;
  /** Query embeddings kept in a bounded LRU (default 1000; 0 turns the cache off). */
  queryCacheSize?: number;
  /**
   * SQLite: rank vectors with the `sqlite-vec` extension when the connection has it loaded
   * (default true; `kyselyFromUrl` loads it when installed); false scans the blobs in JS.
   */
  sqliteVec?: boolean;
  /** A job outbox the Runner enqueues each committed turn to (e.g. `SqlMemoryJobQueue`). */
  jobs?: MemoryJobQueue;
  /**
   * Without pgvector, the memories of recently searched users (vectors, words, each session's turn
   * order) are held in this process's memory, and a search ranks them there and reads only the
   * winners' rows (bytes over all users, the least recently searched dropped first; default
   * 128 MiB, 0 turns it off and every search ranks in SQL). Each search reads what was stored
   * since, so the cache never hides a new memory; deletes by other processes show within
   * `vectorRecheckMs`.
   */
  vectorCacheBytes?: number;
  /** How often a cached user's row count is compared with the store's, ms (default 2000). */
  vectorRecheckMs?: number;
}

interface EntryRow {
  id: number | string;
  event_id: string;
  kind: string;
  content: string;
  author: string | null;
  timestamp_us: number | string | null;
  session_id: string;
  source_event_ids: string | null;
  valid_from: number | string | null;
  supersedes: string | null;
  keywords: string | null;
  custom_metadata: string | null;
  score: number | string;
}

const KIND_ORDER: Record<string, number> = { fact: 0, observation: 1, turn: 2 };

/** Rows per multi-row insert: well below every dialect's bound-parameter limit. */
const INSERT_BATCH = 100;
/** Reciprocal-rank-fusion constant for merging full-text and vector rankings. */
const RRF_K = 60;

/** A ranked memory: its row id, fused score and ranks, kind and time (and its row when read). */
interface Ranked extends Scored {
  ranks: MemoryRanks;
  kind: string;
  timestampUs: number;
  row?: EntryRow;
}

/** Rankings fused by reciprocal rank: agreement between them counts most. */
function fuse(
  rankings: readonly (readonly [keyof MemoryRanks, readonly Scored[]])[],
): Omit<Ranked, 'kind' | 'timestampUs'>[] {
  const fused = new Map<number, { id: number; score: number; ranks: MemoryRanks }>();
  for (const [ranker, ranking] of rankings)
    ranking.forEach(({ id }, rank) => {
      const entry = fused.get(id) ?? { id, score: 0, ranks: {} };
      entry.score += 1 / (RRF_K + rank + 1);
      entry.ranks[ranker] = rank + 1;
      fused.set(id, entry);
    });
  return [...fused.values()];
}

/**
 * Long-term memory in the session database. Every event with text becomes an entry, searchable by
 * full text — a `tsvector` column with a GIN index on Postgres and PGlite, an FTS5 index on SQLite —
 * scoped to the app and user and ranked (`ts_rank`, `bm25`). With `embeddings` and pgvector, vector
 * similarity is fused into the ranking. See the package README.
 */
export class SqlMemoryService extends SqlStore implements MemoryService {
  /** The job outbox given in the options (the Runner enqueues each committed turn there). */
  readonly jobs?: MemoryJobQueue;
  private readonly entriesName: string;
  private readonly entries;
  private readonly fts;
  private readonly queryEmbedder: CachingEmbedder | undefined;
  private vectorReady: Promise<VectorMode> | undefined;
  private readonly vectorCache: VectorCache | undefined;

  constructor(private readonly options: SqlMemoryServiceOptions) {
    super(options);
    const t = storageTablesFor(this.prefix);
    this.entriesName = t.memoryEntries;
    this.entries = sql.table(t.memoryEntries);
    this.fts = sql.table(t.memoryFts);
    if (options.jobs) this.jobs = options.jobs;
    const cacheBytes = options.vectorCacheBytes ?? 128 * 1024 * 1024;
    if (options.embeddings && cacheBytes > 0)
      this.vectorCache = new VectorCache({
        maxBytes: cacheBytes,
        recheckMs: options.vectorRecheckMs ?? 2000,
      });
    if (options.embeddings) {
      const { dimensions } = options.embeddings;
      if (!Number.isInteger(dimensions) || dimensions < 1 || dimensions > 16000)
        throw new ValidationError(`embeddings.dimensions must be an integer in 1..16000, got ${dimensions}`);
      const e = options.embeddings;
      if ((options.queryCacheSize ?? 1000) > 0)
        this.queryEmbedder = new CachingEmbedder(
          { model: 'memory-embeddings', dimensions, embed: (texts, o) => e.embed([...texts], o) },
          options.queryCacheSize ?? 1000,
        );
    }
  }

  /** A service on its own database, built from a URL (see `kyselyFromUrl`); close() releases it. */
  static async fromUrl(
    url = 'pglite://memory',
    options: Omit<SqlMemoryServiceOptions, 'db'> & KyselyFromUrlOptions = {},
  ): Promise<SqlMemoryService> {
    const { connection, rest } = splitConnectionOptions(options);
    const db = await kyselyFromUrl(url, connection);
    return new SqlMemoryService({ destroyOnClose: true, ...rest, db });
  }

  /**
   * Whether vector search is in use: `embeddings` was given. With pgvector the embedding column
   * and its HNSW index are created on first use; without it vectors are Float32 blobs.
   */
  async vectorSearchEnabled(): Promise<boolean> {
    return (await this.vectorMode()) !== 'none';
  }

  /**
   * How vectors are stored and searched: `'pgvector'` (HNSW), `'sqlite-vec'` (Float32 blobs ranked
   * by the extension inside SQLite), `'blob'` (Float32 blobs scanned exactly in JS) or `'none'`.
   */
  async vectorMode(): Promise<VectorMode> {
    if (!this.options.embeddings) return 'none';
    await this.ready();
    this.vectorReady ??= this.prepareVectors();
    try {
      return await this.vectorReady;
    } catch (error) {
      this.vectorReady = undefined;
      throw error;
    }
  }

  /**
   * Indexes the session's events that carry text. Events already indexed are kept as they are
   * (events are immutable); turns of events no longer in the session are removed.
   */
  async addSessionToMemory(session: Session, options?: { signal?: AbortSignal }): Promise<void> {
    options?.signal?.throwIfAborted();
    const events = visibleEvents(session.events);
    const { appName, userId, id: sessionId } = session;
    const ids = stringifyJson(
      events.map((e) => e.id),
      'event ids',
    );
    await this.ready();
    const gone =
      this.family === 'postgres'
        ? sql`event_id not in (select jsonb_array_elements_text(${ids}::jsonb))`
        : sql`event_id not in (select value from json_each(${ids}))`;
    await sql`delete from ${this.entries}
      where app_name = ${appName} and user_id = ${userId} and session_id = ${sessionId} and kind = 'turn' and ${gone}`.execute(
      this.db,
    );
    this.forgetVectors(appName, userId);
    await this.addEventsToMemory({
      appName,
      userId,
      sessionId,
      events,
      ...(options?.signal ? { signal: options.signal } : {}),
    });
  }

  async addEventsToMemory(params: AddEventsToMemoryParams): Promise<void> {
    params.signal?.throwIfAborted();
    const sessionId = params.sessionId ?? '';
    const candidates: NewRow[] = [];
    const seen = new Set<string>();
    for (const event of params.events) {
      if (!event.content || event.partial || seen.has(event.id)) continue;
      const text = contentText(event.content);
      if (!text.trim()) continue;
      seen.add(event.id);
      candidates.push(turnRow(event, text, sessionId, params.customMetadata));
    }
    if (candidates.length === 0) return;
    await this.ready();
    const { appName, userId } = params;
    const known = await sql<{ event_id: string }>`select event_id from ${this.entries}
      where app_name = ${appName} and user_id = ${userId} and session_id = ${sessionId}`.execute(this.db);
    const stored = new Set(known.rows.map((r) => r.event_id));
    const fresh = candidates.filter((c) => !stored.has(c.id));
    if (fresh.length === 0) return;
    await this.insertRows(appName, userId, fresh, params.signal, false);
  }

  async addMemory(params: AddMemoryParams): Promise<string[]> {
    params.signal?.throwIfAborted();
    await this.ready();
    const { appName, userId } = params;
    const ids: string[] = [];
    const rows: NewRow[] = [];
    for (const memory of params.memories) {
      const kind = memory.kind ?? 'turn';
      const text = contentText(memory.content);
      const key = await contentKey(kind, text);
      if (kind === 'fact') {
        const pending = rows.find((r) => r.kind === 'fact' && r.contentKey === key);
        const { rows: same } = await sql<{ event_id: string }>`select event_id from ${this.entries}
          where app_name = ${appName} and user_id = ${userId} and content_key = ${key} and kind = 'fact' limit 1`.execute(
          this.db,
        );
        const existing = pending?.id ?? same[0]?.event_id;
        if (existing) {
          ids.push(existing);
          continue;
        }
      }
      const id = memory.id ?? newId();
      ids.push(id);
      rows.push({
        id,
        kind,
        sessionId: memory.sessionId ?? '',
        author: memory.author ?? null,
        timestamp: memory.timestamp ?? Date.now(),
        content: memory.content,
        text,
        sourceEventIds: memory.eventIds ?? [],
        // A whole ms: the column is a bigint (event timestamps carry µs fractions).
        validFrom: memory.validFrom == null ? null : Math.floor(memory.validFrom),
        supersedes: memory.supersedes ?? null,
        keywords: memory.keywords ?? extractKeywords(text),
        contentKey: key,
        customMetadata:
          params.customMetadata || memory.customMetadata
            ? { ...params.customMetadata, ...memory.customMetadata }
            : null,
      });
    }
    if (rows.length > 0) await this.insertRows(appName, userId, rows, params.signal, true);
    return ids;
  }

  /** Drops the user's vectors held in memory: this process removed or replaced some of them. */
  private forgetVectors(appName: string, userId: string): void {
    this.vectorCache?.drop(vectorKey(appName, userId));
  }

  async deleteMemory(params: DeleteMemoryParams): Promise<boolean> {
    params.signal?.throwIfAborted();
    await this.ready();
    const { rows } = await sql<{ id: unknown }>`delete from ${this.entries}
      where app_name = ${params.appName} and user_id = ${params.userId} and event_id = ${params.id}
      returning id`.execute(this.db);
    if (rows.length > 0) this.forgetVectors(params.appName, params.userId);
    return rows.length > 0;
  }

  async deleteMemories(params: DeleteMemoriesParams): Promise<number> {
    params.signal?.throwIfAborted();
    await this.ready();
    if (params.ids && params.ids.length === 0) return 0;
    const where: RawBuilder<unknown>[] = [sql`app_name = ${params.appName}`, sql`user_id = ${params.userId}`];
    if (params.ids) where.push(sql`event_id in (${sql.join(params.ids.map((id) => sql`${id}`))})`);
    if (params.sessionId !== undefined) where.push(sql`session_id = ${params.sessionId}`);
    if (params.kinds) {
      if (params.kinds.length === 0) return 0;
      where.push(sql`kind in (${sql.join(params.kinds.map((k) => sql`${k}`))})`);
    }
    if (params.before !== undefined)
      where.push(sql`"timestamp" < ${this.f.time(microsFromMs(params.before))}`);
    const { rows } = await sql<{ id: unknown }>`delete from ${this.entries}
      where ${sql.join(where, sql` and `)} returning id`.execute(this.db);
    if (rows.length > 0) this.forgetVectors(params.appName, params.userId);
    return rows.length;
  }

  private async insertRows(
    appName: string,
    userId: string,
    rows: NewRow[],
    signal: AbortSignal | undefined,
    replace: boolean,
  ): Promise<void> {
    const mode = await this.vectorMode();
    const embeddings =
      mode !== 'none'
        ? await this.embed(
            rows.map((c) => c.text),
            'RETRIEVAL_DOCUMENT',
            signal,
          )
        : undefined;
    signal?.throwIfAborted();
    const f = this.f;
    let replaced = false;
    await this.db.transaction().execute(async (trx) => {
      if (replace) {
        const gone = await sql`delete from ${this.entries} where app_name = ${appName} and user_id = ${userId}
          and event_id in (${sql.join(rows.map((r) => sql`${r.id}`))}) returning id`.execute(trx);
        replaced = gone.rows.length > 0;
      }
      for (let start = 0; start < rows.length; start += INSERT_BATCH) {
        const batch = rows.slice(start, start + INSERT_BATCH);
        const values = batch.map((c, i) => {
          const v: RawBuilder<unknown>[] = [
            sql`${appName}`,
            sql`${userId}`,
            sql`${c.sessionId}`,
            sql`${c.id}`,
            sql`${c.kind}`,
            sql`${c.author}`,
            f.time(microsFromMs(c.timestamp)),
            f.json(c.content),
            sql`${searchText(c.text)}`,
            f.json(c.sourceEventIds),
            sql`${c.validFrom}`,
            sql`${c.supersedes}`,
            sql`${c.keywords.join(' ')}`,
            sql`${c.contentKey}`,
            c.customMetadata ? f.json(c.customMetadata) : sql`null`,
          ];
          const vector = embeddings?.[start + i];
          if (mode === 'pgvector') v.push(vector ? sql`${vectorLiteral(vector)}::vector` : sql`null`);
          if (mode === 'blob' || mode === 'sqlite-vec')
            v.push(vector ? sql`${float32Blob(vector)}` : sql`null`);
          return sql`(${sql.join(v)})`;
        });
        const vectorColumn =
          mode === 'pgvector' ? sql`, embedding` : mode === 'none' ? sql`` : sql`, vector_blob`;
        await sql`insert into ${this.entries} (app_name, user_id, session_id, event_id, kind, author, "timestamp",
            content, search_text, source_event_ids, valid_from, supersedes, keywords, content_key, custom_metadata${vectorColumn})
          values ${sql.join(values)}
          on conflict (app_name, user_id, session_id, event_id) do nothing`.execute(trx);
      }
    });
    if (replaced) this.forgetVectors(appName, userId);
  }

  async searchMemory(params: SearchMemoryParams): Promise<SearchMemoryResult> {
    params.signal?.throwIfAborted();
    const limit = params.limit ?? 10;
    if (!Number.isFinite(limit)) throw new ValidationError(`limit must be a finite number, got ${limit}`);
    if (params.scope === 'session' && params.sessionId === undefined)
      throw new ValidationError("searchMemory: scope 'session' needs a sessionId");
    const terms = queryTerms(params.query);
    if (limit <= 0 || !params.query.trim()) return { memories: [] };
    if (params.kinds && params.kinds.length === 0) return { memories: [] };
    await this.ready();
    // More candidates than asked: facts are moved first and minScore drops some.
    const candidates = Math.floor(limit) * 3 + 10;
    const mode = await this.vectorMode();
    const held = await this.held(mode, params);
    params.signal?.throwIfAborted();
    let ranked: Ranked[];
    if (held) {
      // Both rankings from the memories held in process; rows are read for the winners only.
      const vector = await this.embedQuery(params);
      ranked = fuse([
        ['fullText', held.user.byWords(terms, candidates, held.filter)],
        ['vector', vector ? held.user.nearest(Float32Array.from(vector), candidates, held.filter) : []],
      ]).map((r) => ({ ...r, ...(held.user.describe(r.id) as { kind: string; timestampUs: number }) }));
    } else {
      const textRows = terms.length > 0 ? await this.fullText(params, terms, candidates) : [];
      params.signal?.throwIfAborted();
      const vectorRows = mode === 'none' ? [] : await this.nearestBy(mode, params, candidates);
      const rowsById = new Map([...textRows, ...vectorRows].map((row) => [Number(row.id), row]));
      const scored = (rows: EntryRow[]) =>
        rows.map((row) => ({ id: Number(row.id), score: Number(row.score) }));
      ranked = (
        mode === 'none'
          ? scored(textRows).map((r, i) => ({ ...r, ranks: { fullText: i + 1 } }))
          : fuse([
              ['fullText', scored(textRows)],
              ['vector', scored(vectorRows)],
            ])
      ).map((r) => {
        const row = rowsById.get(r.id) as EntryRow;
        return { ...r, kind: row.kind, timestampUs: Number(row.timestamp_us ?? 0), row };
      });
    }
    // Best score first; at equal score the newer memory.
    ranked.sort((a, b) => b.score - a.score || b.timestampUs - a.timestampUs);
    if (params.minScore !== undefined) {
      const min = params.minScore;
      ranked = ranked.filter((r) => r.score >= min);
    }
    const order = ranked.map((r, i) => ({ ...r, at: i }));
    order.sort((a, b) => (KIND_ORDER[a.kind] ?? 2) - (KIND_ORDER[b.kind] ?? 2) || a.at - b.at);
    const top = order.slice(0, Math.floor(limit));
    const window = params.window;
    let rows: Map<number, EntryRow>;
    let around: Map<number, EntryRow[]> | undefined;
    if (held) {
      // The hits' rows and their neighbours' in one read.
      const sides = window
        ? new Map(top.map((r) => [r.id, held.user.around(r.id, window.before, window.after)]))
        : undefined;
      const wanted = new Set(top.map((r) => r.id));
      for (const side of sides?.values() ?? [])
        for (const id of [...(side?.before ?? []), ...(side?.after ?? [])]) wanted.add(id);
      rows = await this.rowsById([...wanted]);
      if (sides) {
        around = new Map();
        for (const [id, side] of sides)
          if (side)
            around.set(
              id,
              [...side.before, ...side.after].flatMap((n) => {
                const row = rows.get(n);
                return row ? [row] : [];
              }),
            );
      }
    } else {
      rows = new Map(top.map((r) => [r.id, r.row as EntryRow]));
      if (window)
        around = await this.neighbours(
          params,
          top.flatMap((r) => (r.kind === 'turn' ? [r.row as EntryRow] : [])),
          window,
        );
    }
    const memories: MemoryEntry[] = [];
    for (const { id, score, ranks } of top) {
      const row = rows.get(id);
      if (!row) continue; // deleted since it was ranked
      const entry = toEntry(row, score);
      entry.ranks = ranks;
      if (around && row.kind === 'turn')
        entry.neighbours = (around.get(id) ?? []).map((n) => {
          const { score: _s, ...neighbour } = toEntry(n, 0);
          return neighbour;
        });
      memories.push(entry);
    }
    return { memories };
  }

  private columns(): RawBuilder<unknown> {
    const f = this.f;
    return sql`e.id, e.event_id, e.kind, ${f.jsonText(sql`e.content`)} as content, e.author,
      ${f.micros(sql`e."timestamp"`)} as timestamp_us, e.session_id,
      ${f.jsonText(sql`e.source_event_ids`)} as source_event_ids, e.valid_from, e.supersedes, e.keywords,
      ${f.jsonText(sql`e.custom_metadata`)} as custom_metadata`;
  }

  /** The filters every ranking shares: user, scope, kinds, time range, and no superseded fact. */
  private filters(params: SearchMemoryParams): RawBuilder<unknown> {
    const where: RawBuilder<unknown>[] = [
      sql`e.app_name = ${params.appName}`,
      sql`e.user_id = ${params.userId}`,
    ];
    if (params.scope === 'session') where.push(sql`e.session_id = ${params.sessionId}`);
    if (params.kinds) where.push(sql`e.kind in (${sql.join(params.kinds.map((k) => sql`${k}`))})`);
    const range = params.timeRange;
    if (range?.from !== undefined) where.push(sql`e."timestamp" >= ${this.f.time(microsFromMs(range.from))}`);
    if (range?.to !== undefined) where.push(sql`e."timestamp" <= ${this.f.time(microsFromMs(range.to))}`);
    // Uncorrelated, so it is computed once per query (a correlated `not exists` became a nested
    // loop over the user's entries per row on Postgres: quadratic in the user's history).
    where.push(sql`e.event_id not in (${this.supersededIds(params)})`);
    return sql.join(where, sql` and `);
  }

  /** The event ids of the user's superseded facts (a subquery). */
  private supersededIds(params: { appName: string; userId: string }): RawBuilder<unknown> {
    return sql`select s.supersedes from ${this.entries} as s
      where s.app_name = ${params.appName} and s.user_id = ${params.userId} and s.kind = 'fact'
      and s.supersedes is not null`;
  }

  private async fullText(params: SearchMemoryParams, terms: string[][], limit: number): Promise<EntryRow[]> {
    const held = await this.held(await this.vectorMode(), params);
    if (held) return this.rowsOf(held.user.byWords(terms, limit, held.filter));
    // The ranking picks ids and scores; only the winners' columns are read (reading them for every
    // match made a search grow with the number of matching entries).
    const ranked =
      this.family === 'postgres'
        ? sql`select e.id, ts_rank(e.search_vector, q.query)::float8 as score
          from ${this.entries} as e, (select to_tsquery('simple'::regconfig, ${tsQuery(terms)}) as query) as q
          where ${this.filters(params)} and e.search_vector @@ q.query
          order by score desc, e."timestamp" desc, e.id desc
          limit ${limit}`
        : sql`select e.id, -bm25(${this.fts}) as score
          from ${this.fts} join ${this.entries} as e on e.id = ${this.fts}.rowid
          where ${this.fts} match ${ftsQuery(terms)} and ${this.filters(params)}
          order by bm25(${this.fts}), e."timestamp" desc, e.id desc
          limit ${limit}`;
    const { rows } = await sql<EntryRow>`
      select ${this.columns()}, r.score as score
      from (${ranked}) as r join ${this.entries} as e on e.id = r.id
      order by r.score desc, e."timestamp" desc, e.id desc`.execute(this.db);
    return rows;
  }

  private async nearest(params: SearchMemoryParams, limit: number): Promise<EntryRow[]> {
    const vector = await this.embedQuery(params);
    if (!vector) return [];
    const { rows } = await sql<EntryRow>`
      select ${this.columns()}, (1 - (e.embedding <=> ${vectorLiteral(vector)}::vector))::float8 as score
      from ${this.entries} as e
      where ${this.filters(params)} and e.embedding is not null
      order by e.embedding <=> ${vectorLiteral(vector)}::vector
      limit ${limit}`.execute(this.db);
    return rows;
  }

  /** Exact cosine ranking of the user's Float32 blobs by `sqlite-vec`, inside SQLite. */
  private async nearestInSqlite(params: SearchMemoryParams, limit: number): Promise<EntryRow[]> {
    const vector = await this.embedQuery(params);
    if (!vector) return [];
    const query = float32Blob(vector);
    const { rows } = await sql<EntryRow>`
      select ${this.columns()}, 1 - r.distance as score
      from (select e.id, vec_distance_cosine(e.vector_blob, ${query}) as distance
        from ${this.entries} as e
        where ${this.filters(params)} and e.vector_blob is not null and length(e.vector_blob) = ${query.byteLength}
        order by distance, e.id
        limit ${limit}) as r join ${this.entries} as e on e.id = r.id
      order by r.distance, e.id`.execute(this.db);
    return rows;
  }

  /**
   * The `limit` nearest memories by vector: pgvector's index, else the memories held in process,
   * else `sqlite-vec` or a scan of the blobs.
   */
  private async nearestBy(mode: VectorMode, params: SearchMemoryParams, limit: number): Promise<EntryRow[]> {
    if (mode === 'pgvector') return this.nearest(params, limit);
    const held = await this.held(mode, params);
    if (held) {
      const vector = await this.embedQuery(params);
      return vector ? this.rowsOf(held.user.nearest(Float32Array.from(vector), limit, held.filter)) : [];
    }
    return mode === 'sqlite-vec' ? this.nearestInSqlite(params, limit) : this.nearestByScan(params, limit);
  }

  /**
   * The user's memories held in process, brought up to date, with the search's filter; undefined
   * when they are not held (no embeddings, pgvector, or the cache is off).
   */
  private async held(
    mode: VectorMode,
    params: SearchMemoryParams,
  ): Promise<{ user: UserVectors; filter: VectorFilter } | undefined> {
    const cache = this.vectorCache;
    if (!cache || mode === 'pgvector' || mode === 'none') return undefined;
    const { appName, userId } = params;
    const f = this.f;
    const dims = (this.options.embeddings as MemoryEmbeddings).dimensions;
    const user = await cache.vectors(vectorKey(appName, userId), dims, {
      rowsAfter: async (afterId) => {
        // A first read finds the user's rows by index; a later one reads only the ids above the
        // newest held, by primary key (an index on the user would visit all of the user's rows).
        const owner =
          afterId === 0
            ? sql`e.app_name = ${appName} and e.user_id = ${userId}`
            : sql`e.id > ${afterId} and (e.app_name || '') = ${appName} and (e.user_id || '') = ${userId}`;
        const { rows } = await sql<{
          id: number | string;
          vector_blob: Uint8Array | null;
          kind: string;
          session_id: string;
          event_id: string;
          timestamp_us: number | string;
          search_text: string;
          supersedes: string | null;
        }>`select e.id, e.vector_blob, e.kind, e.session_id, e.event_id,
            ${f.micros(sql`e."timestamp"`)} as timestamp_us, e.search_text, e.supersedes
          from ${this.entries} as e
          where ${owner}
          order by e.id`.execute(this.db);
        return rows.map((row) => ({
          id: Number(row.id),
          vector: row.vector_blob ? float32View(row.vector_blob) : undefined,
          kind: row.kind,
          sessionId: row.session_id,
          eventId: row.event_id,
          timestampUs: Number(row.timestamp_us),
          searchText: row.search_text,
          supersedes: row.supersedes,
        }));
      },
      count: async () => {
        const { rows } = await sql<{ n: number | string }>`select count(*) as n from ${this.entries} as e
          where e.app_name = ${appName} and e.user_id = ${userId}`.execute(this.db);
        return Number(rows[0]?.n ?? 0);
      },
    });
    const range = params.timeRange;
    const filter: VectorFilter = {
      ...(params.scope === 'session' && params.sessionId !== undefined
        ? { sessionId: params.sessionId }
        : {}),
      ...(params.kinds ? { kinds: new Set<string>(params.kinds) } : {}),
      ...(range?.from !== undefined ? { fromUs: microsFromMs(range.from) } : {}),
      ...(range?.to !== undefined ? { toUs: microsFromMs(range.to) } : {}),
    };
    return { user, filter };
  }

  /** The rows of ranked ids, in rank order, with their scores (a row deleted meanwhile is left out). */
  private async rowsOf(top: readonly { id: number | string; score: number }[]): Promise<EntryRow[]> {
    const byId = await this.rowsById(top.map((t) => Number(t.id)));
    return top.flatMap((t) => {
      const row = byId.get(Number(t.id));
      return row ? [{ ...row, score: t.score }] : [];
    });
  }

  /** The rows with these ids (score 0), by id; ids deleted meanwhile are absent. */
  private async rowsById(ids: readonly number[]): Promise<Map<number, EntryRow>> {
    if (ids.length === 0) return new Map();
    const { rows } = await sql<EntryRow>`select ${this.columns()}, 0 as score from ${this.entries} as e
      where e.id in (${sql.join(ids.map((id) => sql`${id}`))})`.execute(this.db);
    return new Map(rows.map((row) => [Number(row.id), row]));
  }

  /** Exact cosine scan over the user's Float32 blobs (no pgvector), then the winners' rows. */
  private async nearestByScan(params: SearchMemoryParams, limit: number): Promise<EntryRow[]> {
    const vector = await this.embedQuery(params);
    if (!vector) return [];
    const query = Float32Array.from(vector);
    let qn = 0;
    for (const x of query) qn += x * x;
    qn = Math.sqrt(qn) || 1;
    const { rows } = await sql<{ id: number | string; vector_blob: Uint8Array }>`
      select e.id, e.vector_blob from ${this.entries} as e
      where ${this.filters(params)} and e.vector_blob is not null`.execute(this.db);
    params.signal?.throwIfAborted();
    const top: { id: number | string; score: number }[] = [];
    for (const row of rows) {
      const b = row.vector_blob;
      const v = float32View(b);
      if (v.length !== query.length) continue;
      let dot = 0;
      let vn = 0;
      for (let i = 0; i < v.length; i++) {
        const x = v[i] as number;
        dot += x * (query[i] as number);
        vn += x * x;
      }
      const score = dot / (qn * (Math.sqrt(vn) || 1));
      if (top.length < limit || score > (top[top.length - 1]?.score ?? -2)) {
        top.push({ id: row.id, score });
        top.sort((a, b) => b.score - a.score);
        if (top.length > limit) top.pop();
      }
    }
    return this.rowsOf(top);
  }

  /**
   * The turns just before and after each hit in its own session, by hit row id: one statement for
   * all hits (a pair of statements per hit made the window cost more than the search).
   */
  private async neighbours(
    params: SearchMemoryParams,
    hits: readonly EntryRow[],
    window: { before: number; after: number },
  ): Promise<Map<number, EntryRow[]>> {
    const before = Math.max(0, Math.floor(window.before));
    const after = Math.max(0, Math.floor(window.after));
    const found = new Map<number, EntryRow[]>(hits.map((hit) => [Number(hit.id), []]));
    if (hits.length === 0 || before + after === 0) return found;
    const sides: RawBuilder<unknown>[] = [];
    hits.forEach((hit, at) => {
      const same = sql`e.app_name = ${params.appName} and e.user_id = ${params.userId} and e.session_id = ${hit.session_id} and e.kind = 'turn'`;
      const t = sql`(select "timestamp" from ${this.entries} where id = ${hit.id})`;
      // Each side is a subquery in FROM, so that its order and limit hold on every dialect.
      if (before > 0)
        sides.push(sql`select * from (select ${this.columns()}, ${at} as hit, -1 as side from ${this.entries} as e
          where ${same} and (e."timestamp" < ${t} or (e."timestamp" = ${t} and e.id < ${hit.id}))
          order by e."timestamp" desc, e.id desc limit ${before}) as ${sql.id(`b${at}`)}`);
      if (after > 0)
        sides.push(sql`select * from (select ${this.columns()}, ${at} as hit, 1 as side from ${this.entries} as e
          where ${same} and (e."timestamp" > ${t} or (e."timestamp" = ${t} and e.id > ${hit.id}))
          order by e."timestamp" asc, e.id asc limit ${after}) as ${sql.id(`a${at}`)}`);
    });
    const { rows } = await sql<EntryRow & { hit: number | string; side: number | string }>`${sql.join(
      sides,
      sql` union all `,
    )}`.execute(this.db);
    // Within a hit: earlier turns first, in time order, then later ones.
    rows.sort(
      (a, b) =>
        Number(a.hit) - Number(b.hit) ||
        Number(a.side) - Number(b.side) ||
        Number(a.timestamp_us ?? 0) - Number(b.timestamp_us ?? 0) ||
        Number(a.id) - Number(b.id),
    );
    for (const { hit, side: _side, ...row } of rows)
      found.get(Number((hits[Number(hit)] as EntryRow).id))?.push(row);
    return found;
  }

  private async embedQuery(params: SearchMemoryParams): Promise<number[] | undefined> {
    const [vector] = await this.embed([params.query], 'RETRIEVAL_QUERY', params.signal);
    return vector;
  }

  private async embed(
    texts: string[],
    taskType: EmbeddingTaskType,
    signal?: AbortSignal,
  ): Promise<number[][]> {
    const embeddings = this.options.embeddings as MemoryEmbeddings;
    const options = { taskType, ...(signal ? { signal } : {}) };
    const vectors =
      taskType === 'RETRIEVAL_QUERY' && this.queryEmbedder
        ? await this.queryEmbedder.embed(texts, options)
        : await embeddings.embed(texts, options);
    if (!Array.isArray(vectors) || vectors.length !== texts.length)
      throw new ValidationError(
        `embeddings.embed returned ${vectors?.length} vectors for ${texts.length} texts`,
      );
    for (const v of vectors) {
      if (!Array.isArray(v) || v.length !== embeddings.dimensions || !v.every(Number.isFinite))
        throw new ValidationError(
          `embeddings.embed must return ${embeddings.dimensions} finite numbers per text`,
        );
    }
    return vectors;
  }

  /** pgvector's column and HNSW index when the extension can be used; Float32 blobs otherwise. */
  private async prepareVectors(): Promise<VectorMode> {
    const embeddings = this.options.embeddings as MemoryEmbeddings;
    if (this.family !== 'postgres') {
      // sqlite-vec is loaded per connection by kyselyFromUrl when installed (see sqlite-vec.ts).
      if (this.options.sqliteVec === false) return 'blob';
      try {
        await sql`select vec_version() as v`.execute(this.db);
        return 'sqlite-vec';
      } catch {
        return 'blob';
      }
    }
    // pgvector only where the server has it: creating the extension is tried only then (it may
    // still fail without the privilege), and any failure falls back to Float32 blobs.
    const { rows: available } = await sql<{ name: string }>`
      select name from pg_available_extensions where name = 'vector'`.execute(this.db);
    if (available.length === 0) return 'blob';
    try {
      await sql`create extension if not exists vector`.execute(this.db);
    } catch {
      return 'blob';
    }
    const { rows } = await sql<{ type: string | null }>`
      select format_type(a.atttypid, a.atttypmod) as type from pg_attribute a
      where a.attrelid = to_regclass(${this.entriesName}) and a.attname = 'embedding' and not a.attisdropped`.execute(
      this.db,
    );
    const wanted = `vector(${embeddings.dimensions})`;
    const existing = rows[0]?.type;
    if (existing && existing !== wanted)
      throw new ConfigError(
        `Memory embeddings are stored as ${existing} but embeddings.dimensions is ${embeddings.dimensions}`,
      );
    if (!existing) {
      await sql`alter table ${this.entries} add column if not exists embedding ${sql.raw(wanted)}`.execute(
        this.db,
      );
      await sql`create index if not exists ${sql.id(`${this.entriesName}_embedding_idx`)} on ${this.entries}
        using hnsw (embedding vector_cosine_ops)`.execute(this.db);
    }
    return 'pgvector';
  }
  /**
   * The full-text and vector rankings of one search, each one apart, with `searchMemory`'s fused
   * answer (the dev UI's search playground). `vector` is absent without `embeddings`.
   */
  async explainSearch(params: SearchMemoryParams): Promise<MemorySearchExplanation> {
    const fused = (await this.searchMemory(params)).memories;
    const limit = Math.floor(params.limit ?? 10);
    const mode = await this.vectorMode();
    if (limit <= 0 || !params.query.trim() || (params.kinds && params.kinds.length === 0))
      return { fullText: [], ...(mode === 'none' ? {} : { vector: [] }), fused };
    const terms = queryTerms(params.query);
    const textRows = terms.length > 0 ? await this.fullText(params, terms, limit) : [];
    const fullText = textRows.map((row, i) => ({
      ...toEntry(row, Number(row.score)),
      ranks: { fullText: i + 1 },
    }));
    if (mode === 'none') return { fullText, fused };
    const vectorRows = await this.nearestBy(mode, params, limit);
    const vector = vectorRows.map((row, i) => ({
      ...toEntry(row, Number(row.score)),
      ranks: { vector: i + 1 },
    }));
    return { fullText, vector, fused };
  }

  /** A user's memories, newest first, superseded facts included. */
  async listMemories(params: ListMemoriesParams): Promise<MemoryEntry[]> {
    params.signal?.throwIfAborted();
    if (params.kinds && params.kinds.length === 0) return [];
    await this.ready();
    const limit = Math.max(0, Math.floor(params.limit ?? 100));
    const kinds = params.kinds
      ? sql` and e.kind in (${sql.join(params.kinds.map((k) => sql`${k}`))})`
      : sql``;
    const { rows } = await sql<EntryRow>`select ${this.columns()}, 0 as score from ${this.entries} as e
      where e.app_name = ${params.appName} and e.user_id = ${params.userId}${kinds}
      order by e."timestamp" desc, e.id desc limit ${limit}`.execute(this.db);
    return rows.map((row) => {
      const { score: _score, ...entry } = toEntry(row, 0);
      return entry;
    });
  }
}

export type VectorMode = 'pgvector' | 'sqlite-vec' | 'blob' | 'none';

interface NewRow {
  id: string;
  kind: MemoryKind;
  sessionId: string;
  author: string | null;
  timestamp: number;
  content: Content;
  text: string;
  sourceEventIds: string[];
  validFrom: number | null;
  supersedes: string | null;
  keywords: string[];
  contentKey: string;
  customMetadata: Record<string, unknown> | null;
}

function turnRow(
  event: Event,
  text: string,
  sessionId: string,
  customMetadata: Record<string, unknown> | undefined,
): NewRow {
  return {
    id: event.id,
    kind: 'turn',
    sessionId,
    author: event.author,
    timestamp: event.timestamp,
    content: event.content as Content,
    text,
    sourceEventIds: [event.id],
    validFrom: null,
    supersedes: null,
    keywords: extractKeywords(text),
    contentKey: '',
    customMetadata: customMetadata ?? null,
  };
}

/** A SHA-256 of the memory's normalised text: identical facts share it. */
async function contentKey(kind: string, text: string): Promise<string> {
  const bytes = new TextEncoder().encode(memoryTextKey(kind, text));
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
  return Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** A blob's Float32 values (a view when the bytes are aligned, else a copy). */
function float32View(blob: Uint8Array): Float32Array {
  const length = Math.floor(blob.byteLength / 4);
  if (blob.byteOffset % 4 === 0) return new Float32Array(blob.buffer, blob.byteOffset, length);
  return new Float32Array(blob.slice(0, length * 4).buffer);
}

/** The key of a user's vectors held in memory. */
function vectorKey(appName: string, userId: string): string {
  return `${appName}\u0000${userId}`;
}

/** A vector as little-endian Float32 bytes (the blob format of docs/decisions/0034). */
function float32Blob(vector: number[]): Uint8Array {
  return new Uint8Array(Float32Array.from(vector).buffer);
}

function vectorLiteral(vector: number[]): string {
  return `[${vector.join(',')}]`;
}

function toEntry(row: EntryRow, score: number): MemoryEntry {
  const content = parseJson(row.content, `memory entry ${row.id}`);
  if (!isPlainObject(content) || !Array.isArray(content.parts))
    throw new ValidationError(`Invalid stored memory entry ${row.id}: not a Content`);
  const sources =
    row.source_event_ids == null ? undefined : parseJson(row.source_event_ids, 'source event ids');
  const metadata =
    row.custom_metadata == null ? undefined : parseJson(row.custom_metadata, 'custom metadata');
  return {
    id: row.event_id,
    kind: (row.kind ?? 'turn') as MemoryKind,
    content: content as unknown as Content,
    ...(row.author == null ? {} : { author: row.author }),
    ...(row.timestamp_us == null ? {} : { timestamp: msFromMicros(row.timestamp_us) }),
    score,
    ...(row.session_id ? { sessionId: row.session_id } : {}),
    ...(Array.isArray(sources)
      ? { eventIds: sources.map(String) }
      : row.kind === 'turn'
        ? { eventIds: [row.event_id] }
        : {}),
    ...(row.valid_from == null ? {} : { validFrom: Number(row.valid_from) }),
    ...(row.supersedes == null ? {} : { supersedes: row.supersedes }),
    keywords: row.keywords ? row.keywords.split(' ').filter(Boolean) : [],
    ...(isPlainObject(metadata) ? { customMetadata: metadata } : {}),
  };
}
