#!/usr/bin/env node
// Types must compile for every consumer. For each public package: pack it (and the @adk packages it
// peer-depends on) as the registry would ship them, install the tarballs into a fresh project
// WITHOUT any optional peer, and type-check, with `strict` and `skipLibCheck: false`, a program
// that imports the package's main entry point and one file per ```ts example of its README.
//
// Usage: node scripts/check-consumer.mjs [package-dir-name…]   (after a build; run by `npm test`)
// The README's first ```ts block is its usage example and must be a whole program; later blocks are
// checked too when marked ```ts check.
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const rootPkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const corePkg = JSON.parse(readFileSync(join(root, 'packages/core/package.json'), 'utf8'));
// The versions the repository itself builds with (the registry is reachable for these).
const TOOLING = {
  typescript: rootPkg.devDependencies.typescript,
  '@types/node': rootPkg.devDependencies['@types/node'],
  zod: corePkg.devDependencies.zod,
};

const packagesDir = join(root, 'packages');
const all = new Map();
for (const dir of readdirSync(packagesDir)) {
  const file = join(packagesDir, dir, 'package.json');
  if (!existsSync(file)) continue;
  const pkg = JSON.parse(readFileSync(file, 'utf8'));
  if (pkg.private) continue;
  all.set(pkg.name, { dir, path: join(packagesDir, dir), pkg });
}
const only = process.argv.slice(2);
const targets = [...all.values()].filter((p) => only.length === 0 || only.includes(p.dir));

const work = mkdtempSync(join(tmpdir(), 'adk-consumer-'));
const tarballs = join(work, 'tarballs');
mkdirSync(tarballs);
const run = (cmd, args, cwd) =>
  execFileSync(cmd, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });

/** `pnpm pack` rewrites workspace: ranges the way a publish does. */
const packed = new Map();
function pack(name) {
  if (packed.has(name)) return packed.get(name);
  const { path } = all.get(name);
  const out = run('pnpm', ['pack', '--pack-destination', tarballs], path).trim().split('\n').at(-1);
  const file = out.startsWith('/') ? out : join(tarballs, out.split('/').at(-1));
  packed.set(name, file);
  return file;
}

/** The @adk packages a package needs: its dependencies and its required (non-optional) peers. */
function adkClosure(name, seen = new Set()) {
  if (seen.has(name)) return seen;
  seen.add(name);
  const { pkg } = all.get(name);
  const optional = new Set(
    Object.keys(pkg.peerDependenciesMeta ?? {}).filter((d) => pkg.peerDependenciesMeta[d].optional),
  );
  for (const dep of Object.keys({ ...pkg.dependencies, ...pkg.peerDependencies })) {
    if (dep.startsWith('@adk/') && all.has(dep) && !optional.has(dep)) adkClosure(dep, seen);
  }
  return seen;
}

function examples(readme) {
  const blocks = [];
  const re = /^```ts([^\n]*)\n([\s\S]*?)^```/gm;
  for (const m of readme.matchAll(re))
    if (blocks.length === 0 || /(^|\s)check(\s|$)/.test(m[1])) blocks.push(m[2]);
  return blocks;
}

const failures = [];
try {
  for (const target of targets) {
    const name = target.pkg.name;
    const readme = existsSync(join(target.path, 'README.md'))
      ? readFileSync(join(target.path, 'README.md'), 'utf8')
      : '';
    // A consumer installs what the examples import too (the dev UI's example needs the server).
    const closureSet = adkClosure(name);
    for (const code of examples(readme))
      for (const m of code.matchAll(/from '(@adk\/[a-z0-9-]+)/g))
        if (all.has(m[1])) adkClosure(m[1], closureSet);
    const closure = [...closureSet];
    const consumer = join(work, target.dir);
    mkdirSync(join(consumer, 'src'), { recursive: true });
    const dependencies = { zod: TOOLING.zod };
    for (const dep of closure) dependencies[dep] = `file:${pack(dep)}`;
    writeFileSync(
      join(consumer, 'package.json'),
      JSON.stringify(
        {
          name: 'adk-consumer',
          private: true,
          type: 'module',
          dependencies,
          devDependencies: { typescript: TOOLING.typescript, '@types/node': TOOLING['@types/node'] },
        },
        null,
        2,
      ),
    );
    writeFileSync(
      join(consumer, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2023',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          skipLibCheck: false,
          noEmit: true,
          types: ['node'],
        },
        include: ['src'],
      }),
    );
    // The main entry point, then the README's examples, each as its own module. Subpaths that exist
    // for an optional peer (`@adk/a2a/sql` needs kysely) need that peer by design and are left out.
    const entries = ['.'];
    writeFileSync(
      join(consumer, 'src/entries.ts'),
      `${entries.map((s, i) => `export * as entry${i} from '${name}${s === '.' ? '' : s.slice(1)}';`).join('\n')}\n`,
    );
    examples(readme).forEach((code, i) => {
      writeFileSync(join(consumer, `src/readme-${i + 1}.ts`), `${code}\nexport {};\n`);
    });
    try {
      // npm as a consumer would use it; `--prefer-offline` takes what its cache has. npm installs
      // required peers on its own and never optional ones.
      run(
        'npm',
        ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error', '--omit=optional'],
        consumer,
      );
      const installed = (dep) => existsSync(join(consumer, 'node_modules', dep, 'package.json'));
      const leaked = closure.flatMap((dep) => {
        const meta = all.get(dep).pkg.peerDependenciesMeta ?? {};
        return Object.keys(meta).filter((d) => meta[d].optional && !d.startsWith('@adk/') && installed(d));
      });
      const note =
        leaked.length > 0 ? ` (optional peers pulled in by other dependencies: ${leaked.join(', ')})` : '';
      run(join(consumer, 'node_modules/.bin/tsc'), ['-p', 'tsconfig.json'], consumer);
      console.log(
        `check-consumer: ${name}: entries and ${examples(readme).length} README example(s) type-check${note}`,
      );
    } catch (error) {
      const output = `${error.stdout ?? ''}${error.stderr ?? ''}`.trim() || String(error);
      failures.push(`${name}:\n${output.replaceAll(consumer, '<consumer>')}`);
      console.error(`check-consumer: ${name}: FAILED`);
    }
  }
} finally {
  if (failures.length === 0) rmSync(work, { recursive: true, force: true });
  else console.error(`(consumer projects kept in ${work})`);
}
if (failures.length > 0) {
  console.error(failures.join('\n\n'));
  process.exit(1);
}
