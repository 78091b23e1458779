import { ConfigError, ValidationError } from '@adk/core';
import { type Kysely, PostgresAdapter, type RawBuilder, SqliteAdapter, sql } from 'kysely';

/** The SQL families the session store speaks. PGlite is Postgres. */
export type SqlFamily = 'postgres' | 'sqlite';

/** SQLite functions take at most 127 arguments by default; stay well below with json_set pairs. */
const JSON_SET_PAIRS_PER_CALL = 40;

/**
 * The few expressions that differ between the families: how JSON, times, booleans and arrays are
 * written and read. Everything is read back as plain text or numbers so that driver type parsers
 * (pg's, PGlite's, node:sqlite's) never change what we get.
 */
export interface SqlFlavor {
  readonly family: SqlFamily;
  /** Column types used by the migrations. */
  readonly types: {
    json: RawBuilder<unknown>;
    time: RawBuilder<unknown>;
    bool: RawBuilder<unknown>;
    textArray: RawBuilder<unknown>;
  };
  /** A JSON value as a parameter of the column's JSON type; `what` names it in a ValidationError (default "value"). */
  json(value: unknown, what?: string): RawBuilder<unknown>;
  /** A JSON column read as text. */
  jsonText(column: RawBuilder<unknown>): RawBuilder<string>;
  /** A point in time given in integer microseconds since the epoch. */
  time(micros: number): RawBuilder<unknown>;
  /** A time column read as microseconds since the epoch (number, or numeric text). */
  micros(column: RawBuilder<unknown>): RawBuilder<number | string>;
  bool(value: boolean | undefined): RawBuilder<unknown>;
  /** A string array (or SQL NULL when undefined). */
  textArray(values: readonly string[] | undefined): RawBuilder<unknown>;
  /** A string-array column read as JSON text. */
  textArrayJson(column: RawBuilder<unknown>): RawBuilder<string | null>;
  /**
   * The object in `column` with the top-level keys of `delta` replaced (not deep-merged), computed
   * by the database so concurrent writers never lose each other's keys.
   */
  mergeObject(column: RawBuilder<unknown>, delta: Record<string, unknown>): RawBuilder<unknown>;
}

export function stringifyJson(value: unknown, what: string): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (error) {
    throw new ValidationError(`${what} is not JSON-serializable: ${(error as Error).message}`, {
      cause: error,
    });
  }
  if (text === undefined) throw new ValidationError(`${what} is not JSON-serializable`);
  return text;
}

/** Integer microseconds since the epoch as an ISO-8601 timestamp with six fractional digits. */
export function isoFromMicros(micros: number): string {
  const ms = Math.floor(micros / 1000);
  const rest = micros - ms * 1000;
  const iso = new Date(ms).toISOString();
  return `${iso.slice(0, -1)}${String(rest).padStart(3, '0')}Z`;
}

/** A `\u0000` escape not itself escaped: jsonb rejects NUL characters in strings. */
const JSON_NUL = /(?:^|[^\\])(?:\\\\)*\\u0000/;

function jsonbText(value: unknown, what: string): string {
  const text = stringifyJson(value, what);
  if (JSON_NUL.test(text))
    throw new ValidationError(
      `${what} contains a NUL character (\\u0000), which Postgres jsonb cannot store`,
    );
  return text;
}

export const postgresFlavor: SqlFlavor = {
  family: 'postgres',
  types: { json: sql`jsonb`, time: sql`timestamptz`, bool: sql`boolean`, textArray: sql`text[]` },
  json: (value, what = 'value') => sql`${jsonbText(value, what)}::jsonb`,
  jsonText: (column) => sql<string>`${column}::text`,
  time: (micros) => sql`${isoFromMicros(micros)}::timestamptz`,
  // extract(epoch) is numeric (exact) since Postgres 14; float8 holds every µs value exactly.
  micros: (column) => sql<number>`(extract(epoch from ${column}) * 1000000)::float8`,
  bool: (value) => (value === undefined ? sql`null` : sql`${value}::boolean`),
  textArray: (values) =>
    values === undefined
      ? sql`null`
      : sql`array(select jsonb_array_elements_text(${stringifyJson(values, 'longRunningToolIds')}::jsonb))`,
  textArrayJson: (column) => sql<string | null>`array_to_json(${column})::text`,
  mergeObject: (column, delta) => sql`${column} || ${jsonbText(delta, 'state delta')}::jsonb`,
};

export const sqliteFlavor: SqlFlavor = {
  family: 'sqlite',
  types: { json: sql`text`, time: sql`integer`, bool: sql`integer`, textArray: sql`text` },
  json: (value, what = 'value') => sql`${stringifyJson(value, what)}`,
  jsonText: (column) => sql<string>`${column}`,
  time: (micros) => sql`${micros}`,
  micros: (column) => sql<number>`${column}`,
  bool: (value) => (value === undefined ? sql`null` : sql`${value ? 1 : 0}`),
  textArray: (values) =>
    values === undefined ? sql`null` : sql`${stringifyJson(values, 'longRunningToolIds')}`,
  textArrayJson: (column) => sql<string | null>`${column}`,
  // json_patch would drop null values and deep-merge nested objects; json_set per key does neither.
  mergeObject: (column, delta) => {
    const pairs: RawBuilder<unknown>[] = [];
    for (const key in delta) {
      const value = delta[key];
      if (value === undefined) continue;
      pairs.push(sql`${`$.${JSON.stringify(key)}`}, json(${stringifyJson(value, `state value ${key}`)})`);
    }
    let expr: RawBuilder<unknown> = column;
    for (let i = 0; i < pairs.length; i += JSON_SET_PAIRS_PER_CALL) {
      expr = sql`json_set(${expr}, ${sql.join(pairs.slice(i, i + JSON_SET_PAIRS_PER_CALL))})`;
    }
    return expr;
  },
};

export function flavorOf(family: SqlFamily): SqlFlavor {
  return family === 'postgres' ? postgresFlavor : sqliteFlavor;
}

/** Recognises the family from the Kysely instance's adapter (Postgres, PGlite, SQLite). */
export function detectFamily(db: Kysely<unknown>): SqlFamily {
  const adapter = db.getExecutor().adapter;
  if (adapter instanceof PostgresAdapter) return 'postgres';
  if (adapter instanceof SqliteAdapter) return 'sqlite';
  // A second copy of kysely in node_modules breaks instanceof; fall back to the class name.
  const name = adapter.constructor.name.toLowerCase();
  if (name.includes('postgres') || name.includes('pglite')) return 'postgres';
  if (name.includes('sqlite')) return 'sqlite';
  throw new ConfigError(
    `Cannot tell the SQL dialect of this Kysely instance (adapter ${adapter.constructor.name}); pass { dialect: 'postgres' | 'sqlite' }`,
  );
}
