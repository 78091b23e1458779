#!/usr/bin/env node
// The package template. `node scripts/new-package.mjs <name> "<description>"` creates
// packages/<name> as @adk/<name>: ESM-only, `exports` with types first, declarations,
// `sideEffects: false`, engines node >=22, README, a vitest setup and the shape check.
// Every package except core takes @adk/core as a peer dependency.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const [name, description = ''] = process.argv.slice(2);
if (!name || !/^[a-z][a-z0-9-]*$/.test(name)) {
  console.error('usage: node scripts/new-package.mjs <kebab-name> "<description>"');
  process.exit(2);
}
const dir = join(root, 'packages', name);
if (existsSync(dir)) {
  console.error(`packages/${name} already exists`);
  process.exit(1);
}
const isCore = name === 'core';
const coreVersion = isCore
  ? '0.1.0'
  : JSON.parse(readFileSync(join(root, 'packages/core/package.json'), 'utf8')).version;

const pkg = {
  name: `@adk/${name}`,
  version: '0.1.0',
  description,
  license: 'Apache-2.0',
  type: 'module',
  sideEffects: false,
  engines: { node: '>=22' },
  exports: {
    '.': { types: './dist/index.d.ts', default: './dist/index.js' },
    './package.json': './package.json',
  },
  files: ['dist', 'README.md', 'CHANGELOG.md'],
  scripts: {
    build: 'node ../../scripts/clean.mjs dist && tsc -p tsconfig.build.json && node ../../scripts/bundle.mjs',
    typecheck: 'tsc -p tsconfig.json --noEmit',
    lint: 'biome check .',
    test: 'vitest run',
    shape: 'node ../../scripts/check-package.mjs',
    // The committed API report (api/*.api.md); `api:update` rewrites it after a public change.
    api: 'node ../../scripts/api-report.mjs',
    'api:update': 'node ../../scripts/api-report.mjs --update',
  },
  publishConfig: { access: 'public' },
  ...(isCore
    ? {}
    : {
        // 0.x: a core minor stays in range (see docs/decisions/0002-package-shape.md).
        peerDependencies: { '@adk/core': `workspace:>=${coreVersion} <1.0.0` },
        devDependencies: { '@adk/core': 'workspace:^' },
      }),
};

const tsconfig = {
  extends: '../../tsconfig.base.json',
  compilerOptions: { rootDir: 'src', outDir: 'dist' },
  include: ['src'],
};
const tsconfigBuild = {
  extends: './tsconfig.json',
  // Sources are not published, so maps would point nowhere.
  compilerOptions: { sourceMap: false, declarationMap: false },
  exclude: ['src/**/*.test.ts', 'src/**/__fixtures__/**', 'src/**/*.test-d.ts'],
};
const vitestConfig = `import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    passWithNoTests: true,
    testTimeout: 20_000,
  },
});
`;

mkdirSync(join(dir, 'src'), { recursive: true });
writeFileSync(join(dir, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);
writeFileSync(join(dir, 'tsconfig.json'), `${JSON.stringify(tsconfig, null, 2)}\n`);
writeFileSync(join(dir, 'tsconfig.build.json'), `${JSON.stringify(tsconfigBuild, null, 2)}\n`);
writeFileSync(join(dir, 'vitest.config.ts'), vitestConfig);
writeFileSync(join(dir, 'src', 'index.ts'), `export const packageName = '@adk/${name}';\n`);
writeFileSync(
  join(dir, 'README.md'),
  `# @adk/${name}\n\n${description}\n\n\`\`\`sh\npnpm add @adk/${name}${isCore ? ' zod' : ' @adk/core zod'}\n\`\`\`\n`,
);
console.log(`created packages/${name}`);
