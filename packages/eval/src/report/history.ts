import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { NotFoundError } from '@adk/core';
import { parseEvalSetResult, serializeEvalSetResult } from '../eval-set/eval-result-io.js';
import { parseJsonText } from '../eval-set/eval-set-io.js';
import { assertFileId } from '../eval-set/file-id.js';
import type { EvalSetResult } from '../eval-set/types.js';

const EXTENSION = '.evalset_result.json';

/**
 * Eval results stored the way adk-python's LocalEvalSetResultsManager stores them:
 * `<agentsDir>/<app>/.adk/eval_history/<result name>.evalset_result.json`, each file holding the
 * result JSON as a JSON string (so adk-python's own tools read ours and we read theirs).
 */
export class LocalEvalSetResultsManager {
  constructor(private readonly agentsDir: string) {}

  historyDir(appName: string): string {
    return join(this.agentsDir, appName, '.adk', 'eval_history');
  }

  async save(appName: string, result: EvalSetResult): Promise<string> {
    const dir = this.historyDir(appName);
    await mkdir(dir, { recursive: true });
    const name = result.evalSetResultName ?? result.evalSetResultId.replaceAll('/', '_');
    const path = join(dir, `${name}${EXTENSION}`);
    await writeFile(path, JSON.stringify(JSON.stringify(serializeEvalSetResult(result)), null, 2));
    return path;
  }

  async get(appName: string, evalSetResultId: string): Promise<EvalSetResult> {
    assertFileId(evalSetResultId, 'eval set result id');
    const path = join(this.historyDir(appName), `${evalSetResultId}${EXTENSION}`);
    if (!existsSync(path)) throw new NotFoundError(`Eval set result \`${evalSetResultId}\` not found.`);
    return parseEvalSetResult(parseJsonText(await readFile(path, 'utf8'), 'eval set result'));
  }

  async list(appName: string): Promise<string[]> {
    const dir = this.historyDir(appName);
    if (!existsSync(dir)) return [];
    return (await readdir(dir))
      .filter((f) => f.endsWith(EXTENSION))
      .map((f) => f.slice(0, -EXTENSION.length));
  }
}
