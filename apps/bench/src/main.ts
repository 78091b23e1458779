// `pnpm bench` (full run; rewrites docs/benchmarks.md and docs/benchmarks.svg) and
// `pnpm bench --quick` / BENCH_QUICK=1 (tiny counts, proves the harness works, writes nothing).
// `--only=long-session,cold-start` (or `--only long-session,cold-start`) runs some scenarios (and
// then writes nothing either); `--out=<dir>` writes the report and chart to that folder instead, in
// any mode. Any other argument is refused, so that a mistyped option never starts a full run that
// rewrites the docs.
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { runBench, scenarios } from './bench.js';
import { benchRoot } from './harness/child.js';

function usage(message: string): never {
  console.error(`bench: ${message}\nusage: bench [--quick] [--only=<scenario>[,<scenario>…]] [--out=<dir>]`);
  process.exit(2);
}

// `pnpm bench -- --only x` passes the `--` along.
const argv = process.argv.slice(2).filter((arg) => arg !== '--');
const options = new Map<string, string>();
let quick = ['1', 'true'].includes(process.env.BENCH_QUICK ?? '');
for (let i = 0; i < argv.length; i++) {
  const arg = argv[i] as string;
  if (arg === '--quick') {
    quick = true;
    continue;
  }
  const match = /^--(only|out)(?:=(.*))?$/.exec(arg);
  if (!match) usage(`unknown argument ${arg}`);
  const name = match[1] as string;
  const value = match[2] ?? argv[++i];
  if (!value || value.startsWith('--')) usage(`--${name} needs a value`);
  options.set(name, value);
}
const onlyValue = options.get('only');
// --out=<dir> writes benchmarks.md/svg there (any mode), e.g. to look at a quick run's report.
const outValue = options.get('out');
const only = onlyValue ? onlyValue.split(',').filter(Boolean) : undefined;
const unknown = only?.filter((id) => !scenarios.some((scenario) => scenario.id === id)) ?? [];
if (unknown.length > 0) {
  console.error(
    `bench: unknown scenario(s) ${unknown.join(', ')}; known: ${scenarios.map((s) => s.id).join(', ')}`,
  );
  process.exit(2);
}

const run = await runBench({ quick, ...(only ? { only } : {}) });
const docs = join(benchRoot, '..', '..', 'docs');
const outDir = outValue ? resolve(outValue) : !quick && !only ? docs : undefined;
if (outDir) {
  await mkdir(outDir, { recursive: true });
  await writeFile(join(outDir, 'benchmarks.md'), run.markdown);
  await writeFile(join(outDir, 'benchmarks.svg'), run.svg);
  console.log(`\nwrote ${join(outDir, 'benchmarks.md')} and benchmarks.svg`);
} else {
  console.log(
    `\n${quick ? 'quick mode' : 'partial run'}: docs/benchmarks.md and docs/benchmarks.svg left unchanged`,
  );
}
const missed = run.reports.flatMap((report) => report.checks).filter((check) => check.pass === false);
for (const check of missed) {
  console.log(`MISSED ${check.scenario}: ${check.label}: ${check.measured} (target ${check.target})`);
}
