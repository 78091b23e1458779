import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, sep } from 'node:path';
import { promisify } from 'node:util';
import { CliUsageError } from '../errors.js';

/** Where a new project gets its `@adk/*` packages: the npm registry, or tarballs packed from a checkout. */
export type PackageSource = 'registry' | 'checkout';

/** A checkout of the ADK for TypeScript repository that the running CLI belongs to. */
export interface Checkout {
  /** The repository root (the folder with pnpm-workspace.yaml). */
  root: string;
  /** Public workspace packages by name: their folder and package.json. */
  packages: Map<string, { dir: string; pkg: PackageManifest }>;
}

interface PackageManifest {
  name: string;
  version: string;
  private?: boolean;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}

function readManifest(file: string): PackageManifest | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as PackageManifest;
  } catch {
    return undefined;
  }
}

/** The folder of the running `@adk/cli` package (symlinks resolved). */
export function cliPackageDir(): string {
  const require = createRequire(import.meta.url);
  return realpathSync(dirname(require.resolve('@adk/cli/package.json')));
}

/**
 * The checkout the CLI runs from, or undefined for an installed CLI. A checkout is recognised by
 * its shape, not by a guess: the CLI's own folder is `<root>/packages/cli` (not inside
 * node_modules), `<root>` has pnpm-workspace.yaml, and the workspace holds the sources of
 * `@adk/cli` and `@adk/core`. An installed CLI (`node_modules/@adk/cli`) never matches, even inside
 * someone else's pnpm workspace.
 */
export function findCheckout(cliDir: string = cliPackageDir()): Checkout | undefined {
  if (cliDir.split(sep).includes('node_modules')) return undefined;
  const root = dirname(dirname(cliDir));
  if (relative(root, cliDir) !== join('packages', 'cli')) return undefined;
  if (!existsSync(join(root, 'pnpm-workspace.yaml'))) return undefined;
  const cli = readManifest(join(cliDir, 'package.json'));
  const core = readManifest(join(root, 'packages', 'core', 'package.json'));
  if (cli?.name !== '@adk/cli' || core?.name !== '@adk/core') return undefined;
  if (!existsSync(join(cliDir, 'src')) || !existsSync(join(root, 'packages', 'core', 'src')))
    return undefined;
  const packages = new Map<string, { dir: string; pkg: PackageManifest }>();
  for (const name of readdirSync(join(root, 'packages'))) {
    const dir = join(root, 'packages', name);
    const pkg = readManifest(join(dir, 'package.json'));
    if (pkg?.name?.startsWith('@adk/') && !pkg.private) packages.set(pkg.name, { dir, pkg });
  }
  return { root, packages };
}

/**
 * The workspace packages a project needs to install `wanted` from tarballs: each wanted package,
 * its `@adk/*` dependencies and its non-optional `@adk/*` peers, transitively. npm would otherwise
 * look the peers up on the registry, where they are not published.
 */
export function packageClosure(checkout: Checkout, wanted: string[]): string[] {
  const seen = new Set<string>();
  const visit = (name: string) => {
    if (seen.has(name)) return;
    const entry = checkout.packages.get(name);
    if (!entry) throw new CliUsageError(`${name} is not a package of the checkout at ${checkout.root}`);
    seen.add(name);
    const { pkg } = entry;
    const optional = new Set(
      Object.entries(pkg.peerDependenciesMeta ?? {})
        .filter(([, meta]) => meta.optional)
        .map(([dep]) => dep),
    );
    for (const dep of Object.keys({ ...pkg.dependencies, ...pkg.peerDependencies }))
      if (dep.startsWith('@adk/') && !optional.has(dep)) visit(dep);
  };
  for (const name of wanted) visit(name);
  return [...seen].sort();
}

const run = promisify(execFile);

/**
 * The pnpm to pack with: the one the checkout's bootstrap provisioned (`.tools/bin/pnpm`, what the
 * root `npm start` installs), else `pnpm` on PATH, else npm's `npx pnpm@<version>` (the
 * `packageManager` version of the checkout, fetched once into npm's cache).
 */
export function pnpmCommand(root: string): { file: string; args: string[] } {
  const provisioned = join(root, '.tools', 'bin', process.platform === 'win32' ? 'pnpm.cmd' : 'pnpm');
  if (existsSync(provisioned)) return { file: provisioned, args: [] };
  if (onPath('pnpm')) return { file: 'pnpm', args: [] };
  const manager = (readManifest(join(root, 'package.json')) as { packageManager?: string } | undefined)
    ?.packageManager;
  const version = manager?.startsWith('pnpm@') ? manager.slice('pnpm@'.length) : 'latest';
  return { file: 'npx', args: ['--yes', `pnpm@${version}`] };
}

function onPath(command: string): boolean {
  const dirs = (process.env.PATH ?? '').split(process.platform === 'win32' ? ';' : ':');
  const names = process.platform === 'win32' ? [`${command}.cmd`, `${command}.exe`] : [command];
  return dirs.some((dir) => dir && names.some((name) => existsSync(join(dir, name))));
}

/**
 * Packs each package with `pnpm pack` (which rewrites `workspace:` ranges to the versions a
 * publish would write) into `destination`, and returns the tarball file name of each package.
 * The packages must be built (`pnpm build` in the checkout): a tarball ships `dist/`.
 */
export async function packPackages(
  checkout: Checkout,
  names: string[],
  destination: string,
): Promise<Map<string, string>> {
  const unbuilt = names.filter((n) => !existsSync(join(checkout.packages.get(n)?.dir ?? '', 'dist')));
  if (unbuilt.length > 0) {
    throw new CliUsageError(
      `Build the checkout first (pnpm install && pnpm build in ${checkout.root}): ${unbuilt.join(', ')} ha${unbuilt.length === 1 ? 's' : 've'} no dist/ to pack. Or use --packages registry.`,
    );
  }
  mkdirSync(destination, { recursive: true });
  const files = new Map<string, string>();
  // Two at a time: each pnpm process is mostly start-up.
  const queue = [...names];
  const worker = async () => {
    for (let name = queue.shift(); name; name = queue.shift()) {
      const dir = checkout.packages.get(name)?.dir as string;
      let stdout: string;
      const pnpm = pnpmCommand(checkout.root);
      try {
        ({ stdout } = await run(pnpm.file, [...pnpm.args, 'pack', '--pack-destination', destination], {
          cwd: dir,
          encoding: 'utf8',
          shell: process.platform === 'win32',
        }));
      } catch (error) {
        const code = (error as { code?: string }).code;
        throw new CliUsageError(
          code === 'ENOENT'
            ? `pnpm is needed to pack ${name} from the checkout: run \`npm start\` in ${checkout.root} once (it provisions .tools/bin/pnpm), or install pnpm. Or use --packages registry.`
            : `${pnpm.file} pack failed in ${dir}: ${(error as { stderr?: string }).stderr || (error as Error).message}`,
          { cause: error },
        );
      }
      const tgz = stdout
        .trim()
        .split('\n')
        .map((line) => line.trim())
        .reverse()
        .find((line) => line.endsWith('.tgz'));
      if (!tgz) throw new CliUsageError(`pnpm pack in ${dir} named no tarball:\n${stdout}`);
      files.set(name, tgz.split(/[\\/]/).at(-1) as string);
    }
  };
  await Promise.all([worker(), worker()]);
  return files;
}
