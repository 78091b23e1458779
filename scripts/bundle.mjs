#!/usr/bin/env node
// Bundles a package's tsc output: one file per `exports` entry plus shared chunks, so importing a
// package reads a handful of files instead of one per source module (the ESM loader's per-file
// cost dominated import time). Declarations (.d.ts) stay as tsc wrote them. Dependencies and peer
// dependencies stay external. Run in a package folder after `tsc`.
//
// A package whose `exports` give a `node` condition (e.g. `"node": "./dist/bundle/index.js"`) keeps
// tsc's per-module JavaScript as its `default` target, for application bundlers, and gets the bundle
// under the `node` target's folder, for Node's loader. A bundler splits per-module code at
// `import()` boundaries; a pre-bundled chunk that holds both the eager code and what a lazily
// imported module needs would be loaded whole (docs/decisions/0024-portable-core.md).
import { readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { build, transform } from 'esbuild';

const dir = process.cwd();
const dist = join(dir, 'dist');
const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));

const entryPoints = [];
/** The folder the `node` condition points into (dist/bundle), when the package keeps per-module code too. */
let nodeOut;
for (const target of Object.values(pkg.exports ?? {})) {
  const file = typeof target === 'string' ? target : target.default;
  if (file?.endsWith('.js')) entryPoints.push(join(dir, file));
  const node = typeof target === 'string' ? undefined : target.node;
  if (typeof node === 'string' && node.endsWith('.js')) {
    const rel = relative(dist, join(dir, file));
    const folder = join(dir, node).slice(0, -rel.length - 1);
    if (!join(dir, node).endsWith(rel) || (nodeOut !== undefined && nodeOut !== folder))
      throw new Error(`exports: the "node" target ${node} must be <one folder>/${rel}`);
    nodeOut = folder;
  }
}
const deps = Object.keys({ ...pkg.dependencies, ...pkg.peerDependencies, ...pkg.optionalDependencies });
const external = [
  ...deps,
  ...deps.map((d) => `${d}/*`),
  ...builtinModules,
  ...builtinModules.map((m) => `node:${m}`),
];

/**
 * For the `node` bundle only: a package-internal `import('./x.js')` becomes a static import whose
 * namespace the expression resolves to. esbuild cuts a shared chunk at every dynamic import, so the
 * lazily loaded modules (which keep the per-module code small for bundlers) left Node's loader about
 * 50 files to read and link on `import`; with static imports the bundle is back to one chunk per
 * set of entries that share code. The modules load with the package instead of on first use, as
 * they did before they were made lazy; the per-module code keeps its `import()`s.
 */
const staticInternalImports = {
  name: 'static-internal-imports',
  setup(b) {
    b.onLoad({ filter: /\.js$/ }, (args) => {
      if (!args.path.startsWith(dist) || (nodeOut !== undefined && args.path.startsWith(nodeOut)))
        return undefined;
      const source = readFileSync(args.path, 'utf8');
      const lazy = [];
      const code = source.replace(/\bimport\((['"])(\.{1,2}\/[^'"]+\.js)\1\)/g, (_match, _quote, spec) => {
        const name = `__adkLazy${lazy.length}`;
        lazy.push(`import * as ${name} from ${JSON.stringify(spec)};`);
        return `Promise.resolve(${name})`;
      });
      if (lazy.length === 0) return undefined;
      return { contents: `${lazy.join('\n')}\n${code}`, loader: 'js', resolveDir: dirname(args.path) };
    });
  },
};

const out = nodeOut ?? join(dir, 'dist-bundle');
rmSync(out, { recursive: true, force: true });
await build({
  plugins: nodeOut !== undefined ? [staticInternalImports] : [],
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
  // The `node` bundle is what Node compiles on `import`, and compiling is proportional to its
  // characters: without whitespace it compiles in about three quarters of the time. Names stay
  // (stack traces keep function names), and a linked source map points each position back into
  // the per-module code beside it (`node --enable-source-maps`).
  ...(nodeOut !== undefined ? { minifyWhitespace: true, sourcemap: 'linked', sourcesContent: false } : {}),
});

if (nodeOut !== undefined) {
  // The per-module code is for application bundlers, which read no comments: the documentation
  // travels in the .d.ts files. Dropping tsc's comments (esbuild keeps legal and /* @__PURE__ */
  // ones, and changes no syntax at target esnext) takes about a fifth off the package's size.
  await stripComments(dist, nodeOut);
  console.log(
    `bundled ${entryPoints.map((e) => relative(dir, e)).join(', ')} into ${relative(dir, nodeOut)}`,
  );
  process.exit(0);
}

/** Rewrites every .js file under `folder` (except under `skip`) without its comments. */
async function stripComments(folder, skip) {
  for (const name of readdirSync(folder)) {
    const path = join(folder, name);
    if (path === skip) continue;
    if (statSync(path).isDirectory()) await stripComments(path, skip);
    else if (name.endsWith('.js')) {
      const { code } = await transform(readFileSync(path, 'utf8'), {
        loader: 'js',
        format: 'esm',
        target: 'esnext',
        charset: 'utf8',
        legalComments: 'none',
      });
      writeFileSync(path, code);
    }
  }
}

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
