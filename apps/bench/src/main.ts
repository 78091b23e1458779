// `pnpm bench` (full run; rewrites docs/benchmarks.md and docs/benchmarks.svg) and
// `pnpm bench --quick` / BENCH_QUICK=1 (tiny counts, proves the harness works, writes nothing).
// `--only=long-session,cold-start` runs some scenarios (and then writes nothing either);
// `--out=<dir>` writes the report and chart to that folder instead, in any mode.
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { runBench, scenarios } from './bench.js';
import { benchRoot } from './harness/child.js';

const argv = process.argv.slice(2);
const quick = argv.includes('--quick') || ['1', 'true'].includes(process.env.BENCH_QUICK ?? '');
const onlyArg = argv.find((arg) => arg.startsWith('--only='));
// --out=<dir> writes benchmarks.md/svg there (any mode), e.g. to look at a quick run's report.
const outArg = argv.find((arg) => arg.startsWith('--out='));
const only = onlyArg ? onlyArg.slice('--only='.length).split(',').filter(Boolean) : undefined;
const unknown = only?.filter((id) => !scenarios.some((scenario) => scenario.id === id)) ?? [];
if (unknown.length > 0) {
  console.error(
    `bench: unknown scenario(s) ${unknown.join(', ')}; known: ${scenarios.map((s) => s.id).join(', ')}`,
  );
  process.exit(2);
}

const run = await runBench({ quick, ...(only ? { only } : {}) });
const docs = join(benchRoot, '..', '..', 'docs');
const outDir = outArg ? resolve(outArg.slice('--out='.length)) : !quick && !only ? docs : undefined;
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
