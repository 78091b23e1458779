import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type EvalCase, LocalEvalSetsManager } from '../index.js';

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'adk-eval-sets-'));
  dirs.push(dir);
  return dir;
}

const evalCase = (evalId: string): EvalCase => ({
  evalId,
  creationTimestamp: 1,
  conversation: [
    {
      invocationId: `inv-${evalId}`,
      userContent: { role: 'user', parts: [{ text: `hi ${evalId}` }] },
      creationTimestamp: 1,
    },
  ],
});

describe('LocalEvalSetsManager under concurrent changes', () => {
  it('keeps every case of 20 concurrent addCase calls, even across manager instances', async () => {
    const dir = await tempDir();
    await new LocalEvalSetsManager(dir).create('app', 'busy');
    const ids = Array.from({ length: 20 }, (_, i) => `case_${i}`);
    await Promise.all(ids.map((id) => new LocalEvalSetsManager(dir).addCase('app', 'busy', evalCase(id))));
    const set = await new LocalEvalSetsManager(dir).get('app', 'busy');
    expect(set?.evalCases.map((c) => c.evalId).sort()).toEqual([...ids].sort());
    // Written atomically: no temporary file is left behind.
    expect(await readdir(join(dir, 'app'))).toEqual(['busy.evalset.json']);
  });

  it('serializes concurrent update/delete with adds, and one failing change does not block the rest', async () => {
    const dir = await tempDir();
    const sets = new LocalEvalSetsManager(dir);
    await sets.create('app', 'mixed');
    await sets.addCase('app', 'mixed', evalCase('a'));
    const results = await Promise.allSettled([
      sets.addCase('app', 'mixed', evalCase('b')),
      sets.addCase('app', 'mixed', evalCase('a')), // already there: fails
      sets.updateCase('app', 'mixed', { ...evalCase('a'), finalSessionState: { done: true } }),
      sets.deleteCase('app', 'mixed', 'b'),
      sets.addCase('app', 'mixed', evalCase('c')),
      sets.create('app', 'mixed'), // already there: fails
    ]);
    expect(results.map((r) => r.status)).toEqual([
      'fulfilled',
      'rejected',
      'fulfilled',
      'fulfilled',
      'fulfilled',
      'rejected',
    ]);
    const set = await sets.get('app', 'mixed');
    expect(set?.evalCases.map((c) => c.evalId)).toEqual(['a', 'c']);
    expect(set?.evalCases[0]?.finalSessionState).toEqual({ done: true });
    const text = await readFile(sets.path('app', 'mixed'), 'utf8');
    expect(JSON.parse(text)).toMatchObject({ eval_set_id: 'mixed' });
  });
});
