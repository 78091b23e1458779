// Runs the code blocks of the READMEs and docs that are marked for it, as a reader would: each
// marked ```ts block is written to a file, type-checked with `tsc` (strict), and — for `run` —
// executed with Node, against a scripted model put in place of whatever provider the block
// registers (so `registerGemini()` and 'gemini-2.5-flash' stay as written). Its output must equal
// the ```text block that follows it. Markers (an HTML comment on the line before the block):
//   <!-- doc-test run {"script": [...]} -->   type-check and run; `script` are ScriptedModel steps
//   <!-- doc-test run {"silent": true} -->     a block that prints nothing: it runs and must print nothing
//   <!-- doc-test types needs GEMINI_API_KEY --> type-check only, with the reason
// Either may end in `{"given": "declare const runner: import('@adk/core').Runner;"}`: declarations
// put before the block, for a block that continues an earlier one (its `runner`, `agent`…).
// Blocks may import what this app depends on (@adk/core, the model packages, zod).
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const app = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const root = resolve(app, '../..');
const work = join(app, '.doc-blocks');

interface Block {
  file: string;
  line: number;
  mode: 'run' | 'types';
  code: string;
  script: unknown[];
  given: string;
  expected: string | undefined;
  silent: boolean;
  reason: string;
}

function markdownFiles(): string[] {
  return execFileSync('git', ['ls-files', 'README.md', 'docs', 'packages', 'apps'], {
    cwd: root,
    encoding: 'utf8',
  })
    .split('\n')
    .filter((f) => f.endsWith('.md') && !f.endsWith('CHANGELOG.md') && !f.includes('node_modules'));
}

function blocks(): Block[] {
  const found: Block[] = [];
  for (const file of markdownFiles()) {
    const text = readFileSync(join(root, file), 'utf8');
    const re = /<!--\s*doc-test\s+(run|types)\b([\s\S]*?)-->\s*\n```ts[^\n]*\n([\s\S]*?)^```/gm;
    for (const m of text.matchAll(re)) {
      const mode = m[1] as 'run' | 'types';
      const rest = (m[2] ?? '').trim();
      const line = text.slice(0, m.index).split('\n').length;
      const after = text.slice((m.index ?? 0) + m[0].length);
      const output = /^\s*(?:[^\n`]*\n)*?\s*```text\n([\s\S]*?)^```/m.exec(after);
      // `run {json}` or `types <reason> {json}`: the JSON (script, given) starts at the first `{`.
      const brace = rest.indexOf('{');
      const options = (brace >= 0 ? JSON.parse(rest.slice(brace)) : {}) as {
        script?: unknown[];
        given?: string;
        silent?: boolean;
      };
      const silent = options.silent === true;
      found.push({
        file,
        line,
        mode,
        code: m[3] ?? '',
        script: options.script ?? [],
        given: options.given ?? '',
        expected: silent ? '' : output?.[1],
        silent,
        reason: mode === 'types' ? (brace >= 0 ? rest.slice(0, brace) : rest).trim() : '',
      });
    }
  }
  return found;
}

const all = blocks();
const name = (b: Block) => `${b.file.replace(/[^a-zA-Z0-9]+/g, '_')}_L${b.line}`;

// Replaces what a provider creates with a scripted model; the provider's `matches` still decides
// which names resolve, so a block that forgets `registerGemini()` still fails as it would for real.
const SETUP = `import { ModelRegistry } from '@adk/core';
import { ScriptedModel } from '@adk/core/testing';
const script = JSON.parse(process.env.ADK_DOC_SCRIPT ?? '[]');
const register = ModelRegistry.prototype.register;
ModelRegistry.prototype.register = function (provider, ...rest) {
  return register.call(this, { ...provider, create: (model) => new ScriptedModel({ model, script: [...script] }) }, ...rest);
};
`;

beforeAll(() => {
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  for (const b of all) writeFileSync(join(work, `${name(b)}.ts`), `${b.given}\n${b.code}\nexport {};\n`);
  writeFileSync(join(work, 'setup.mjs'), SETUP);
  writeFileSync(
    join(work, 'tsconfig.json'),
    JSON.stringify({
      extends: '../../../tsconfig.base.json',
      compilerOptions: { noEmit: true, types: ['node'], noUnusedLocals: false },
      include: ['*.ts'],
    }),
  );
});

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('code blocks of the READMEs and docs', () => {
  it('finds the marked blocks (the core quick start among them)', () => {
    expect(all.some((b) => b.file === 'packages/core/README.md' && b.mode === 'run')).toBe(true);
    for (const b of all)
      if (b.mode === 'run') expect(b.expected, `${b.file}:${b.line} has no text output block`).toBeDefined();
    for (const b of all)
      if (b.mode === 'types') expect(b.reason, `${b.file}:${b.line} says why it is not run`).not.toBe('');
  });

  it('every block of a package README that imports only our packages, zod and node: is marked', () => {
    const unmarked: string[] = [];
    for (const file of markdownFiles().filter((f) => /^packages\/[^/]+\/README\.md$/.test(f))) {
      const text = readFileSync(join(root, file), 'utf8');
      for (const m of text.matchAll(/(<!--[^\n]*-->\s*\n)?```ts[^\n]*\n([\s\S]*?)^```/gm)) {
        const sources = [...(m[2] ?? '').matchAll(/^import [^;]*? from '([^']+)'/gm)].map((i) => i[1] ?? '');
        const ours = sources.length > 0 && sources.every((x) => /^(@adk\/|zod$|node:)/.test(x));
        if (ours && !m[1]?.includes('doc-test'))
          unmarked.push(`${file}:${text.slice(0, m.index).split('\n').length}`);
      }
    }
    expect(unmarked).toEqual([]);
  });

  it('every marked block type-checks', () => {
    const tsc = join(root, 'node_modules/typescript/bin/tsc');
    try {
      execFileSync(process.execPath, [tsc, '-p', join(work, 'tsconfig.json')], {
        cwd: work,
        encoding: 'utf8',
      });
    } catch (error) {
      const out = `${(error as { stdout?: string }).stdout ?? ''}`;
      throw new Error(`doc blocks do not type-check:\n${out.replaceAll(`${relative(root, work)}/`, '')}`);
    }
  }, 120_000);

  for (const b of all.filter((x) => x.mode === 'run')) {
    it(`${b.file}:${b.line} runs and prints what the doc says`, () => {
      const stdout = execFileSync(process.execPath, ['--import', './setup.mjs', `${name(b)}.ts`], {
        cwd: work,
        encoding: 'utf8',
        env: { ...process.env, ADK_DOC_SCRIPT: JSON.stringify(b.script), NODE_NO_WARNINGS: '1' },
      });
      expect(stdout).toBe(b.expected);
    }, 60_000);
  }
});
