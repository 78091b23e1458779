#!/usr/bin/env node
// The release flow, rehearsed: in a temporary copy of the workspace manifests, `changeset version`
// runs on a core minor release plus one provider patch. It must bump exactly those two packages
// (a core minor must not force a major, or any, release of every package that peer-depends on
// core), and every package's published peer range on an @adk package must accept the new version,
// also for packages that are not released again (their last published range is what users get).
// See docs/decisions/0002-package-shape.md. Run by `npm test` (root script `check:release`).
import { execFileSync } from 'node:child_process';
import {
  cpSync,
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
const CORE = '@adk/core';
const PROVIDER = '@adk/models-gemini';

// --- a small semver subset: x.y.z versions, ranges of space-separated comparators or ^/~ ---------
const parse = (v) => v.split('-')[0].split('.').map(Number);
const cmp = (a, b) => {
  const [x, y] = [parse(a), parse(b)];
  for (let i = 0; i < 3; i++) if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) - (y[i] ?? 0);
  return 0;
};
function caretUpper(v) {
  const [ma, mi, pa] = parse(v);
  if (ma > 0) return `${ma + 1}.0.0`;
  if (mi > 0) return `0.${mi + 1}.0`;
  return `0.0.${pa + 1}`;
}
function satisfies(version, range) {
  return range.split('||').some((alt) =>
    alt
      .trim()
      .split(/\s+/)
      .every((c) => {
        const m = /^(>=|<=|>|<|=|\^|~)?(\d+(?:\.\d+){0,2})$/.exec(c);
        if (!m) throw new Error(`check-release: unsupported range "${range}"`);
        const [, op = '=', v] = m;
        const d = cmp(version, v);
        if (op === '^') return d >= 0 && cmp(version, caretUpper(v)) < 0;
        if (op === '~') return d >= 0 && cmp(version, `${parse(v)[0]}.${(parse(v)[1] ?? 0) + 1}.0`) < 0;
        return { '>=': d >= 0, '<=': d <= 0, '>': d > 0, '<': d < 0, '=': d === 0 }[op];
      }),
  );
}
/** What `pnpm publish` writes for a `workspace:` range, given the dependency's version then. */
function published(spec, version) {
  if (!spec.startsWith('workspace:')) return spec;
  const range = spec.slice('workspace:'.length);
  if (range === '*') return version;
  if (range === '^' || range === '~') return `${range}${version}`;
  return range;
}

// --- a copy of the manifests -----------------------------------------------------------------------
const work = mkdtempSync(join(tmpdir(), 'adk-release-'));
const manifests = new Map();
try {
  for (const file of ['package.json', 'pnpm-workspace.yaml']) cpSync(join(root, file), join(work, file));
  mkdirSync(join(work, '.changeset'));
  cpSync(join(root, '.changeset/config.json'), join(work, '.changeset/config.json'));
  for (const group of ['packages', 'apps']) {
    for (const dir of readdirSync(join(root, group))) {
      const file = join(root, group, dir, 'package.json');
      if (!existsSync(file)) continue;
      mkdirSync(join(work, group, dir), { recursive: true });
      cpSync(file, join(work, group, dir, 'package.json'));
      const pkg = JSON.parse(readFileSync(file, 'utf8'));
      manifests.set(pkg.name, { path: join(work, group, dir, 'package.json'), before: pkg });
    }
  }
  writeFileSync(join(work, '.changeset/core-minor.md'), `---\n"${CORE}": minor\n---\n\nA core feature.\n`);
  writeFileSync(
    join(work, '.changeset/provider-fix.md'),
    `---\n"${PROVIDER}": patch\n---\n\nA provider fix.\n`,
  );

  const bin = join(root, 'node_modules/@changesets/cli/bin.js');
  execFileSync(process.execPath, [bin, 'version'], { cwd: work, stdio: ['ignore', 'pipe', 'pipe'] });

  const problems = [];
  const after = new Map([...manifests].map(([name, m]) => [name, JSON.parse(readFileSync(m.path, 'utf8'))]));
  const version = (name, when) => (when === 'before' ? manifests.get(name).before : after.get(name)).version;
  const coreBefore = version(CORE, 'before');
  const coreAfter = version(CORE, 'after');
  if (cmp(coreAfter, coreBefore) <= 0 || parse(coreAfter)[1] === parse(coreBefore)[1])
    problems.push(`${CORE} should get a minor release: ${coreBefore} → ${coreAfter}`);
  const bumped = [];
  for (const [name, m] of manifests) {
    if (m.before.private) continue;
    const from = m.before.version;
    const to = after.get(name).version;
    if (from !== to) bumped.push(`${name} ${from} → ${to}`);
    if (name !== CORE && name !== PROVIDER && from !== to) {
      // A package with a regular dependency on core ships a patch with the new range; a peer of
      // core gets no release at all, and nothing gets a minor or a major.
      const peerOnly = !after.get(name).dependencies?.[CORE];
      const patch = parse(to)[0] === parse(from)[0] && parse(to)[1] === parse(from)[1];
      if (peerOnly || !patch)
        problems.push(`${name} was released (${from} → ${to}) only because ${CORE} was`);
    }
    // The range users get: the last published one for packages not released again.
    const manifest = from === to ? m.before : after.get(name);
    for (const [dep, spec] of Object.entries(manifest.peerDependencies ?? {})) {
      if (!manifests.has(dep)) continue;
      const depVersionAtPublish = from === to ? version(dep, 'before') : version(dep, 'after');
      const range = published(spec, depVersionAtPublish);
      if (!satisfies(version(dep, 'after'), range))
        problems.push(`${name} peer ${dep}@"${range}" does not accept ${dep} ${version(dep, 'after')}`);
    }
  }
  const providerAfter = version(PROVIDER, 'after');
  if (providerAfter === version(PROVIDER, 'before')) problems.push(`${PROVIDER} should get a patch release`);

  if (problems.length > 0) {
    console.error(`check-release: changeset version gave ${bumped.join(', ')}`);
    console.error(problems.map((p) => `  - ${p}`).join('\n'));
    process.exitCode = 1;
  } else {
    console.log(
      `check-release: core minor + provider patch → ${bumped.join(', ')}; every peer range accepts them`,
    );
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
