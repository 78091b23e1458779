import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { AlreadyExistsError, NotFoundError, ValidationError } from '@adk/core';
import { loadEvalSetFile, serializeEvalSet } from './eval-set-io.js';
import { assertFileId } from './file-id.js';
import type { EvalCase, EvalSet } from './types.js';

const EXTENSION = '.evalset.json';
/** adk-python's older test files (either legacy format), listed and run beside the eval sets. */
const LEGACY_EXTENSION = '.test.json';
const ID = /^[a-zA-Z0-9_]+$/;

/** The tail of the pending changes of each eval set file (keyed by absolute path), in this process. */
const fileQueues = new Map<string, Promise<unknown>>();

/**
 * Runs `change` after every change of `path` queued before it (in this process), so concurrent
 * read-modify-write cycles of one file never lose each other's updates.
 */
async function serialized<T>(path: string, change: () => Promise<T>): Promise<T> {
  const key = resolve(path);
  const previous = fileQueues.get(key) ?? Promise.resolve();
  const run = previous.then(change, change);
  const tail = run.then(
    () => undefined,
    () => undefined,
  );
  fileQueues.set(key, tail);
  try {
    return await run;
  } finally {
    if (fileQueues.get(key) === tail) fileQueues.delete(key);
  }
}

/** Writes the set to a temporary file beside `path`, then renames it over: readers never see half a file. */
async function writeAtomically(path: string, set: EvalSet): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const temp = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    await writeFile(temp, JSON.stringify(serializeEvalSet(set), null, 2));
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

/**
 * Eval sets stored as adk-python's LocalEvalSetsManager stores them: `<agentsDir>/<app>/<id>.evalset.json`,
 * written in snake_case without defaults.
 *
 * adk-python's older test files in the app folder (`<id>.test.json`, a list of turns or a list of
 * named cases) are listed and read too. They are never rewritten: changing the cases of such a set
 * writes `<id>.evalset.json` beside it, which is read instead from then on.
 *
 * Changes of one file (create, add/update/delete of a case) are serialized within the process and
 * written atomically (temporary file, then rename). Several processes changing the same folder at
 * once are not supported: their read-modify-write cycles can still overwrite each other.
 */
export class LocalEvalSetsManager {
  constructor(private readonly agentsDir: string) {}

  /** Where the set is (or would be) written: `<agentsDir>/<app>/<id>.evalset.json`. */
  path(appName: string, evalSetId: string): string {
    assertFileId(evalSetId, 'eval set id');
    return join(this.agentsDir, appName, `${evalSetId}${EXTENSION}`);
  }

  /** The file the set is read from: its `.evalset.json`, else its legacy `.test.json`, if either exists. */
  private sourcePath(appName: string, evalSetId: string): string | undefined {
    const path = this.path(appName, evalSetId);
    if (existsSync(path)) return path;
    const legacy = join(this.agentsDir, appName, `${evalSetId}${LEGACY_EXTENSION}`);
    return existsSync(legacy) ? legacy : undefined;
  }

  async list(appName: string): Promise<string[]> {
    const dir = join(this.agentsDir, appName);
    if (!existsSync(dir)) throw new NotFoundError(`Eval directory for app \`${appName}\` not found.`);
    const ids = new Set<string>();
    for (const f of await readdir(dir)) {
      if (f.endsWith(EXTENSION)) ids.add(f.slice(0, -EXTENSION.length));
      else if (f.endsWith(LEGACY_EXTENSION)) ids.add(f.slice(0, -LEGACY_EXTENSION.length));
    }
    return [...ids].filter((id) => id !== '').sort();
  }

  async get(appName: string, evalSetId: string): Promise<EvalSet | undefined> {
    const path = this.sourcePath(appName, evalSetId);
    return path ? loadEvalSetFile(path) : undefined;
  }

  private async require(appName: string, evalSetId: string): Promise<EvalSet> {
    const set = await this.get(appName, evalSetId);
    if (!set) throw new NotFoundError(`Eval set \`${evalSetId}\` not found.`);
    return set;
  }

  async create(appName: string, evalSetId: string): Promise<EvalSet> {
    if (!ID.test(evalSetId))
      throw new ValidationError(`Invalid Eval Set ID. Eval Set ID should have the \`${ID.source}\` format`);
    const path = this.path(appName, evalSetId);
    return serialized(path, async () => {
      if (this.sourcePath(appName, evalSetId))
        throw new AlreadyExistsError(`EvalSet ${evalSetId} already exists for app ${appName}.`);
      const set: EvalSet = {
        evalSetId,
        name: evalSetId,
        evalCases: [],
        creationTimestamp: Date.now() / 1000,
      };
      await writeAtomically(path, set);
      return set;
    });
  }

  /** Reads the set, lets `change` edit it, writes it back: one step in the file's queue. */
  private change(appName: string, evalSetId: string, change: (set: EvalSet) => void): Promise<void> {
    const path = this.path(appName, evalSetId);
    return serialized(path, async () => {
      const set = await this.require(appName, evalSetId);
      change(set);
      await writeAtomically(path, set);
    });
  }

  async getCase(appName: string, evalSetId: string, evalId: string): Promise<EvalCase | undefined> {
    return (await this.get(appName, evalSetId))?.evalCases.find((c) => c.evalId === evalId);
  }

  async addCase(appName: string, evalSetId: string, evalCase: EvalCase): Promise<void> {
    await this.change(appName, evalSetId, (set) => {
      if (set.evalCases.some((c) => c.evalId === evalCase.evalId))
        throw new AlreadyExistsError(
          `Eval id \`${evalCase.evalId}\` already exists in \`${evalSetId}\` eval set.`,
        );
      set.evalCases.push(evalCase);
    });
  }

  async updateCase(appName: string, evalSetId: string, evalCase: EvalCase): Promise<void> {
    await this.change(appName, evalSetId, (set) => {
      const i = set.evalCases.findIndex((c) => c.evalId === evalCase.evalId);
      if (i < 0)
        throw new NotFoundError(`Eval case \`${evalCase.evalId}\` not found in eval set \`${evalSetId}\`.`);
      set.evalCases[i] = evalCase;
    });
  }

  async deleteCase(appName: string, evalSetId: string, evalId: string): Promise<void> {
    await this.change(appName, evalSetId, (set) => {
      const i = set.evalCases.findIndex((c) => c.evalId === evalId);
      if (i < 0) throw new NotFoundError(`Eval case \`${evalId}\` not found in eval set \`${evalSetId}\`.`);
      set.evalCases.splice(i, 1);
    });
  }
}
