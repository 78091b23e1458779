import { type SqliteDatabase, SqliteDialect, type SqliteStatement } from 'kysely';

/** The part of `node:sqlite`'s `StatementSync` this adapter uses. */
export interface NodeSqliteStatement {
  columns(): unknown[];
  all(...params: SqliteParam[]): unknown[];
  run(...params: SqliteParam[]): { changes: number | bigint; lastInsertRowid: number | bigint };
  iterate(...params: SqliteParam[]): Iterator<unknown>;
}

/** The part of `node:sqlite`'s `DatabaseSync` this adapter uses. */
export interface NodeSqliteDatabase {
  prepare(sql: string): NodeSqliteStatement;
  close(): void;
}

type SqliteParam = null | number | bigint | string | Uint8Array;

function toParams(parameters: ReadonlyArray<unknown>): SqliteParam[] {
  return parameters.map((value) => {
    if (value === undefined || value === null) return null;
    if (typeof value === 'boolean') return value ? 1 : 0;
    if (value instanceof Date) return value.toISOString();
    if (
      typeof value === 'number' ||
      typeof value === 'bigint' ||
      typeof value === 'string' ||
      value instanceof Uint8Array
    )
      return value;
    throw new TypeError(`Cannot bind a ${typeof value} to a SQLite parameter`);
  });
}

/**
 * Adapts Node's built-in `node:sqlite` (`DatabaseSync`, Node ≥ 22.5) to the better-sqlite3-like
 * interface Kysely's SqliteDialect expects, so no native module has to be built or downloaded.
 */
export function nodeSqliteDatabase(db: NodeSqliteDatabase): SqliteDatabase {
  return {
    close: () => db.close(),
    prepare(sql: string): SqliteStatement {
      const statement = db.prepare(sql);
      return {
        reader: statement.columns().length > 0,
        all: (parameters) => statement.all(...toParams(parameters)),
        run: (parameters) => statement.run(...toParams(parameters)),
        iterate: (parameters) => {
          const iterator = statement.iterate(...toParams(parameters));
          return {
            next: () => iterator.next(),
            [Symbol.iterator]() {
              return this;
            },
          };
        },
      };
    },
  };
}

/** A Kysely SqliteDialect over a `node:sqlite` database. */
export function nodeSqliteDialect(db: NodeSqliteDatabase): SqliteDialect {
  return new SqliteDialect({ database: nodeSqliteDatabase(db) });
}
