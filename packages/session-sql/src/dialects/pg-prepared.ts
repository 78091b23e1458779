import type pg from 'pg';
import { StatementNames } from './statement-names.js';

/**
 * A pg `Client` class for one pool that runs repeated statements as named prepared statements.
 *
 * Postgres parses and plans an unnamed statement on every run; for the short statements of a turn
 * (append an event, read a session row, take a run lock) that is a large share of the server's work.
 * A statement text seen a second time gets a name, so each connection parses it once and Postgres
 * may keep a generic plan. Names are per pool and map one-to-one to texts; at most `maxStatements`
 * texts are named (each costs a little memory in every server connection), the rest run unnamed.
 * Transaction-mode poolers without prepared-statement support need this off.
 */
export function preparingClient(Client: typeof pg.Client, maxStatements: number): typeof pg.Client {
  const names = new StatementNames(maxStatements);
  class PreparingClient extends Client {
    // pg's overloads: only (text, values) calls with values are rewritten; query configs, cursors
    // and callbacks pass through untouched.
    override query(...args: unknown[]): never {
      const query = super.query as unknown as (...all: unknown[]) => never;
      const [text, values] = args;
      // Only statements with parameters: pg sends the others as simple queries, which may hold
      // several statements, and a prepared statement may not.
      if (typeof text === 'string' && args.length === 2 && Array.isArray(values) && values.length > 0) {
        const name = names.nameFor(text);
        if (name !== undefined) return query.call(this, { name, text, values });
      }
      return query.apply(this, args);
    }
  }
  return PreparingClient;
}
