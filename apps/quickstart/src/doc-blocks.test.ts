// Every ```ts block of the READMEs and docs (README.md, docs/**, packages/*/README.md, apps/**/README.md)
// is checked here as a reader would use it: each is written to a file, all are type-checked in one
// `tsc` project (strict), and the `run` ones are executed with Node, against a scripted model put in
// place of whatever provider the block registers (so `registerGemini()` and 'gemini-2.5-flash' stay as
// written). A block without a marker fails the test. The marker is an HTML comment on the line
// before the block:
//   <!-- doc-test run {"script": [...]} -->   type-check and run; `script` are ScriptedModel steps; its
//                                             output must equal the ```text block that follows it
//   <!-- doc-test run {"silent": true} -->     a block that prints nothing: it runs and must print nothing
//   <!-- doc-test run {"serve": "GET /path"} --> a block that starts a server and keeps it open: the
//            server listens on a free port of 127.0.0.1 instead of the port written (a port the doc
//            names may be busy), the harness sends that request when it listens, and the run passes
//            when the answer is not an error (below 400). `"body"` is sent as JSON, with `"headers"`. The block's own
//            output is not compared (it names the port). Then the process exits.
//   <!-- doc-test types needs GEMINI_API_KEY --> type-check only, with the reason it cannot run here
//            (a key, a container engine, a browser, a peer on the network)
//   <!-- doc-test fragment <why> -->           not a program (a signature, a line of a test file):
//            type-checked with the `given` declarations, never run. Keep these few.
// Each may end in `{"given": "declare const runner: import('@adk/core').Runner;"}`: code put before the
// block, for a block that continues an earlier one (its `runner`, `agent`…). For `run` it is real code.
// `"files": {"agent.ts": "…", "skills/x/SKILL.md": "…"}` are files of the reader's own that the block
// imports or reads, written beside it; the block then runs in that directory. `"env": {…}` are
// environment variables a reader sets (`DATABASE_URL`), set for its run.
// A block whose info string names a file (```ts file=agent.ts) is written under that name, beside the
// other named blocks of the same page, so `import { rootAgent } from './agent.js'` finds it.
// Each run has its own working directory (a block may write ./.adk); at most two run at a time.
// Blocks may import what this app depends on (its dependencies and devDependencies).
import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const app = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const root = resolve(app, '../..');
const work = join(app, '.doc-blocks');

type Mode = 'run' | 'types' | 'fragment';

interface Block {
  file: string;
  line: number;
  mode: Mode | undefined;
  code: string;
  script: unknown[];
  given: string;
  expected: string | undefined;
  silent: boolean;
  serve: { request: string; body?: unknown; headers?: Record<string, string> } | undefined;
  reason: string;
  /** Environment variables the reader would set (`DATABASE_URL`…). */
  env: Record<string, string>;
  /** Files the block reads or imports that a reader has of their own, written beside it. */
  files: Record<string, string>;
  /** Where the block is written, relative to the work directory. */
  module: string;
}

/** The pages whose ```ts blocks are checked (generated API reports and changelogs are not docs). */
function markdownFiles(): string[] {
  return execFileSync('git', ['ls-files', '*.md'], { cwd: root, encoding: 'utf8' })
    .split('\n')
    .filter(
      (f) =>
        /^[^/]+\.md$/.test(f) ||
        /^docs\/.+\.md$/.test(f) ||
        /^packages\/[^/]+\/README\.md$/.test(f) ||
        /^apps\/(.+\/)?README\.md$/.test(f),
    )
    .filter((f) => !f.endsWith('CHANGELOG.md') && !f.includes('node_modules'));
}

const slug = (s: string) => s.replace(/[^a-zA-Z0-9]+/g, '_');

function blocks(): Block[] {
  const found: Block[] = [];
  for (const file of markdownFiles()) {
    const text = readFileSync(join(root, file), 'utf8');
    // A fence may be indented (a block inside a list item); its marker is on the line before.
    const re = /^([ \t]*)```(?:ts|typescript)(?:[ \t]+([^\n]*))?\n([\s\S]*?)^[ \t]*```[ \t]*$/gm;
    for (const m of text.matchAll(re)) {
      const indent = m[1] ?? '';
      const info = m[2] ?? '';
      const code = (m[3] ?? '')
        .split('\n')
        .map((l) => (l.startsWith(indent) ? l.slice(indent.length) : l))
        .join('\n');
      const before = text.slice(0, m.index).split('\n');
      const line = before.length;
      const marker = /^\s*<!--\s*doc-test\s+(run|types|fragment)\b([\s\S]*?)-->\s*$/.exec(
        before.at(-2) ?? '',
      );
      const mode = marker?.[1] as Mode | undefined;
      const rest = (marker?.[2] ?? '').trim();
      const after = text.slice((m.index ?? 0) + m[0].length);
      // The ```text block right after it: prose may come in between, no other fence (sticky: from here).
      const output = /(?:(?![ \t]*```)[^\n]*\n)*?([ \t]*)```text\n([\s\S]*?)^[ \t]*```/my.exec(after);
      const printed = output?.[2]
        ?.split('\n')
        .map((l) => (l.startsWith(output[1] ?? '') ? l.slice((output[1] ?? '').length) : l))
        .join('\n');
      // `run {json}` or `types <reason> {json}`: the JSON (script, given…) starts at the first `{`.
      const brace = rest.indexOf('{');
      const options = (brace >= 0 ? JSON.parse(rest.slice(brace)) : {}) as {
        script?: unknown[];
        given?: string;
        silent?: boolean;
        serve?: string;
        body?: unknown;
        headers?: Record<string, string>;
        env?: Record<string, string>;
        files?: Record<string, string>;
      };
      const silent = options.silent === true || options.serve !== undefined;
      const named = /(?:^|\s)file=([\w.-]+\.ts)(?:\s|$)/.exec(info)?.[1];
      found.push({
        file,
        line,
        mode,
        code,
        script: options.script ?? [],
        given: options.given ?? '',
        expected: silent ? '' : printed,
        silent,
        serve:
          options.serve === undefined
            ? undefined
            : { request: options.serve, body: options.body, headers: options.headers },
        reason: mode === 'run' ? '' : (brace >= 0 ? rest.slice(0, brace) : rest).trim(),
        files: options.files ?? {},
        env: options.env ?? {},
        module: named
          ? join(slug(file), named)
          : options.files
            ? join(`${slug(file)}_L${line}`, 'block.ts')
            : `${slug(file)}_L${line}.ts`,
      });
    }
  }
  return found;
}

const all = blocks();
const where = (b: Block) => `${b.file}:${b.line}`;

// Replaces what a provider creates with a scripted model; the provider's `matches` still decides
// which names resolve, so a block that forgets `registerGemini()` still fails as it would for real.
// A relative `./x.js` import that has no such file loads `./x.ts` (as tsc resolves it). For a `serve`
// block, the first server to listen takes a free port of 127.0.0.1, answers one request, and the
// process ends with the outcome.
const SETUP = `import { ModelRegistry } from '@adk/core';
import { ScriptedModel } from '@adk/core/testing';
import { existsSync } from 'node:fs';
import { registerHooks } from 'node:module';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
const script = JSON.parse(process.env.ADK_DOC_SCRIPT ?? '[]');
const register = ModelRegistry.prototype.register;
ModelRegistry.prototype.register = function (provider, ...rest) {
  return register.call(this, { ...provider, create: (model) => new ScriptedModel({ model, script: [...script] }) }, ...rest);
};
registerHooks({
  resolve(specifier, context, next) {
    if (specifier.startsWith('.') && specifier.endsWith('.js') && context.parentURL?.startsWith('file:')) {
      const js = new URL(specifier, context.parentURL);
      if (!existsSync(fileURLToPath(js))) return next(specifier.replace(/\\.js$/, '.ts'), context);
    }
    return next(specifier, context);
  },
});
const serve = process.env.ADK_DOC_SERVE ? JSON.parse(process.env.ADK_DOC_SERVE) : undefined;
if (serve) {
  const listen = net.Server.prototype.listen;
  let served = false;
  net.Server.prototype.listen = function (...args) {
    if (served) return listen.apply(this, args);
    served = true;
    const callback = typeof args.at(-1) === 'function' ? args.at(-1) : undefined;
    this.once('listening', async () => {
      const [method, path] = serve.request.split(' ');
      const { port } = this.address();
      try {
        const res = await fetch(\`http://127.0.0.1:\${port}\${path}\`, {
          method,
          headers: { ...(serve.body === undefined ? {} : { 'content-type': 'application/json' }), ...serve.headers },
          ...(serve.body === undefined ? {} : { body: JSON.stringify(serve.body) }),
        });
        const body = await res.text();
        if (res.status >= 400) {
          process.stderr.write(\`\${serve.request} answered \${res.status}: \${body.slice(0, 500)}\\n\`);
          process.exit(1);
        }
        process.exit(0);
      } catch (error) {
        process.stderr.write(\`\${serve.request} failed: \${error?.stack ?? error}\\n\`);
        process.exit(1);
      }
    });
    return callback ? listen.call(this, 0, '127.0.0.1', callback) : listen.call(this, 0, '127.0.0.1');
  };
}
`;

beforeAll(() => {
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  for (const b of all) {
    mkdirSync(dirname(join(work, b.module)), { recursive: true });
    writeFileSync(join(work, b.module), `${b.given}\n${b.code}\nexport {};\n`);
    for (const [path, content] of Object.entries(b.files)) {
      mkdirSync(dirname(join(work, dirname(b.module), path)), { recursive: true });
      writeFileSync(join(work, dirname(b.module), path), content);
    }
  }
  writeFileSync(join(work, 'setup.mjs'), SETUP);
  writeFileSync(
    join(work, 'tsconfig.json'),
    JSON.stringify({
      extends: '../../../tsconfig.base.json',
      compilerOptions: { noEmit: true, types: ['node'], noUnusedLocals: false },
      include: ['**/*.ts'],
    }),
  );
});

afterAll(() => rmSync(work, { recursive: true, force: true }));

// At most two blocks run at a time (the machine running CI may have two cores).
let running = 0;
const waiting: (() => void)[] = [];
async function slot<T>(task: () => Promise<T>): Promise<T> {
  if (running >= 2) await new Promise<void>((r) => waiting.push(r));
  running++;
  try {
    return await task();
  } finally {
    running--;
    waiting.shift()?.();
  }
}

function runBlock(b: Block): Promise<{ stdout: string; stderr: string; code: number | null }> {
  // A block with files runs beside them (it reads ./agents, ./skills…); others in a directory of their own.
  const cwd =
    Object.keys(b.files).length > 0 ? join(work, dirname(b.module)) : join(work, 'run', slug(b.module));
  mkdirSync(cwd, { recursive: true });
  return new Promise((done) => {
    execFile(
      process.execPath,
      ['--import', pathToFileURL(join(work, 'setup.mjs')).href, join(work, b.module)],
      {
        cwd,
        encoding: 'utf8',
        timeout: 120_000,
        env: {
          ...process.env,
          ADK_DOC_SCRIPT: JSON.stringify(b.script),
          ADK_DOC_SERVE: b.serve ? JSON.stringify(b.serve) : '',
          NODE_NO_WARNINGS: '1',
          ...b.env,
        },
      },
      (error, stdout, stderr) => done({ stdout, stderr, code: error ? ((error.code as number) ?? 1) : 0 }),
    );
  });
}

describe('code blocks of the READMEs and docs', () => {
  it('finds the blocks (the core quick start among them), each with a marker', () => {
    expect(all.some((b) => b.file === 'packages/core/README.md' && b.mode === 'run')).toBe(true);
    const unmarked = all.filter((b) => b.mode === undefined).map(where);
    expect(unmarked, 'blocks without <!-- doc-test run|types|fragment … --> on the line before').toEqual([]);
    for (const b of all)
      if (b.mode === 'run') expect(b.expected, `${where(b)} has no text output block`).toBeDefined();
    for (const b of all)
      if (b.mode === 'types' || b.mode === 'fragment')
        expect(b.reason, `${where(b)} says why it is not run`).not.toBe('');
  });

  it('every block type-checks', () => {
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
  }, 180_000);

  for (const b of all.filter((x) => x.mode === 'run')) {
    const what = b.serve ? `serves ${b.serve.request}` : 'prints what the doc says';
    it.concurrent(`${where(b)} runs and ${what}`, async () => {
      const { stdout, stderr, code } = await slot(() => runBlock(b));
      expect(code, `${where(b)} failed:\n${stderr}`).toBe(0);
      if (!b.serve) expect(stdout).toBe(b.expected);
    }, 300_000);
  }
});
