#!/usr/bin/env node
// Bundles a package's tsc output: one file per `exports` entry plus shared chunks, so importing a
// package reads a handful of files instead of one per source module (the ESM loader's per-file
// cost dominated import time). Declarations (.d.ts) stay as tsc wrote them. Dependencies and peer
// dependencies stay external. Run in a package folder after `tsc`.
import { readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join, relative } from 'node:path';
import { build } from 'esbuild';

const dir = process.cwd();
const dist = join(dir, 'dist');
const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));

const entryPoints = [];
for (const target of Object.values(pkg.exports ?? {})) {
  const file = typeof target === 'string' ? target : target.default;
  if (file?.endsWith('.js')) entryPoints.push(join(dir, file));
}
const deps = Object.keys({ ...pkg.dependencies, ...pkg.peerDependencies, ...pkg.optionalDependencies });
const external = [
  ...deps,
  ...deps.map((d) => `${d}/*`),
  ...builtinModules,
  ...builtinModules.map((m) => `node:${m}`),
];

const out = join(dir, 'dist-bundle');
rmSync(out, { recursive: true, force: true });
await build({
  entryPoints,
  outdir: out,
  outbase: dist,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node22',
  external,
  // No keepNames: its `__name(…)` calls are side effects that stop bundlers from dropping unused
  // classes (tree-shaking); nothing reads a minified or renamed function's name.
  sourcemap: false,
  chunkNames: 'chunks/[name]-[hash]',
  logLevel: 'warning',
});

// Replace tsc's per-module JavaScript with the bundle; keep every .d.ts.
function removeJs(folder) {
  for (const name of readdirSync(folder)) {
    const path = join(folder, name);
    if (statSync(path).isDirectory()) removeJs(path);
    else if (name.endsWith('.js') || name.endsWith('.js.map')) rmSync(path);
  }
}
removeJs(dist);
function moveInto(from, to) {
  for (const name of readdirSync(from)) {
    const source = join(from, name);
    const target = join(to, name);
    if (statSync(source).isDirectory()) {
      try {
        statSync(target);
      } catch {
        renameSync(source, target);
        continue;
      }
      moveInto(source, target);
    } else renameSync(source, target);
  }
}
moveInto(out, dist);
rmSync(out, { recursive: true, force: true });
console.log(`bundled ${entryPoints.map((e) => relative(dir, e)).join(', ')}`);
