import {
  ConfigError,
  type Content,
  contentText,
  type EmbeddingTaskType,
  type EmbedOptions,
  isPlainObject,
  type MemoryEntry,
  type MemoryService,
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
  /** Adds vector similarity to the full-text ranking (Postgres/PGlite with pgvector). */
  embeddings?: MemoryEmbeddings;
}

interface EntryRow {
  id: number | string;
  content: string;
  author: string | null;
  timestamp_us: number | string | null;
  session_id: string;
  score: number | string;
}

/** Rows per multi-row insert: well below every dialect's bound-parameter limit. */
const INSERT_BATCH = 100;
/** Reciprocal-rank-fusion constant for merging full-text and vector rankings. */
const RRF_K = 60;

/**
 * Long-term memory in the session database. Every event with text becomes an entry, searchable by
 * full text — a `tsvector` column with a GIN index on Postgres and PGlite, an FTS5 index on SQLite —
 * scoped to the app and user and ranked (`ts_rank`, `bm25`). With `embeddings` and pgvector, vector
 * similarity is fused into the ranking. See the package README.
 */
export class SqlMemoryService extends SqlStore implements MemoryService {
  private readonly entriesName: string;
  private readonly entries;
  private readonly fts;
  private vectorReady: Promise<boolean> | undefined;

  constructor(private readonly options: SqlMemoryServiceOptions) {
    super(options);
    const t = storageTablesFor(this.prefix);
    this.entriesName = t.memoryEntries;
    this.entries = sql.table(t.memoryEntries);
    this.fts = sql.table(t.memoryFts);
    if (options.embeddings) {
      const { dimensions } = options.embeddings;
      if (!Number.isInteger(dimensions) || dimensions < 1 || dimensions > 16000)
        throw new ValidationError(`embeddings.dimensions must be an integer in 1..16000, got ${dimensions}`);
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
   * Whether vector search is in use: `embeddings` was given and the database has pgvector (the
   * embedding column and its HNSW index are created on first use).
   */
  async vectorSearchEnabled(): Promise<boolean> {
    if (!this.options.embeddings) return false;
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
   * (events are immutable); entries of events no longer in the session are removed.
   */
  async addSessionToMemory(session: Session): Promise<void> {
    const candidates: { id: string; content: Content; author: string; timestamp: number; text: string }[] =
      [];
    const seen = new Set<string>();
    for (const event of visibleEvents(session.events)) {
      if (!event.content || seen.has(event.id)) continue;
      const text = contentText(event.content);
      if (!text.trim()) continue;
      seen.add(event.id);
      candidates.push({
        id: event.id,
        content: event.content,
        author: event.author,
        timestamp: event.timestamp,
        text,
      });
    }
    await this.ready();
    const vectors = await this.vectorSearchEnabled();
    const { appName, userId, id: sessionId } = session;
    const f = this.f;
    const ids = stringifyJson(
      candidates.map((c) => c.id),
      'event ids',
    );
    const known = await sql<{ event_id: string }>`select event_id from ${this.entries}
      where app_name = ${appName} and user_id = ${userId} and session_id = ${sessionId}`.execute(this.db);
    const stored = new Set(known.rows.map((r) => r.event_id));
    const fresh = candidates.filter((c) => !stored.has(c.id));
    const embeddings =
      vectors && fresh.length > 0
        ? await this.embed(
            fresh.map((c) => c.text),
            'RETRIEVAL_DOCUMENT',
          )
        : undefined;
    await this.db.transaction().execute(async (trx) => {
      const gone =
        this.family === 'postgres'
          ? sql`event_id not in (select jsonb_array_elements_text(${ids}::jsonb))`
          : sql`event_id not in (select value from json_each(${ids}))`;
      await sql`delete from ${this.entries}
        where app_name = ${appName} and user_id = ${userId} and session_id = ${sessionId} and ${gone}`.execute(
        trx,
      );
      for (let start = 0; start < fresh.length; start += INSERT_BATCH) {
        const batch = fresh.slice(start, start + INSERT_BATCH);
        const rows = batch.map((c, i) => {
          const values: RawBuilder<unknown>[] = [
            sql`${appName}`,
            sql`${userId}`,
            sql`${sessionId}`,
            sql`${c.id}`,
            sql`${c.author}`,
            f.time(microsFromMs(c.timestamp)),
            f.json(c.content),
            sql`${searchText(c.text)}`,
          ];
          const vector = embeddings?.[start + i];
          if (embeddings) values.push(vector ? sql`${vectorLiteral(vector)}::vector` : sql`null`);
          return sql`(${sql.join(values)})`;
        });
        await sql`insert into ${this.entries} (app_name, user_id, session_id, event_id, author, "timestamp",
            content, search_text${embeddings ? sql`, embedding` : sql``})
          values ${sql.join(rows)}
          on conflict (app_name, user_id, session_id, event_id) do nothing`.execute(trx);
      }
    });
  }

  async searchMemory(params: SearchMemoryParams): Promise<SearchMemoryResult> {
    const limit = params.limit ?? 10;
    if (!Number.isFinite(limit)) throw new ValidationError(`limit must be a finite number, got ${limit}`);
    const terms = queryTerms(params.query);
    if (limit <= 0 || !params.query.trim()) return { memories: [] };
    const vectors = await this.vectorSearchEnabled();
    const textRows = terms.length > 0 ? await this.fullText(params, terms, Math.floor(limit)) : [];
    if (!vectors) return { memories: textRows.map((row) => toEntry(row, Number(row.score))) };
    // Fuse the two rankings by reciprocal rank: agreement between them counts most.
    const vectorRows = await this.nearest(params, Math.floor(limit));
    const fused = new Map<string, { row: EntryRow; score: number }>();
    for (const ranking of [textRows, vectorRows]) {
      ranking.forEach((row, rank) => {
        const key = String(row.id);
        const entry = fused.get(key) ?? { row, score: 0 };
        entry.score += 1 / (RRF_K + rank + 1);
        fused.set(key, entry);
      });
    }
    const ranked = [...fused.values()].sort(
      (a, b) => b.score - a.score || Number(b.row.timestamp_us ?? 0) - Number(a.row.timestamp_us ?? 0),
    );
    return { memories: ranked.slice(0, limit).map(({ row, score }) => toEntry(row, score)) };
  }

  private async fullText(params: SearchMemoryParams, terms: string[][], limit: number): Promise<EntryRow[]> {
    const f = this.f;
    await this.ready();
    if (this.family === 'postgres') {
      const { rows } = await sql<EntryRow>`
        select e.id, ${f.jsonText(sql`e.content`)} as content, e.author, ${f.micros(sql`e."timestamp"`)} as timestamp_us,
          e.session_id, ts_rank(e.search_vector, q.query)::float8 as score
        from ${this.entries} as e, (select to_tsquery('simple'::regconfig, ${tsQuery(terms)}) as query) as q
        where e.app_name = ${params.appName} and e.user_id = ${params.userId} and e.search_vector @@ q.query
        order by score desc, e."timestamp" desc, e.id desc
        limit ${limit}`.execute(this.db);
      return rows;
    }
    const { rows } = await sql<EntryRow>`
      select e.id, e.content, e.author, e."timestamp" as timestamp_us, e.session_id, -bm25(${this.fts}) as score
      from ${this.fts} join ${this.entries} as e on e.id = ${this.fts}.rowid
      where ${this.fts} match ${ftsQuery(terms)} and e.app_name = ${params.appName} and e.user_id = ${params.userId}
      order by bm25(${this.fts}), e."timestamp" desc, e.id desc
      limit ${limit}`.execute(this.db);
    return rows;
  }

  private async nearest(params: SearchMemoryParams, limit: number): Promise<EntryRow[]> {
    const [vector] = await this.embed([params.query], 'RETRIEVAL_QUERY');
    if (!vector) return [];
    const f = this.f;
    const { rows } = await sql<EntryRow>`
      select e.id, ${f.jsonText(sql`e.content`)} as content, e.author, ${f.micros(sql`e."timestamp"`)} as timestamp_us,
        e.session_id, (1 - (e.embedding <=> ${vectorLiteral(vector)}::vector))::float8 as score
      from ${this.entries} as e
      where e.app_name = ${params.appName} and e.user_id = ${params.userId} and e.embedding is not null
      order by e.embedding <=> ${vectorLiteral(vector)}::vector
      limit ${limit}`.execute(this.db);
    return rows;
  }

  private async embed(texts: string[], taskType: EmbeddingTaskType): Promise<number[][]> {
    const embeddings = this.options.embeddings as MemoryEmbeddings;
    const vectors = await embeddings.embed(texts, { taskType });
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

  /** Adds the embedding column and its index when pgvector can be used; false when it cannot. */
  private async prepareVectors(): Promise<boolean> {
    const embeddings = this.options.embeddings as MemoryEmbeddings;
    const unavailable = (reason: string): false => {
      if (embeddings.required) throw new ConfigError(`Vector search for memory is unavailable: ${reason}`);
      return false;
    };
    if (this.family !== 'postgres') return unavailable('SQLite has no pgvector; full-text search only');
    try {
      await sql`create extension if not exists vector`.execute(this.db);
    } catch (error) {
      return unavailable(
        `the Postgres "vector" extension (pgvector) cannot be enabled: ${(error as Error).message.split('\n')[0]}`,
      );
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
    return true;
  }
}

function vectorLiteral(vector: number[]): string {
  return `[${vector.join(',')}]`;
}

function toEntry(row: EntryRow, score: number): MemoryEntry {
  const content = parseJson(row.content, `memory entry ${row.id}`);
  if (!isPlainObject(content) || !Array.isArray(content.parts))
    throw new ValidationError(`Invalid stored memory entry ${row.id}: not a Content`);
  return {
    content: content as unknown as Content,
    ...(row.author == null ? {} : { author: row.author }),
    ...(row.timestamp_us == null ? {} : { timestamp: msFromMicros(row.timestamp_us) }),
    score,
    sessionId: row.session_id,
  };
}
