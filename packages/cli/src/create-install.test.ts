import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { offlineEnv, runCli } from './__fixtures__/cli.js';

// One project, created outside the repository the way a user would: `adk create` from this
// checkout, `npm install`, `tsc --noEmit`, then the project's own `adk run` through a pipe.
const work = realpathSync(mkdtempSync(join(tmpdir(), 'adk-create-install-')));
afterAll(() => rmSync(work, { recursive: true, force: true }), 300_000);
const repoRoot = realpathSync(new URL('../../..', import.meta.url));

/** The environment of a user's shell: without the npm_config_* variables pnpm sets for its scripts. */
function userEnv(): NodeJS.ProcessEnv {
  const env = offlineEnv();
  for (const key of Object.keys(env)) if (/^(npm|pnpm)_/i.test(key)) delete env[key];
  return env;
}

function sh(command: string, args: string[], cwd: string) {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', env: userEnv(), timeout: 600_000 });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

interface Project {
  dir: string;
  created: Awaited<ReturnType<typeof runCli>>;
  install: ReturnType<typeof sh>;
}

// Created and installed once, by whichever test asks first; the second builds on the first's install.
let project: Promise<Project> | undefined;
function createdProject(): Promise<Project> {
  project ??= (async () => {
    const created = await runCli(['create', 'my_agent'], { cwd: work, timeoutMs: 120_000 });
    const dir = join(work, 'my_agent');
    // `--loglevel=http` lists every registry request: none may be for an @adk/* package.
    const install =
      created.code === 0
        ? sh('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=http'], dir)
        : { status: null, output: 'not installed: adk create failed' };
    return { dir, created, install };
  })();
  return project;
}

describe('adk create from a checkout', () => {
  it('makes a project that npm installs, type-checks and runs', { timeout: 900_000 }, async () => {
    expect(relative(repoRoot, work).startsWith('..')).toBe(true);
    const { dir, created, install } = await createdProject();
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    expect(created.stdout).toContain(`packed from the checkout at ${repoRoot}`);

    // Every @adk/* dependency is a tarball inside the project, @adk/core included (a peer of all).
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    const specs: Record<string, string> = { ...pkg.dependencies, ...pkg.devDependencies };
    const adk = Object.entries(specs).filter(([name]) => name.startsWith('@adk/'));
    expect(Object.fromEntries(adk)).toMatchObject({
      '@adk/core': expect.stringMatching(/^file:vendor\/adk\/adk-core-\d+\.\d+\.\d+\.tgz$/),
      '@adk/cli': expect.stringMatching(/^file:vendor\/adk\/adk-cli-/),
      '@adk/server': expect.stringMatching(/^file:vendor\/adk\/adk-server-/),
      '@adk/dev-ui': expect.stringMatching(/^file:vendor\/adk\/adk-dev-ui-/),
      '@adk/eval': expect.stringMatching(/^file:vendor\/adk\/adk-eval-/),
      '@adk/mcp': expect.stringMatching(/^file:vendor\/adk\/adk-mcp-/),
      '@adk/config': expect.stringMatching(/^file:vendor\/adk\/adk-config-/),
    });
    for (const [, spec] of adk) expect(existsSync(join(dir, spec.slice('file:'.length)))).toBe(true);
    const readme = readFileSync(join(dir, 'README.md'), 'utf8');
    expect(readme).toContain('packed from that checkout into');
    expect(readme).toContain('`vendor/adk/`');

    expect(install.status, install.output).toBe(0);
    expect(install.output).toContain('npm http fetch');
    expect(install.output).not.toMatch(/\/@adk(%2f|\/)/i);
    expect(install.output).not.toMatch(/\b404\b/);
    // Installed from the tarballs (copies), not linked back into the checkout.
    const installedCore = realpathSync(join(dir, 'node_modules', '@adk', 'core'));
    expect(installedCore.startsWith(dir)).toBe(true);
    expect(readdirSync(join(dir, 'node_modules', '@adk')).sort()).toEqual(
      adk.map(([name]) => name.slice('@adk/'.length)).sort(),
    );

    const tsc = sh(join(dir, 'node_modules', '.bin', 'tsc'), ['--noEmit'], dir);
    expect(tsc.output).toBe('');
    expect(tsc.status).toBe(0);

    // The project's own adk (from the tarball), with a question on stdin.
    const adkBin = join(dir, 'node_modules', '.bin', 'adk');
    const run = spawnSync(adkBin, ['run', '.'], {
      cwd: dir,
      input: 'What time is it in UTC?\n',
      encoding: 'utf8',
      env: userEnv(),
      timeout: 60_000,
    });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stderr).toContain('Running my_agent (app my_agent)');
    expect(run.stderr).not.toMatch(/error/i);
    expect(run.stdout).toContain('→ get_current_time(');
    expect(run.stdout).toMatch(/← get_current_time: \{"timezone":"UTC","time":"/);
    expect(run.stdout).toContain('[my_agent]: [offline demo model');
  });
});

// A provider package of a third party: written and built outside the workspace against the
// installed @adk/core (a peer), packed with npm pack, installed into the project from its tarball.
const ACME_PROVIDER = `import type { Llm, LlmRequest, LlmResponse, ModelRegistry } from '@adk/core';

/** Answers every request by echoing the last user text, with its own name. */
export class AcmeModel implements Llm {
  readonly capabilities = { responseSchemaWithTools: true };
  constructor(readonly model: string) {}

  async *generate(request: LlmRequest): AsyncGenerator<LlmResponse> {
    const last = request.contents.at(-1);
    const text = last?.parts.map((part) => part.text ?? '').join('') ?? '';
    yield {
      content: { role: 'model', parts: [{ text: \`acme model \${this.model} heard: \${text.trim()}\` }] },
      turnComplete: true,
    };
  }
}

/** Serves the model names acme-*. */
export function registerAcme(registry: ModelRegistry): ModelRegistry {
  return registry.register({ name: 'acme', matches: (model) => /^acme-/.test(model), create: (model) => new AcmeModel(model) });
}
`;

const ACME_AGENT = `import { defaultModelRegistry, LlmAgent } from '@adk/core';
import { registerAcme } from 'acme-adk-provider';

registerAcme(defaultModelRegistry);

export const rootAgent = new LlmAgent({
  name: 'my_agent',
  description: 'An agent on a third-party model.',
  model: 'acme-1',
  instruction: 'Answer briefly.',
});
`;

describe('a third-party provider package', () => {
  it('serves its model names under adk run, in front of the demo model', { timeout: 900_000 }, async () => {
    const { dir, install } = await createdProject();
    expect(install.status, install.output).toBe(0);

    const provider = join(work, 'acme-adk-provider');
    mkdirSync(join(provider, 'src'), { recursive: true });
    mkdirSync(join(provider, 'node_modules', '@adk'), { recursive: true });
    // Its development copy of the peer: the one the project installed.
    symlinkSync(join(dir, 'node_modules', '@adk', 'core'), join(provider, 'node_modules', '@adk', 'core'));
    writeFileSync(join(provider, 'src', 'index.ts'), ACME_PROVIDER);
    writeFileSync(
      join(provider, 'package.json'),
      `${JSON.stringify(
        {
          name: 'acme-adk-provider',
          version: '1.0.0',
          type: 'module',
          exports: { '.': { types: './dist/index.d.ts', default: './dist/index.js' } },
          files: ['dist'],
          peerDependencies: { '@adk/core': '*' },
        },
        null,
        2,
      )}\n`,
    );
    writeFileSync(
      join(provider, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2023',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          declaration: true,
          skipLibCheck: true,
          types: [],
          rootDir: 'src',
          outDir: 'dist',
        },
        include: ['src'],
      }),
    );
    const build = sh(join(dir, 'node_modules', '.bin', 'tsc'), ['-p', '.'], provider);
    expect(build.output).toBe('');
    expect(build.status).toBe(0);
    const pack = sh('npm', ['pack', '--silent'], provider);
    expect(pack.status, pack.output).toBe(0);
    const tarball = join(provider, pack.output.trim().split('\n').at(-1) ?? '');
    expect(existsSync(tarball), pack.output).toBe(true);

    const add = sh('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', tarball], dir);
    expect(add.status, add.output).toBe(0);
    // A copy from the tarball, sharing the project's @adk/core (no second copy under it).
    const installed = realpathSync(join(dir, 'node_modules', 'acme-adk-provider'));
    expect(installed.startsWith(dir)).toBe(true);
    expect(existsSync(join(installed, 'node_modules'))).toBe(false);

    writeFileSync(join(dir, 'agent.ts'), ACME_AGENT);
    const tsc = sh(join(dir, 'node_modules', '.bin', 'tsc'), ['--noEmit'], dir);
    expect(tsc.output).toBe('');
    expect(tsc.status).toBe(0);

    // No key is set, so the CLI's demo model is registered too: it must not answer acme-1.
    const run = spawnSync(join(dir, 'node_modules', '.bin', 'adk'), ['run', '.'], {
      cwd: dir,
      input: 'Hello there\n',
      encoding: 'utf8',
      env: userEnv(),
      timeout: 60_000,
    });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stderr).toContain('Running my_agent (app my_agent) — model: acme-1');
    expect(run.stdout).toContain('[my_agent]: acme model acme-1 heard: Hello there');
    expect(run.stdout).not.toContain('offline demo model');
  });
});
