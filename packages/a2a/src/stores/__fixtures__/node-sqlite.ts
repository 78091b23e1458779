import { DatabaseSync } from 'node:sqlite';
import { Kysely, type SqliteDatabase, SqliteDialect } from 'kysely';

type Param = null | number | bigint | string | Uint8Array;
const toParams = (values: ReadonlyArray<unknown>): Param[] =>
  values.map((v) => (v === undefined ? null : typeof v === 'boolean' ? (v ? 1 : 0) : (v as Param)));

/** Kysely's SqliteDialect over Node's built-in `node:sqlite` (no native module to build). */
export function nodeSqliteKysely(path = ':memory:'): Kysely<unknown> {
  const db = new DatabaseSync(path);
  const database: SqliteDatabase = {
    close: () => db.close(),
    prepare(sql) {
      const statement = db.prepare(sql);
      return {
        reader: statement.columns().length > 0,
        all: (parameters) => statement.all(...toParams(parameters)),
        run: (parameters) => {
          const r = statement.run(...toParams(parameters));
          return { changes: r.changes, lastInsertRowid: r.lastInsertRowid };
        },
        iterate: (parameters) => statement.iterate(...toParams(parameters)),
      };
    },
  };
  return new Kysely({ dialect: new SqliteDialect({ database }) });
}
