#!/usr/bin/env node
// The two commands of the README (`npm start`, `npm test`) go through this script. It must run on
// any Node >= 18 with npm: it provisions what the project needs into `.tools/` (a project-local
// Node 24 when the system Node is older than 22, and pnpm at the pinned version), installs with the
// frozen lockfile, builds, and then runs the requested job. Nothing is installed globally.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { constants } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const tools = join(root, '.tools');
const NODE_VERSION = '24.21.0';
const MIN_NODE_MAJOR = 22;
const rootPkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const PNPM_VERSION = String(rootPkg.packageManager)
  .replace(/^pnpm@/, '')
  .split('+')[0];

const jobs = {
  // The main job: the project's main app.
  // The main job: `adk web` on the example apps (http://127.0.0.1:8000/dev-ui/). The server runs
  // under this script directly (no pnpm in between) so Ctrl-C and SIGTERM reach it once.
  start: [
    {
      label: 'building the packages the examples use (one line per package; about a minute the first time)',
      pnpm: ['turbo', 'run', 'build', '--filter=@adk/examples...', '--output-logs=hash-only'],
    },
    {
      label: 'starting adk web on apps/examples (the web UI at http://127.0.0.1:8000/dev-ui/)',
      node: ['packages/cli/bin/adk.js', 'web', 'apps/examples'],
    },
  ],
  // Every check: lint, typecheck, build, all tests, package shape.
  test: [
    [
      'turbo',
      'run',
      'lint',
      'lint:root',
      'check:docs',
      'check:release',
      'typecheck',
      'build',
      'test',
      'shape',
      'api',
      '--continue=never',
      '--concurrency=2',
    ],
    // Packs the public packages and type-checks their README examples in a fresh consumer project.
    ['run', 'check:consumer'],
  ],
  bench: [
    { label: 'building every package', pnpm: ['turbo', 'run', 'build', '--output-logs=hash-only'] },
    { label: 'running the benchmarks', pnpm: ['--filter', '@adk/bench', 'bench'] },
  ],
};

const job = process.argv[2] ?? 'test';
const extra = process.argv.slice(3);
if (!(job in jobs)) {
  console.error(`bootstrap: unknown job "${job}" (expected one of: ${Object.keys(jobs).join(', ')})`);
  process.exit(2);
}

function log(message) {
  console.log(`\x1b[2m[adk]\x1b[0m ${message}`);
}

function run(cmd, args, options = {}) {
  const result = spawnSync(cmd, args, { stdio: 'inherit', cwd: root, ...options });
  if (result.error) throw result.error;
  return result.status ?? 1;
}

/**
 * Runs a long-lived child (a server) in its own process group and forwards SIGINT/SIGTERM to it
 * once each, so a Ctrl-C that reaches this script (directly and again through npm) stops the
 * child exactly once and lets it close cleanly. Resolves with the child's exit code.
 */
function runForwardingSignals(cmd, args, options = {}) {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(cmd, args, { stdio: 'inherit', cwd: root, detached: true, ...options });
    const forwarded = new Set();
    const forward = (signal) => {
      if (forwarded.has(signal)) return;
      forwarded.add(signal);
      child.kill(signal);
    };
    process.on('SIGINT', forward);
    process.on('SIGTERM', forward);
    process.on('SIGHUP', forward);
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      process.off('SIGINT', forward);
      process.off('SIGTERM', forward);
      process.off('SIGHUP', forward);
      resolvePromise(code ?? (signal ? 128 + (constants.signals[signal] ?? 0) : 1));
    });
  });
}

function npmInstallInto(dir, spec) {
  mkdirSync(dir, { recursive: true });
  const pkgJson = join(dir, 'package.json');
  if (!existsSync(pkgJson)) writeFileSync(pkgJson, '{"private":true}\n');
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const status = run(
    npm,
    ['install', '--no-audit', '--no-fund', '--no-package-lock', '--loglevel=error', '--prefix', dir, spec],
    { env: { ...process.env, npm_config_update_notifier: 'false' } },
  );
  if (status !== 0) {
    console.error(`bootstrap: could not install ${spec} from the npm registry (npm exited ${status})`);
    process.exit(status);
  }
}

function installedVersion(dir, name) {
  try {
    return JSON.parse(readFileSync(join(dir, 'node_modules', name, 'package.json'), 'utf8')).version;
  } catch {
    return undefined;
  }
}

// 1. Node: re-run under a project-local Node 24 when the system Node is too old.
const major = Number(process.versions.node.split('.')[0]);
if (major < MIN_NODE_MAJOR) {
  const nodeDir = join(tools, 'node');
  const nodeBin = join(
    nodeDir,
    'node_modules',
    'node',
    'bin',
    process.platform === 'win32' ? 'node.exe' : 'node',
  );
  if (installedVersion(nodeDir, 'node') !== NODE_VERSION || !existsSync(nodeBin)) {
    log(
      `Node ${process.versions.node} is older than ${MIN_NODE_MAJOR}; installing Node ${NODE_VERSION} into .tools/node`,
    );
    npmInstallInto(nodeDir, `node@${NODE_VERSION}`);
  }
  log(`re-running under Node ${NODE_VERSION} (.tools/node)`);
  const status = await runForwardingSignals(nodeBin, [fileURLToPath(import.meta.url), job, ...extra], {
    detached: false,
  });
  process.exit(status);
}

// 2. pnpm at the version pinned by `packageManager`.
const pnpmDir = join(tools, 'pnpm');
if (installedVersion(pnpmDir, 'pnpm') !== PNPM_VERSION) {
  log(`installing pnpm ${PNPM_VERSION} into .tools/pnpm`);
  npmInstallInto(pnpmDir, `pnpm@${PNPM_VERSION}`);
} else log(`Node ${process.versions.node}, pnpm ${PNPM_VERSION} (.tools/pnpm)`);
const pnpmEntry = join(pnpmDir, 'node_modules', 'pnpm', 'bin', 'pnpm.cjs');

// Child processes (pnpm scripts, turbo tasks) must find this Node and this pnpm first.
const shimDir = join(tools, 'bin');
mkdirSync(shimDir, { recursive: true });
const shim = join(shimDir, 'pnpm');
const shimText = `#!/bin/sh\nexec "${process.execPath}" "${pnpmEntry}" "$@"\n`;
if (!existsSync(shim) || readFileSync(shim, 'utf8') !== shimText)
  writeFileSync(shim, shimText, { mode: 0o755 });
const env = {
  ...process.env,
  PATH: [dirname(process.execPath), shimDir, process.env.PATH].join(delimiter),
  TURBO_TELEMETRY_DISABLED: '1',
  DO_NOT_TRACK: '1',
  npm_config_update_notifier: 'false',
};

function pnpm(args) {
  return run(process.execPath, [pnpmEntry, ...args], { env });
}

// 3. Install exactly what the lockfile says.
log('installing dependencies (pnpm install --frozen-lockfile)');
let status = pnpm(['install', '--frozen-lockfile', '--prefer-offline', '--reporter=append-only']);
if (status !== 0) process.exit(status);

// 4. Run the job.
const steps = jobs[job];
for (let i = 0; i < steps.length; i++) {
  const step = steps[i];
  const isLast = i === steps.length - 1;
  log(
    `step ${i + 1}/${steps.length}: ${step.label ?? (Array.isArray(step) ? `pnpm ${step.join(' ')}` : `node ${step.node.join(' ')}`)}`,
  );
  if (step.pnpm) status = pnpm(isLast ? [...step.pnpm, ...extra] : step.pnpm);
  else if (!Array.isArray(step)) {
    // A Node program of the workspace, run directly (with the job's extra arguments when last).
    const args = isLast ? [...step.node, ...extra] : step.node;
    status = await runForwardingSignals(process.execPath, args, { env });
  } else status = pnpm(isLast ? [...step, ...extra] : step);
  if (status !== 0) process.exit(status);
}
