/** Statement texts seen once, remembered so that the second run of one can be named. */
const MAX_SEEN = 2000;

/**
 * Which statement texts run as named prepared statements: a text seen a second time gets a name,
 * one-to-one, until `max` texts are named; the rest stay unnamed. One-off statements (DDL, rare
 * queries) therefore never take a name, and the statements a turn repeats do.
 */
export class StatementNames {
  private readonly names = new Map<string, string>();
  private readonly seen = new Set<string>();

  constructor(private readonly max: number) {}

  nameFor(text: string): string | undefined {
    const known = this.names.get(text);
    if (known !== undefined || this.names.size >= this.max) return known;
    if (!this.seen.has(text)) {
      if (this.seen.size >= MAX_SEEN) this.seen.clear();
      this.seen.add(text);
      return undefined;
    }
    this.seen.delete(text);
    const name = `adk_${this.names.size + 1}`;
    this.names.set(text, name);
    return name;
  }
}

/** Named statements per database handle at most (each costs a little memory per connection). */
export const MAX_PREPARED_STATEMENTS = 200;
