import { spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from './__fixtures__/cli.js';
import { createProject, findCheckout } from './index.js';

const work = mkdtempSync(join(tmpdir(), 'adk-create-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const require = createRequire(import.meta.url);
/** A package folder as this workspace installed it (a fresh project cannot install offline). */
function installed(name: string): string {
  return realpathSync(dirname(require.resolve(`${name}/package.json`)));
}

describe('adk create', () => {
  // The install from a checkout (the default here) is create-install.test.ts; this is the
  // published CLI's scaffold, with what npm would install linked from this workspace.
  it('scaffolds a project with registry ranges that typechecks and runs with adk run', async () => {
    const created = await runCli(['create', 'demo', '--packages', 'registry'], { cwd: work });
    expect(created.code).toBe(0);
    expect(created.stdout).toContain('@adk/* packages: npm registry ranges');
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
    expect(pkg.devDependencies['@adk/dev-ui']).toMatch(/^\^\d+\.\d+\.\d+/);
    expect(existsSync(join(dir, 'vendor'))).toBe(false);
    expect(readFileSync(join(dir, 'README.md'), 'utf8')).not.toContain('vendor/adk');

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

  it('uses registry ranges for an installed CLI, and refuses --packages checkout there', async () => {
    // An installed CLI: the same package folder, but under node_modules.
    const installedCli = join(work, 'app', 'node_modules', '@adk', 'cli');
    mkdirSync(installedCli, { recursive: true });
    cpSync(join(import.meta.dirname, '..', 'package.json'), join(installedCli, 'package.json'));
    expect(findCheckout(installedCli)).toBeUndefined();

    const auto = await createProject(join(work, 'auto'), { model: 'm', cliDir: installedCli });
    expect(auto.local).toBeUndefined();
    const pkg = JSON.parse(readFileSync(join(work, 'auto', 'package.json'), 'utf8'));
    expect(pkg.dependencies['@adk/core']).toMatch(/^\^\d/);

    const refused = createProject(join(work, 'forced'), {
      model: 'm',
      packages: 'checkout',
      cliDir: installedCli,
    });
    await expect(refused).rejects.toMatchObject({
      code: 'CLI_USAGE',
      message: expect.stringContaining('--packages registry'),
    });
    expect(existsSync(join(work, 'forced'))).toBe(false);
  });

  it('recognises a checkout by its shape', () => {
    const cliDir = realpathSync(join(import.meta.dirname, '..'));
    const repo = realpathSync(join(cliDir, '..', '..'));
    const checkout = findCheckout(cliDir);
    expect(checkout?.root).toBe(repo);
    expect([...(checkout?.packages.keys() ?? [])]).toEqual(expect.arrayContaining(['@adk/core', '@adk/cli']));
    // A folder laid out like packages/cli but without the workspace file or the sources is not one.
    const lookalike = join(work, 'lookalike');
    mkdirSync(join(lookalike, 'packages', 'cli', 'src'), { recursive: true });
    mkdirSync(join(lookalike, 'packages', 'core'), { recursive: true });
    cpSync(join(cliDir, 'package.json'), join(lookalike, 'packages', 'cli', 'package.json'));
    cpSync(
      join(repo, 'packages', 'core', 'package.json'),
      join(lookalike, 'packages', 'core', 'package.json'),
    );
    expect(findCheckout(join(lookalike, 'packages', 'cli'))).toBeUndefined();
    writeFileSync(join(lookalike, 'pnpm-workspace.yaml'), 'packages:\n  - packages/*\n');
    expect(findCheckout(join(lookalike, 'packages', 'cli'))).toBeUndefined();
    mkdirSync(join(lookalike, 'packages', 'core', 'src'));
    expect(findCheckout(join(lookalike, 'packages', 'cli'))?.root).toBe(lookalike);
  });

  it('refuses to overwrite a folder that is not empty', async () => {
    const again = await runCli(['create', 'demo'], { cwd: work });
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('already exists and is not empty');
  });
});
