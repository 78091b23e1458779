import {
  type ArtifactRef,
  type ArtifactScope,
  type ArtifactService,
  ArtifactTooLargeError,
  type ArtifactVersion,
  artifactMimeType,
  assertSafeArtifactName,
  DEFAULT_MAX_ARTIFACT_BYTES,
  type DeleteArtifactParams,
  isPlainObject,
  type JsonValue,
  type LoadArtifactParams,
  type Part,
  parseJson,
  type SaveArtifactParams,
  USER_ARTIFACT_PREFIX,
  ValidationError,
} from '@adk/core';
import { type RawBuilder, sql } from 'kysely';
import { type KyselyFromUrlOptions, kyselyFromUrl, splitConnectionOptions } from './connect.js';
import { microsFromMs, msFromMicros } from './rows.js';
import { storageTablesFor } from './schema/storage-tables.js';
import { SqlStore, type SqlStoreOptions } from './sql-store.js';

export interface SqlArtifactServiceOptions extends SqlStoreOptions {
  /** Largest artifact accepted, in bytes of content (default 32 MiB). */
  maxArtifactBytes?: number;
}

type Kind = 'inline' | 'text' | 'part';

interface VersionRow {
  version: number | string;
  kind: Kind;
  mime_type: string | null;
  custom_metadata: string | null;
  size_bytes: number | string;
  created_us: number | string;
}

interface ContentRow {
  kind: Kind;
  part: string;
  /** Base64 (inline) or text from Postgres; bytes from SQLite. */
  payload: string | Uint8Array | null;
}

const CANONICAL_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * Versioned artifacts in the session database: content as `bytea` (Postgres, PGlite) or `blob`
 * (SQLite), with MIME type, custom metadata and size per version. Version numbers come from a
 * per-name counter row updated with an upsert, so concurrent saves of one name each get their own
 * number without retries. See the package README.
 */
export class SqlArtifactService extends SqlStore implements ArtifactService {
  private readonly artifacts;
  private readonly names;
  private readonly maxBytes: number;
  /** PGlite converts bytea parameters to hex in JS, slowly: send it base64 text to decode instead. */
  private readonly decodeInDatabase: boolean;

  constructor(options: SqlArtifactServiceOptions) {
    super(options);
    const t = storageTablesFor(this.prefix);
    this.artifacts = sql.table(t.artifacts);
    this.names = sql.table(t.artifactNames);
    this.maxBytes = options.maxArtifactBytes ?? DEFAULT_MAX_ARTIFACT_BYTES;
    this.decodeInDatabase =
      this.family === 'postgres' && /pglite/i.test(options.db.getExecutor().adapter.constructor.name);
  }

  /** A service on its own database, built from a URL (see `kyselyFromUrl`); close() releases it. */
  static async fromUrl(
    url = 'pglite://memory',
    options: Omit<SqlArtifactServiceOptions, 'db'> & KyselyFromUrlOptions = {},
  ): Promise<SqlArtifactService> {
    const { connection, rest } = splitConnectionOptions(options);
    const db = await kyselyFromUrl(url, connection);
    return new SqlArtifactService({ destroyOnClose: true, ...rest, db });
  }

  async saveArtifact(params: SaveArtifactParams): Promise<number> {
    const key = this.key(params);
    const { kind, data, rest, size } = this.encode(params);
    const f = this.f;
    const mimeType = artifactMimeType(params.artifact) ?? null;
    const metadata =
      params.customMetadata === undefined
        ? sql`null`
        : f.json(params.customMetadata, `customMetadata of artifact ${JSON.stringify(params.filename)}`);
    const now = f.time(microsFromMs(Date.now()));
    await this.ready(params.signal);
    return this.db.transaction().execute(async (trx) => {
      // The counter row is locked by the upsert until commit: concurrent saves of this name wait
      // for each other here and each leaves with its own number.
      const { rows } = await sql<{ next_version: number | string }>`
        insert into ${this.names} (app_name, user_id, session_id, filename, next_version)
        values (${key.appName}, ${key.userId}, ${key.scope}, ${key.filename}, 1)
        on conflict (app_name, user_id, session_id, filename)
        do update set next_version = ${this.names}.next_version + 1
        returning next_version`.execute(trx);
      const version = Number(rows[0]?.next_version) - 1;
      if (!Number.isInteger(version) || version < 0)
        throw new ValidationError(`Could not allocate a version for artifact ${params.filename}`);
      this.checkSignal(params.signal);
      await sql`
        insert into ${this.artifacts} (app_name, user_id, session_id, filename, version, kind, mime_type,
          data, part, custom_metadata, size_bytes, created_at)
        values (${key.appName}, ${key.userId}, ${key.scope}, ${key.filename}, ${version}, ${kind}, ${mimeType},
          ${data}, ${f.json(rest, `artifact ${JSON.stringify(params.filename)}`)}, ${metadata}, ${size}, ${now})`.execute(
        trx,
      );
      return version;
    });
  }

  async loadArtifact(params: LoadArtifactParams): Promise<Part | undefined> {
    const key = this.key(params);
    await this.ready(params.signal);
    const { rows } = await sql<ContentRow>`
      select kind, ${this.f.jsonText(sql`part`)} as part, ${this.payload()} as payload from ${this.artifacts}
      where ${this.where(key)} ${this.versionFilter(params.version)}`.execute(this.db);
    const row = rows[0];
    return row ? decodeRow(row, params.filename) : undefined;
  }

  async getArtifactVersion(params: LoadArtifactParams): Promise<ArtifactVersion | undefined> {
    const key = this.key(params);
    await this.ready(params.signal);
    const { rows } = await sql<VersionRow>`${this.versionSelect()}
      where ${this.where(key)} ${this.versionFilter(params.version)}`.execute(this.db);
    const row = rows[0];
    return row ? versionFromRow(row, params.filename) : undefined;
  }

  async listArtifactVersions(params: ArtifactRef): Promise<ArtifactVersion[]> {
    const key = this.key(params);
    await this.ready(params.signal);
    const { rows } = await sql<VersionRow>`${this.versionSelect()}
      where ${this.where(key)} order by version`.execute(this.db);
    return rows.map((row) => versionFromRow(row, params.filename));
  }

  async listVersions(params: ArtifactRef): Promise<number[]> {
    const key = this.key(params);
    await this.ready(params.signal);
    const { rows } = await sql<{ version: number | string }>`select version from ${this.artifacts}
      where ${this.where(key)} order by version`.execute(this.db);
    return rows.map((row) => Number(row.version));
  }

  async listArtifactKeys(params: ArtifactScope): Promise<string[]> {
    await this.ready(params.signal);
    const { rows } = await sql<{ filename: string }>`select distinct filename from ${this.artifacts}
      where app_name = ${params.appName} and user_id = ${params.userId}
        and (session_id = ${params.sessionId} or session_id = '')`.execute(this.db);
    // Sorted here, by code units as in the other stores, not by the database's collation.
    return rows.map((row) => row.filename).sort();
  }

  async deleteArtifact(params: DeleteArtifactParams): Promise<void> {
    const key = this.key(params);
    await this.ready(params.signal);
    if (params.version !== undefined) {
      // The counter is left alone, so a deleted number is never handed out again.
      await sql`delete from ${this.artifacts} where ${this.where(key)} and version = ${params.version}`.execute(
        this.db,
      );
      return;
    }
    await this.db.transaction().execute(async (trx) => {
      await sql`delete from ${this.names} where ${this.where(key)}`.execute(trx);
      this.checkSignal(params.signal);
      await sql`delete from ${this.artifacts} where ${this.where(key)}`.execute(trx);
    });
  }

  private key(ref: ArtifactRef) {
    assertSafeArtifactName(ref.filename);
    const shared = ref.filename.startsWith(USER_ARTIFACT_PREFIX);
    if (!shared && !ref.sessionId) throw new ValidationError('sessionId must not be empty');
    return {
      appName: ref.appName,
      userId: ref.userId,
      scope: shared ? '' : ref.sessionId,
      filename: ref.filename,
    };
  }

  private where(key: ReturnType<SqlArtifactService['key']>): RawBuilder<unknown> {
    return sql`app_name = ${key.appName} and user_id = ${key.userId} and session_id = ${key.scope}
      and filename = ${key.filename}`;
  }

  private versionFilter(version: number | undefined): RawBuilder<unknown> {
    if (version === undefined) return sql`order by version desc limit 1`;
    if (!Number.isSafeInteger(version) || version < 0) return sql`and 1 = 0`;
    return sql`and version = ${version}`;
  }

  private versionSelect(): RawBuilder<unknown> {
    const f = this.f;
    return sql`select version, kind, mime_type, ${f.jsonText(sql`custom_metadata`)} as custom_metadata, size_bytes,
      ${f.micros(sql`created_at`)} as created_us from ${this.artifacts}`;
  }

  /**
   * The content to store and the part without it. The size is checked from the base64 length
   * first, so an oversize artifact is never decoded. PGlite receives the base64 text and decodes it
   * itself (`decode(…, 'base64')`), so the bytes are never materialised in JS; `pg` and SQLite get
   * one decoded Buffer.
   */
  private encode(params: SaveArtifactParams): {
    kind: Kind;
    data: RawBuilder<unknown>;
    rest: Part;
    size: number;
  } {
    const part = params.artifact;
    const pg = this.decodeInDatabase;
    if (part.inlineData) {
      let base64 = part.inlineData.data;
      const size = Buffer.byteLength(base64, 'base64');
      this.checkSize(size, params.filename);
      // Node accepts base64 that Postgres rejects (URL-safe alphabet, no padding, whitespace).
      if (pg && !CANONICAL_BASE64.test(base64)) base64 = Buffer.from(base64, 'base64').toString('base64');
      const { data: _data, ...inline } = part.inlineData;
      return {
        kind: 'inline',
        data: pg ? sql`decode(${base64}, 'base64')` : sql`${Buffer.from(base64, 'base64')}`,
        rest: { ...part, inlineData: { ...inline, data: '' } },
        size,
      };
    }
    if (part.text !== undefined) {
      const size = Buffer.byteLength(part.text, 'utf8');
      this.checkSize(size, params.filename);
      const { text: _text, ...rest } = part;
      // The text travels as its UTF-8 bytes, never as a Postgres text value: those cannot hold NUL
      // characters, which a JavaScript string (and the file and in-memory stores) can.
      const bytes = Buffer.from(part.text, 'utf8');
      return {
        kind: 'text',
        data: pg ? sql`decode(${bytes.toString('base64')}, 'base64')` : sql`${bytes}`,
        rest,
        size,
      };
    }
    const size = Buffer.byteLength(JSON.stringify(part), 'utf8');
    this.checkSize(size, params.filename);
    return { kind: 'part', data: sql`null`, rest: part, size };
  }

  /** The stored content: base64 from Postgres, bytes from SQLite. */
  private payload(): RawBuilder<unknown> {
    if (this.family !== 'postgres') return sql`data`;
    // encode() breaks base64 into 76-character lines; they are joined in JS (much faster than
    // translate() in the database). Text comes as base64 too: convert_from() fails on a NUL byte.
    return sql`case when kind in ('inline', 'text') then encode(data, 'base64') end`;
  }

  private checkSize(size: number, filename: string): void {
    if (size > this.maxBytes)
      throw new ArtifactTooLargeError(
        `Artifact ${JSON.stringify(filename)} is ${size} bytes, over the limit of ${this.maxBytes} bytes`,
        { details: { sizeBytes: size, maxBytes: this.maxBytes } },
      );
  }
}

function decodeRow(row: ContentRow, filename: string): Part {
  const rest = parseJson(row.part, `stored artifact ${filename}`);
  if (!isPlainObject(rest)) throw new ValidationError(`Invalid stored artifact ${filename}: not an object`);
  const part = rest as Part;
  if (row.kind === 'part') return part;
  const payload = row.payload ?? '';
  let content: string;
  if (typeof payload === 'string') {
    const base64 = payload.replaceAll('\n', '');
    content = row.kind === 'text' ? Buffer.from(base64, 'base64').toString('utf8') : base64;
  } else {
    // A view over the driver's buffer: the bytes are encoded once, never copied first.
    const view = Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength);
    content = view.toString(row.kind === 'text' ? 'utf8' : 'base64');
  }
  if (row.kind === 'text') return { ...part, text: content };
  const inline = part.inlineData;
  return { ...part, inlineData: { ...inline, mimeType: inline?.mimeType ?? '', data: content } };
}

function versionFromRow(row: VersionRow, filename: string): ArtifactVersion {
  let customMetadata: Record<string, JsonValue> | undefined;
  if (row.custom_metadata != null) {
    const parsed = parseJson(row.custom_metadata, `custom metadata of artifact ${filename}`);
    if (!isPlainObject(parsed)) throw new ValidationError(`Invalid custom metadata of artifact ${filename}`);
    customMetadata = parsed as Record<string, JsonValue>;
  }
  return {
    version: Number(row.version),
    createTime: Math.round(msFromMicros(row.created_us)),
    sizeBytes: Number(row.size_bytes),
    ...(row.mime_type == null ? {} : { mimeType: row.mime_type }),
    ...(customMetadata ? { customMetadata } : {}),
  };
}
