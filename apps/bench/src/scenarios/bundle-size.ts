// Bundle size of @adk/core as an application bundler sees it: esbuild bundles a one-line entry that
// imports some names from the built package (dist/, what npm installs), minified, with code splitting
// (`format: 'esm', splitting: true`, as esbuild, webpack, Vite and Next.js split an application), for a neutral
// platform (no Node built-ins: a `node:` import fails the build, so a figure here also proves the
// root is portable) and for the browser. zod, undici and OpenTelemetry stay external (peer
// dependencies the application brings). The figure checked is what the application loads up front:
// the entry chunk plus every chunk it imports statically; the total of all chunks (lazily loaded
// features included, fetched only when their method is first called) is reported beside it.
// Also the import time of @adk/core in a fresh Node.
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { runNode, summarizeError } from '../harness/child.js';
import { fmtBytes, fmtMs } from '../harness/format.js';
import { median } from '../harness/stats.js';
import { newReport, type Scenario, type ScenarioReport } from '../harness/types.js';

const EXTERNAL = ['zod', 'zod/*', 'undici', 'undici/*', '@opentelemetry/*'];

interface Case {
  label: string;
  names: string[];
  targetBytes: number;
}

const CASES: Case[] = [
  { label: '`import { userContent }`', names: ['userContent'], targetBytes: 5 * 1024 },
  {
    label: '`LlmAgent` + `Runner` + `InMemorySessionService` + `FunctionTool`',
    names: ['LlmAgent', 'Runner', 'InMemorySessionService', 'FunctionTool'],
    targetBytes: 90 * 1024,
  },
];

const IMPORT_RUNS = 15;
/** The import time of @adk/core measured before this scenario existed (issue #42: about 40 ms). */
const IMPORT_TARGET_MS = 40;

export const bundleSize: Scenario = {
  id: 'bundle-size',
  title: '17. Bundle size and portability of @adk/core',
  async run(config) {
    const report = newReport(this.id, this.title);
    const entry = coreEntry();
    const rows: string[][] = [];
    for (const c of CASES) {
      const neutral = await bundle(entry, c.names, 'neutral');
      const browser = await bundle(entry, c.names, 'browser');
      rows.push([
        c.label,
        'ok' in neutral ? fmtBytes(neutral.minified) : `fails: ${neutral.error}`,
        'ok' in neutral ? fmtBytes(neutral.gzip) : 'n/a',
        'ok' in neutral ? `${fmtBytes(neutral.total)} (${neutral.chunks} chunks)` : 'n/a',
        'ok' in browser ? fmtBytes(browser.minified) : `fails: ${browser.error}`,
      ]);
      config.log(`  ${c.label}: ${'ok' in neutral ? `${neutral.minified} B minified` : neutral.error}`);
      report.checks.push({
        scenario: report.title,
        label: `${c.label}, minified (neutral platform)`,
        target: `≤ ${fmtBytes(c.targetBytes)}`,
        measured: 'ok' in neutral ? fmtBytes(neutral.minified) : 'build failed',
        pass: 'ok' in neutral ? neutral.minified <= c.targetBytes : false,
      });
    }
    report.tables.push({
      caption:
        'esbuild 0.28, `bundle: true, minify: true, format: esm, splitting: true`, the entry `export { … } from "@adk/core"` resolved by esbuild through the built package exports (a neutral or browser build takes the `default` condition: per-module code); zod, undici and @opentelemetry/* external. Loaded up front = the entry chunk plus the chunks it imports statically (what runs before the first call of a lazily loaded method); all chunks = everything the build emits. A `node:` import fails a neutral or browser build.',
      headers: [
        'imported',
        'loaded up front, minified',
        'loaded up front, gzipped',
        'all chunks, minified',
        'browser, loaded up front',
      ],
      rows,
    });
    await measureImport(report, config.quick ? 3 : IMPORT_RUNS);
    return report;
  },
};

/**
 * `@adk/core` resolved by esbuild itself from this app's folder, through the package's `exports`
 * (built package, what npm installs): a neutral or browser build matches the `default` condition
 * (per-module code), not `node` (the bundle Node's loader reads).
 */
function coreEntry(): string {
  return fileURLToPath(new URL('../..', import.meta.url));
}

async function bundle(
  entry: string,
  names: string[],
  platform: 'neutral' | 'browser',
): Promise<{ ok: true; minified: number; gzip: number; total: number; chunks: number } | { error: string }> {
  try {
    const result = await build({
      stdin: {
        contents: `export { ${names.join(', ')} } from '@adk/core';`,
        loader: 'js',
        resolveDir: entry,
      },
      bundle: true,
      minify: true,
      write: false,
      format: 'esm',
      splitting: true,
      outdir: 'out',
      metafile: true,
      platform,
      external: EXTERNAL,
      logLevel: 'silent',
    });
    return measureChunks(result.outputFiles, result.metafile.outputs);
  } catch (error) {
    return { error: summarizeError(error).split('\n')[0] ?? 'build failed' };
  }
}

type OutputFile = { path: string; contents: Uint8Array };
type MetaOutputs = Record<
  string,
  { entryPoint?: string; imports: { path: string; kind: string; external?: boolean }[] }
>;

/**
 * The entry chunk and the chunks reachable from it through static `import` statements are what a
 * page or a process loads before it runs; chunks reached only by `import()` load on first use. The
 * entry is the application's (`<stdin>`): esbuild marks the chunk of every `import()` target as an
 * entry point too.
 */
function measureChunks(
  files: OutputFile[],
  outputs: MetaOutputs,
): { ok: true; minified: number; gzip: number; total: number; chunks: number } {
  const byRelative = new Map<string, Uint8Array>();
  for (const file of files) {
    const key = Object.keys(outputs).find((k) => file.path.endsWith(k.replace(/^out\//, '/')));
    if (key !== undefined) byRelative.set(key, file.contents);
  }
  const entryKey = Object.keys(outputs).find((k) => outputs[k]?.entryPoint === '<stdin>');
  const loaded = new Set<string>();
  const queue = entryKey === undefined ? [] : [entryKey];
  while (queue.length > 0) {
    const key = queue.pop() as string;
    if (loaded.has(key)) continue;
    loaded.add(key);
    for (const imp of outputs[key]?.imports ?? []) {
      if (imp.kind === 'import-statement' && imp.external !== true) queue.push(imp.path);
    }
  }
  const jsKeys = Object.keys(outputs).filter((k) => k.endsWith('.js'));
  const upFront = [...loaded].map((k) => byRelative.get(k) ?? new Uint8Array());
  const joined = Buffer.concat(upFront);
  const total = jsKeys.reduce((sum, k) => sum + (byRelative.get(k)?.byteLength ?? 0), 0);
  return {
    ok: true,
    minified: joined.byteLength,
    gzip: gzipSync(joined, { level: 9 }).byteLength,
    total,
    chunks: jsKeys.length,
  };
}

async function measureImport(report: ScenarioReport, runs: number): Promise<void> {
  const times: number[] = [];
  const script = [
    'const start = performance.now();',
    "await import('@adk/core');",
    "console.log('BENCH_RESULT ' + JSON.stringify({ importMs: performance.now() - start }));",
  ].join('\n');
  try {
    for (let i = 0; i < runs; i++) {
      const outcome = await runNode<{ importMs: number }>(['--input-type=module', '-e', script], {
        timeoutMs: 60_000,
      });
      if (outcome.kind === 'result') times.push(outcome.value.importMs);
    }
  } catch (error) {
    report.skipped.push(`import time: ${summarizeError(error)}`);
  }
  const ms = times.length > 0 ? median(times) : Number.NaN;
  report.checks.push({
    scenario: report.title,
    label: `import @adk/core in a fresh node, median of ${runs}`,
    target: `≤ ${fmtMs(IMPORT_TARGET_MS)}`,
    measured: Number.isFinite(ms) ? fmtMs(ms) : 'n/a',
    pass: Number.isFinite(ms) ? ms <= IMPORT_TARGET_MS : undefined,
  });
}
