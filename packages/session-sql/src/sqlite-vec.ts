/**
 * The `sqlite-vec` extension (an optional dependency with prebuilt per-platform binaries): loaded
 * into every SQLite connection `kyselyFromUrl` opens when it is installed and loads here, so memory
 * search ranks the stored Float32 blobs with `vec_distance_cosine` inside SQLite. When it is absent
 * or does not load, vectors are scanned exactly in JS instead (docs/decisions/0064-vector-search-backends.md).
 */

/** The part of `node:sqlite`'s `DatabaseSync` extension loading uses. */
export interface ExtensibleSqliteDatabase {
  loadExtension(path: string): void;
  enableLoadExtension(allow: boolean): void;
}

/** Why `sqlite-vec` is not in use, when it is not (for logs and `SqlMemoryService.vectorMode`). */
export type SqliteVecStatus = { loaded: true; path: string } | { loaded: false; reason: string };

let located: Promise<SqliteVecStatus> | undefined;

/**
 * Where the installed `sqlite-vec` binary is; `{ loaded: false }` when the package or its platform
 * binary is missing. `importer` is for tests (default: `import('sqlite-vec')`).
 */
export function locateSqliteVec(
  importer?: () => Promise<{ getLoadablePath(): string }>,
): Promise<SqliteVecStatus> {
  const find = async (load: () => Promise<{ getLoadablePath(): string }>): Promise<SqliteVecStatus> => {
    try {
      const mod = await load();
      return { loaded: true, path: mod.getLoadablePath() };
    } catch (error) {
      return { loaded: false, reason: error instanceof Error ? error.message : String(error) };
    }
  };
  if (importer) return find(importer);
  located ??= find(() => import('sqlite-vec'));
  return located;
}

/**
 * Loads the extension into an open connection (opened with `allowExtension: true`), then turns
 * extension loading off again so SQL cannot load any other library.
 */
export function loadSqliteVec(db: ExtensibleSqliteDatabase, status: SqliteVecStatus): SqliteVecStatus {
  if (!status.loaded) return status;
  try {
    db.loadExtension(status.path);
    return status;
  } catch (error) {
    return { loaded: false, reason: error instanceof Error ? error.message : String(error) };
  } finally {
    db.enableLoadExtension(false);
  }
}
