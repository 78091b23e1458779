import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { benchRoot, runNode, summarizeError } from '../harness/child.js';
import { type Footprint, measureNodeModules } from '../harness/disk.js';
import { fmtBytes, fmtMs, fmtRatio } from '../harness/format.js';
import { median } from '../harness/stats.js';
import { type BenchConfig, newReport, type Scenario, type ScenarioReport } from '../harness/types.js';

const repoRoot = join(benchRoot, '..', '..');
const ourPackages = ['core', 'models-claude'] as const;

interface Subject {
  label: string;
  /** Module specifiers imported, in order, resolved from `cwd`. */
  specifiers: string[];
  cwd: string;
}

interface ImportSample {
  importMs: number;
}

const importScript = (specifiers: string[]) =>
  [
    'const start = performance.now();',
    ...specifiers.map((specifier) => `await import(${JSON.stringify(specifier)});`),
    'const importMs = performance.now() - start;',
    "console.log('BENCH_RESULT ' + JSON.stringify({ importMs }));",
  ].join('\n');

/** Median import time and process wall time over `runs` fresh processes, subjects interleaved. */
async function timeImports(
  subjects: Subject[],
  runs: number,
): Promise<Map<string, { importMs: number; processMs: number } | { error: string }>> {
  const samples = new Map<string, { importMs: number[]; processMs: number[]; error?: string }>();
  for (const subject of subjects) samples.set(subject.label, { importMs: [], processMs: [] });
  for (let run = 0; run < runs; run++) {
    for (const subject of subjects) {
      const entry = samples.get(subject.label);
      if (!entry || entry.error) continue;
      const start = performance.now();
      try {
        const outcome = await runNode<ImportSample>(
          ['--input-type=module', '-e', importScript(subject.specifiers)],
          { cwd: subject.cwd, timeoutMs: 60_000 },
        );
        if (outcome.kind === 'result') {
          entry.processMs.push(performance.now() - start);
          entry.importMs.push(outcome.value.importMs);
        }
      } catch (error) {
        entry.error = summarizeError(error);
      }
    }
  }
  const result = new Map<string, { importMs: number; processMs: number } | { error: string }>();
  for (const [label, entry] of samples) {
    result.set(
      label,
      entry.error
        ? { error: entry.error }
        : { importMs: median(entry.importMs), processMs: median(entry.processMs) },
    );
  }
  return result;
}

function exec(command: string, args: string[], cwd: string, timeoutMs = 300_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd,
      env: { ...process.env, npm_config_update_notifier: 'false', npm_config_fund: 'false' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(output);
      else
        reject(new Error(`${command} ${args.join(' ')} exited with ${code}: ${output.trim().slice(-500)}`));
    });
  });
}

interface Consumer {
  label: string;
  dir: string;
  specifiers: string[];
  footprint?: Footprint;
  error?: string;
}

/** Creates a fresh consumer project and installs `specs` into it with npm, as a user would. */
async function installConsumer(config: BenchConfig, consumer: Consumer, specs: string[]): Promise<void> {
  await mkdir(consumer.dir, { recursive: true });
  await writeFile(
    join(consumer.dir, 'package.json'),
    `${JSON.stringify({ name: 'bench-consumer', private: true, type: 'module' }, null, 2)}\n`,
  );
  config.log(`  npm install ${specs.map((spec) => spec.split('/').at(-1)).join(' ')}`);
  try {
    await exec('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', ...specs], consumer.dir);
    consumer.footprint = await measureNodeModules(join(consumer.dir, 'node_modules'));
  } catch (error) {
    consumer.error = error instanceof Error ? error.message : String(error);
  }
}

/** Packs our packages with pnpm, as they would be published (workspace ranges rewritten). */
async function packOurs(config: BenchConfig, dest: string): Promise<string[]> {
  await mkdir(dest, { recursive: true });
  for (const name of ourPackages) {
    const dir = join(repoRoot, 'packages', name);
    if (!existsSync(join(dir, 'dist'))) throw new Error(`packages/${name} is not built (run pnpm build)`);
    config.log(`  pnpm pack @adk/${name}`);
    await exec('pnpm', ['pack', '--pack-destination', dest], dir);
  }
  const tarballs = (await readdir(dest)).filter((file) => file.endsWith('.tgz'));
  return ourPackages.map((name) => {
    const file = tarballs.find((tarball) => tarball.startsWith(`adk-${name}-`));
    if (!file) throw new Error(`pnpm pack left no tarball for @adk/${name}`);
    return join(dest, file);
  });
}

export const coldStart: Scenario = {
  id: 'cold-start',
  title: '5. Cold start and footprint',
  async run(config) {
    const report = newReport(this.id, this.title);
    const runs = config.quick ? 1 : 10;
    // Import time from this workspace: our built dist, and the rivals pinned in apps/bench.
    const workspaceSubjects: Subject[] = [
      {
        label: '@adk/core + @adk/models-claude',
        specifiers: ['@adk/core', '@adk/models-claude'],
        cwd: benchRoot,
      },
      { label: '@google/adk', specifiers: ['@google/adk'], cwd: benchRoot },
      { label: '@openai/agents', specifiers: ['@openai/agents'], cwd: benchRoot },
      // For reference: the share of our import time that is zod's (a peer of @adk/core).
      { label: 'zod alone (for reference)', specifiers: ['zod'], cwd: benchRoot },
    ];
    config.log(`  import time, ${runs} fresh processes each (workspace)`);
    const workspaceTimes = await timeImports(workspaceSubjects, runs);
    addImportTable(
      report,
      'Import time in a fresh process, packages resolved from this workspace',
      workspaceTimes,
    );

    let consumerTimes: typeof workspaceTimes | undefined;
    if (config.quick) {
      report.skipped.push('consumer installs (npm pack + npm install) run only in the full mode');
    } else {
      const consumers = await installConsumers(config, report);
      const installed = consumers.filter((consumer) => consumer.footprint);
      if (installed.length > 0) {
        config.log(`  import time, ${runs} fresh processes each (consumer projects)`);
        consumerTimes = await timeImports(
          installed.map((consumer) => ({
            label: consumer.label,
            specifiers: consumer.specifiers,
            cwd: consumer.dir,
          })),
          runs,
        );
        addImportTable(
          report,
          'Import time in a fresh process, from the fresh consumer projects',
          consumerTimes,
        );
      }
      addFootprint(report, consumers);
    }

    // Judge the import target on the consumer install when there is one: that is what users get.
    const times = consumerTimes ?? workspaceTimes;
    const ours = times.get(workspaceSubjects[0]?.label ?? '');
    const ourMs = ours && 'importMs' in ours ? ours.importMs : Number.NaN;
    report.checks.push({
      scenario: report.title,
      label: `import @adk/core + @adk/models-claude (${consumerTimes ? 'consumer install' : 'workspace'})`,
      target: '< 50 ms',
      measured: fmtMs(ourMs),
      pass: Number.isFinite(ourMs) ? ourMs < 50 : undefined,
    });
    for (const rival of ['@google/adk', '@openai/agents']) {
      const theirs = times.get(rival);
      const ratio = theirs && 'importMs' in theirs ? theirs.importMs / ourMs : Number.NaN;
      report.checks.push({
        scenario: report.title,
        label: `import time: ${rival} ÷ ours`,
        target: '(no target)',
        measured: fmtRatio(ratio),
        pass: undefined,
        ratio: { value: ratio, target: Number.NaN, chartLabel: `5 Import time vs ${rival}` },
      });
    }
    return report;
  },
};

async function installConsumers(config: BenchConfig, report: ScenarioReport): Promise<Consumer[]> {
  const root = join(config.tmpDir, 'consumers');
  const ours: Consumer = {
    label: '@adk/core + @adk/models-claude',
    dir: join(root, 'adk'),
    specifiers: ['@adk/core', '@adk/models-claude'],
  };
  const google: Consumer = {
    label: '@google/adk',
    dir: join(root, 'google-adk'),
    specifiers: ['@google/adk'],
  };
  const openai: Consumer = {
    label: '@openai/agents',
    dir: join(root, 'openai-agents'),
    specifiers: ['@openai/agents'],
  };
  try {
    const tarballs = await packOurs(config, join(config.tmpDir, 'packs'));
    await installConsumer(config, ours, tarballs);
  } catch (error) {
    ours.error = error instanceof Error ? error.message : String(error);
  }
  await installConsumer(config, google, ['@google/adk@2.0.0']);
  await installConsumer(config, openai, ['@openai/agents@0.20.0']);
  for (const consumer of [ours, google, openai]) {
    if (consumer.error)
      report.skipped.push(`consumer install of ${consumer.label}: ${consumer.error.split('\n')[0]}`);
  }
  return [ours, google, openai];
}

function addImportTable(
  report: ScenarioReport,
  caption: string,
  times: Map<string, { importMs: number; processMs: number } | { error: string }>,
): void {
  const rows: string[][] = [];
  for (const [label, time] of times) {
    if ('error' in time) {
      rows.push([label, 'error', 'error']);
      report.notes.push(`**Error** importing ${label}: ${time.error}`);
    } else {
      rows.push([label, fmtMs(time.importMs), fmtMs(time.processMs)]);
    }
  }
  report.tables.push({
    caption,
    headers: ['imports', 'import time (median)', 'whole process (median)'],
    rows,
  });
}

function addFootprint(report: ScenarioReport, consumers: Consumer[]): void {
  const rows = consumers.map((consumer) =>
    consumer.footprint
      ? [
          consumer.label,
          String(consumer.footprint.packages),
          fmtBytes(consumer.footprint.bytes),
          fmtBytes(consumer.footprint.diskBytes),
        ]
      : [consumer.label, 'n/a', 'n/a', 'n/a'],
  );
  report.tables.push({
    caption:
      'A fresh consumer project after `npm install` (ours from packed tarballs; npm adds required peers such as zod).',
    headers: ['installs', 'packages', 'bytes (file sizes)', 'disk usage (blocks)'],
    rows,
  });
  const ours = consumers[0]?.footprint;
  if (ours) {
    const parts = [...ours.byPackage]
      .sort((a, b) => b[1] - a[1])
      .map(([name, bytes]) => `${name} ${fmtBytes(bytes)}`);
    report.notes.push(`Our consumer install by package: ${parts.join(', ')}.`);
  }
  report.checks.push({
    scenario: report.title,
    label: 'consumer install: packages',
    target: '< 10',
    measured: ours ? String(ours.packages) : 'n/a',
    pass: ours ? ours.packages < 10 : undefined,
  });
  report.checks.push({
    scenario: report.title,
    label: 'consumer install: bytes',
    target: '< 5 MB',
    measured: ours ? fmtBytes(ours.bytes) : 'n/a',
    pass: ours ? ours.bytes < 5 * 1024 * 1024 : undefined,
  });
  for (const rival of consumers.slice(1)) {
    const ratio = ours && rival.footprint ? rival.footprint.bytes / ours.bytes : Number.NaN;
    report.checks.push({
      scenario: report.title,
      label: `install size: ${rival.label} ÷ ours`,
      target: '(no target)',
      measured: fmtRatio(ratio),
      pass: undefined,
    });
  }
}
