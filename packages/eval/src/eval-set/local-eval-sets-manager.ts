import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { AlreadyExistsError, NotFoundError, ValidationError } from '@adk/core';
import { loadEvalSetFile, writeEvalSetFile } from './eval-set-io.js';
import { assertFileId } from './file-id.js';
import type { EvalCase, EvalSet } from './types.js';

const EXTENSION = '.evalset.json';
const ID = /^[a-zA-Z0-9_]+$/;

/**
 * Eval sets stored as adk-python's LocalEvalSetsManager stores them: `<agentsDir>/<app>/<id>.evalset.json`,
 * written in snake_case without defaults.
 */
export class LocalEvalSetsManager {
  constructor(private readonly agentsDir: string) {}

  path(appName: string, evalSetId: string): string {
    assertFileId(evalSetId, 'eval set id');
    return join(this.agentsDir, appName, `${evalSetId}${EXTENSION}`);
  }

  async list(appName: string): Promise<string[]> {
    const dir = join(this.agentsDir, appName);
    if (!existsSync(dir)) throw new NotFoundError(`Eval directory for app \`${appName}\` not found.`);
    return (await readdir(dir))
      .filter((f) => f.endsWith(EXTENSION))
      .map((f) => f.slice(0, -EXTENSION.length))
      .sort();
  }

  async get(appName: string, evalSetId: string): Promise<EvalSet | undefined> {
    const path = this.path(appName, evalSetId);
    return existsSync(path) ? loadEvalSetFile(path) : undefined;
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
    if (existsSync(path))
      throw new AlreadyExistsError(`EvalSet ${evalSetId} already exists for app ${appName}.`);
    const set: EvalSet = { evalSetId, name: evalSetId, evalCases: [], creationTimestamp: Date.now() / 1000 };
    await writeEvalSetFile(path, set);
    return set;
  }

  async getCase(appName: string, evalSetId: string, evalId: string): Promise<EvalCase | undefined> {
    return (await this.get(appName, evalSetId))?.evalCases.find((c) => c.evalId === evalId);
  }

  async addCase(appName: string, evalSetId: string, evalCase: EvalCase): Promise<void> {
    const set = await this.require(appName, evalSetId);
    if (set.evalCases.some((c) => c.evalId === evalCase.evalId))
      throw new AlreadyExistsError(
        `Eval id \`${evalCase.evalId}\` already exists in \`${evalSetId}\` eval set.`,
      );
    set.evalCases.push(evalCase);
    await writeEvalSetFile(this.path(appName, evalSetId), set);
  }

  async updateCase(appName: string, evalSetId: string, evalCase: EvalCase): Promise<void> {
    const set = await this.require(appName, evalSetId);
    const i = set.evalCases.findIndex((c) => c.evalId === evalCase.evalId);
    if (i < 0)
      throw new NotFoundError(`Eval case \`${evalCase.evalId}\` not found in eval set \`${evalSetId}\`.`);
    set.evalCases[i] = evalCase;
    await writeEvalSetFile(this.path(appName, evalSetId), set);
  }

  async deleteCase(appName: string, evalSetId: string, evalId: string): Promise<void> {
    const set = await this.require(appName, evalSetId);
    const i = set.evalCases.findIndex((c) => c.evalId === evalId);
    if (i < 0) throw new NotFoundError(`Eval case \`${evalId}\` not found in eval set \`${evalSetId}\`.`);
    set.evalCases.splice(i, 1);
    await writeEvalSetFile(this.path(appName, evalSetId), set);
  }
}
