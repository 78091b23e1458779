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

/** How many compiled statements one database keeps. */
const STATEMENT_CACHE_SIZE = 200;

/**
 * Adapts Node's built-in `node:sqlite` (`DatabaseSync`, Node ≥ 22.5) to the better-sqlite3-like
 * interface Kysely's SqliteDialect expects, so no native module has to be built or downloaded.
 */
export function nodeSqliteDatabase(db: NodeSqliteDatabase): SqliteDatabase {
  // Compiled statements by SQL text, the least recently used out first: the same few statements
  // run on every turn, and compiling one costs as much as running it. Kysely runs one query at a
  // time per connection, so a statement is never in use twice at once.
  const compiled = new Map<string, { statement: NodeSqliteStatement; reader: boolean }>();
  const compile = (sql: string) => {
    let entry = compiled.get(sql);
    if (entry) compiled.delete(sql);
    else {
      const statement = db.prepare(sql);
      entry = { statement, reader: statement.columns().length > 0 };
      if (compiled.size >= STATEMENT_CACHE_SIZE) compiled.delete(compiled.keys().next().value as string);
    }
    compiled.set(sql, entry);
    return entry;
  };
  return {
    close: () => {
      compiled.clear();
      db.close();
    },
    prepare(sql: string): SqliteStatement {
      const { statement, reader } = compile(sql);
      return {
        reader,
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
