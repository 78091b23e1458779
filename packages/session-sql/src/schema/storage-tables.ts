import { tablesFor } from './tables.js';

/** Table names of the artifact and memory stores; same prefix as the session tables. */
export interface StorageTables {
  artifacts: string;
  artifactNames: string;
  memoryEntries: string;
  /** SQLite only: the FTS5 index over memory entries. */
  memoryFts: string;
}

export function storageTablesFor(prefix?: string): StorageTables {
  const { prefix: p } = tablesFor(prefix); // validates the prefix
  return {
    artifacts: `${p}artifacts`,
    artifactNames: `${p}artifact_names`,
    memoryEntries: `${p}memory_entries`,
    memoryFts: `${p}memory_fts`,
  };
}
