import { type Kysely, sql } from 'kysely';
import type { Migration } from 'kysely/migration';
import { flavorOf, type SqlFamily } from '../dialects/flavor.js';
import { storageTablesFor } from './storage-tables.js';
import type { Tables } from './tables.js';

/**
 * Migrations of the artifact and memory tables. They ride the session migrations (same migration
 * table, names after `0001_initial`), so a database made by an earlier release is upgraded in place.
 */
export function storageMigrations(family: SqlFamily, tables: Tables): Record<string, Migration> {
  const f = flavorOf(family);
  const t = storageTablesFor(tables.prefix);
  const pg = family === 'postgres';
  return {
    '0002_artifacts': {
      // biome-ignore lint/suspicious/noExplicitAny: Kysely's Migration contract takes Kysely<any>
      async up(db: Kysely<any>): Promise<void> {
        // One row per name: the next version number, taken with an upsert (a row lock on Postgres)
        // so concurrent saves of one name get distinct versions without retries.
        await db.schema
          .createTable(t.artifactNames)
          .ifNotExists()
          .addColumn('app_name', 'text', (c) => c.notNull())
          .addColumn('user_id', 'text', (c) => c.notNull())
          // '' for `user:` names, shared by every session of the user.
          .addColumn('session_id', 'text', (c) => c.notNull())
          .addColumn('filename', 'text', (c) => c.notNull())
          .addColumn('next_version', 'integer', (c) => c.notNull())
          .addPrimaryKeyConstraint(`${t.artifactNames}_pkey`, [
            'app_name',
            'user_id',
            'session_id',
            'filename',
          ])
          .execute();
        await db.schema
          .createTable(t.artifacts)
          .ifNotExists()
          .addColumn('app_name', 'text', (c) => c.notNull())
          .addColumn('user_id', 'text', (c) => c.notNull())
          .addColumn('session_id', 'text', (c) => c.notNull())
          .addColumn('filename', 'text', (c) => c.notNull())
          .addColumn('version', 'integer', (c) => c.notNull())
          // 'inline' (data holds the decoded bytes), 'text' (UTF-8 text) or 'part' (no bytes).
          .addColumn('kind', 'text', (c) => c.notNull())
          .addColumn('mime_type', 'text')
          .addColumn('data', pg ? sql`bytea` : sql`blob`)
          // The part without its bytes (display name, thought flags, file references, …).
          .addColumn('part', f.types.json, (c) => c.notNull())
          .addColumn('custom_metadata', f.types.json)
          .addColumn('size_bytes', 'bigint', (c) => c.notNull())
          .addColumn('created_at', f.types.time, (c) => c.notNull())
          .addPrimaryKeyConstraint(`${t.artifacts}_pkey`, [
            'app_name',
            'user_id',
            'session_id',
            'filename',
            'version',
          ])
          .execute();
      },
      // biome-ignore lint/suspicious/noExplicitAny: Kysely's Migration contract takes Kysely<any>
      async down(db: Kysely<any>): Promise<void> {
        await db.schema.dropTable(t.artifacts).ifExists().execute();
        await db.schema.dropTable(t.artifactNames).ifExists().execute();
      },
    },
    '0003_memory': {
      // biome-ignore lint/suspicious/noExplicitAny: Kysely's Migration contract takes Kysely<any>
      async up(db: Kysely<any>): Promise<void> {
        const m = t.memoryEntries;
        let table = db.schema
          .createTable(m)
          .ifNotExists()
          // An integer key: SQLite's FTS5 index refers to entries by it (a stable rowid alias).
          .addColumn('id', pg ? 'bigserial' : 'integer', (c) => c.primaryKey())
          .addColumn('app_name', 'text', (c) => c.notNull())
          .addColumn('user_id', 'text', (c) => c.notNull())
          .addColumn('session_id', 'text', (c) => c.notNull())
          .addColumn('event_id', 'text', (c) => c.notNull())
          .addColumn('author', 'text')
          .addColumn('timestamp', f.types.time)
          .addColumn('content', f.types.json, (c) => c.notNull())
          // Case-folded, accent-stripped, NFKC-normalised words separated by spaces (CJK: one
          // character per word), computed in JS so that every dialect matches the same way.
          .addColumn('search_text', 'text', (c) => c.notNull());
        if (pg)
          table = table.addColumn('search_vector', sql`tsvector`, (c) =>
            c.generatedAlwaysAs(sql`to_tsvector('simple'::regconfig, search_text)`).stored(),
          );
        await table.execute();
        await db.schema
          .createIndex(`${m}_event_idx`)
          .ifNotExists()
          .unique()
          .on(m)
          .columns(['app_name', 'user_id', 'session_id', 'event_id'])
          .execute();
        if (pg) {
          await sql`create index if not exists ${sql.id(`${m}_search_idx`)} on ${sql.table(m)} using gin (search_vector)`.execute(
            db,
          );
        } else {
          const fts = sql.table(t.memoryFts);
          await sql`create virtual table if not exists ${fts} using fts5(search_text, content=${sql.lit(m)}, content_rowid='id')`.execute(
            db,
          );
          // Keep the external-content index in step with the entries.
          await sql`create trigger if not exists ${sql.id(`${m}_ai`)} after insert on ${sql.table(m)} begin
            insert into ${fts}(rowid, search_text) values (new.id, new.search_text); end`.execute(db);
          await sql`create trigger if not exists ${sql.id(`${m}_ad`)} after delete on ${sql.table(m)} begin
            insert into ${fts}(${fts}, rowid, search_text) values ('delete', old.id, old.search_text); end`.execute(
            db,
          );
          await sql`create trigger if not exists ${sql.id(`${m}_au`)} after update on ${sql.table(m)} begin
            insert into ${fts}(${fts}, rowid, search_text) values ('delete', old.id, old.search_text);
            insert into ${fts}(rowid, search_text) values (new.id, new.search_text); end`.execute(db);
        }
      },
      // biome-ignore lint/suspicious/noExplicitAny: Kysely's Migration contract takes Kysely<any>
      async down(db: Kysely<any>): Promise<void> {
        if (!pg) await sql`drop table if exists ${sql.table(t.memoryFts)}`.execute(db);
        await db.schema.dropTable(t.memoryEntries).ifExists().execute();
      },
    },
  };
}
