import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from './__fixtures__/cli.js';

const work = mkdtempSync(join(tmpdir(), 'adk-create-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const require = createRequire(import.meta.url);
/** A package folder as this workspace installed it (a fresh project cannot install offline). */
function installed(name: string): string {
  return realpathSync(dirname(require.resolve(`${name}/package.json`)));
}

describe('adk create', () => {
  it('scaffolds a project that typechecks and runs with adk run', async () => {
    const created = await runCli(['create', 'demo'], { cwd: work });
    expect(created.code).toBe(0);
    const dir = join(work, 'demo');
    for (const file of [
      'package.json',
      'tsconfig.json',
      'agent.ts',
      '.env.example',
      'README.md',
      '.gitignore',
    ])
      expect(existsSync(join(dir, file)), file).toBe(true);
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    expect(pkg.scripts.start).toBe('adk run .');
    expect(Object.keys(pkg.dependencies)).toEqual(['@adk/core', 'zod']);
    expect(pkg.devDependencies['@adk/cli']).toMatch(/^\^\d+\.\d+\.\d+/);

    // What `npm install` would provide, linked from this workspace.
    mkdirSync(join(dir, 'node_modules', '@adk'), { recursive: true });
    mkdirSync(join(dir, 'node_modules', '@types'), { recursive: true });
    symlinkSync(installed('@adk/core'), join(dir, 'node_modules', '@adk', 'core'));
    symlinkSync(installed('zod'), join(dir, 'node_modules', 'zod'));
    symlinkSync(installed('@types/node'), join(dir, 'node_modules', '@types', 'node'));

    const tsc = spawnSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', dir], {
      encoding: 'utf8',
    });
    expect(tsc.stdout + tsc.stderr).toBe('');
    expect(tsc.status).toBe(0);

    const run = await runCli(['run', '.'], { cwd: dir, input: 'What time is it in UTC?\n' });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('→ get_current_time(');
    expect(run.stdout).toMatch(/← get_current_time: \{"timezone":"UTC","time":"/);
    expect(run.stdout).toContain('[demo]: [offline demo model');
    expect(existsSync(join(dir, '.adk', 'run', 'demo', 'user'))).toBe(true);
  });

  it('refuses to overwrite a folder that is not empty', async () => {
    const again = await runCli(['create', 'demo'], { cwd: work });
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('already exists and is not empty');
  });
});
