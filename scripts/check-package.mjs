#!/usr/bin/env node
// The package-shape check, run by `turbo run shape` in every workspace folder.
// Public packages (packages/*): the packed tarball passes publint and `attw --profile esm-only`;
// package.json has the template's shape; every export resolves and imports after build; other
// @adk/* packages are peer dependencies only. Apps (apps/*): private, with a README and typecheck.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

const dir = process.cwd();
const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
const kind = basename(dirname(dir));
const problems = [];
const fail = (message) => problems.push(message);

function finish() {
  if (problems.length > 0) {
    console.error(`shape: ${pkg.name} has ${problems.length} problem(s):`);
    for (const p of problems) console.error(`  - ${p}`);
    process.exit(1);
  }
  console.log(`shape: ${pkg.name} ok`);
}

if (!existsSync(join(dir, 'README.md'))) fail('README.md is missing');

if (kind === 'apps') {
  if (pkg.private !== true) fail('apps must be "private": true');
  if (!pkg.scripts?.typecheck) fail('apps must have a "typecheck" script');
  finish();
  process.exit(0);
}

// --- package.json shape -------------------------------------------------------------------------
if (pkg.private) fail('public packages must not be private');
if (!pkg.name?.startsWith('@adk/')) fail('package name must be @adk/<name>');
if (pkg.type !== 'module') fail('"type" must be "module" (ESM-only)');
if (pkg.sideEffects !== false) fail('"sideEffects" must be false');
if (pkg.engines?.node !== '>=22') fail('"engines.node" must be ">=22"');
if (pkg.main || pkg.module || pkg.require) fail('ESM-only packages use "exports" only, not main/module');
if (!Array.isArray(pkg.files) || !pkg.files.includes('dist')) fail('"files" must include dist');
if (pkg.license !== 'Apache-2.0') fail('"license" must be Apache-2.0');
const exportsField = pkg.exports ?? {};
for (const [subpath, target] of Object.entries(exportsField)) {
  if (typeof target === 'string') continue;
  const keys = Object.keys(target);
  if (keys[0] !== 'types') fail(`exports["${subpath}"]: "types" must be the first condition`);
  if ('require' in target) fail(`exports["${subpath}"]: ESM-only packages have no "require" condition`);
}
for (const dep of Object.keys(pkg.dependencies ?? {})) {
  if (dep.startsWith('@adk/')) fail(`${dep} must be a peer dependency, not a dependency`);
  if (dep === 'zod') fail('zod must be a peer dependency, not a dependency');
}
if (pkg.name !== '@adk/core' && !pkg.peerDependencies?.['@adk/core']) {
  fail('@adk/core must be a peer dependency');
}
if (pkg.name === '@adk/core') {
  const adkImports = Object.keys({ ...pkg.dependencies, ...pkg.peerDependencies }).filter((d) =>
    d.startsWith('@adk/'),
  );
  if (adkImports.length > 0)
    fail(`@adk/core must not depend on other @adk packages (${adkImports.join(', ')})`);
}

// --- exports import after build ----------------------------------------------------------------
for (const [subpath, target] of Object.entries(exportsField)) {
  if (subpath.endsWith('.json')) continue;
  const file = typeof target === 'string' ? target : (target.default ?? target.import);
  const types = typeof target === 'string' ? undefined : target.types;
  if (!file) {
    fail(`exports["${subpath}"] has no default target`);
    continue;
  }
  if (types && !existsSync(join(dir, types)))
    fail(`exports["${subpath}"].types: ${types} does not exist (build first)`);
  if (!existsSync(join(dir, file))) {
    fail(`exports["${subpath}"]: ${file} does not exist (build first)`);
    continue;
  }
  try {
    await import(pathToFileURL(join(dir, file)).href);
  } catch (error) {
    fail(`exports["${subpath}"]: importing ${file} failed: ${error?.message ?? error}`);
  }
}

// --- publint and attw on the packed tarball ----------------------------------------------------
const out = mkdtempSync(join(tmpdir(), 'adk-pack-'));
try {
  const packed = spawnSync('pnpm', ['pack', '--pack-destination', out], { cwd: dir, encoding: 'utf8' });
  if (packed.status !== 0) {
    fail(`pnpm pack failed: ${packed.stderr || packed.stdout}`);
    finish();
  }
  const tarball = readdirSync(out).find((f) => f.endsWith('.tgz'));
  if (!tarball) {
    fail('pnpm pack produced no tarball');
    finish();
  }
  const tarballPath = join(out, tarball);
  const tarballData = readFileSync(tarballPath);

  const { publint } = await import('publint');
  const { formatMessage } = await import('publint/utils');
  const { messages } = await publint({
    level: 'warning',
    strict: true,
    pack: {
      tarball: tarballData.buffer.slice(
        tarballData.byteOffset,
        tarballData.byteOffset + tarballData.byteLength,
      ),
    },
  });
  for (const m of messages) fail(`publint: ${formatMessage(m, pkg) ?? m.code}`);

  const require = createRequire(import.meta.url);
  const attwPkgPath = require.resolve('@arethetypeswrong/cli/package.json');
  const attwPkg = JSON.parse(readFileSync(attwPkgPath, 'utf8'));
  const attwBin = join(
    dirname(attwPkgPath),
    typeof attwPkg.bin === 'string' ? attwPkg.bin : attwPkg.bin.attw,
  );
  const attw = spawnSync(
    process.execPath,
    [attwBin, tarballPath, '--profile', 'esm-only', '--format', 'ascii'],
    {
      encoding: 'utf8',
    },
  );
  if (attw.status !== 0) fail(`attw --profile esm-only failed:\n${attw.stdout}${attw.stderr}`);
} finally {
  rmSync(out, { recursive: true, force: true });
}

finish();
