import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const BIN = fileURLToPath(new URL('../../bin/adk.js', import.meta.url));
export const EXAMPLES = fileURLToPath(new URL('../../../../apps/examples', import.meta.url));
export const FIXTURE_APPS = fileURLToPath(new URL('./apps', import.meta.url));

/** The environment with no model keys, so the offline demo model answers. */
export function offlineEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const key of [
    'GEMINI_API_KEY',
    'GOOGLE_API_KEY',
    'ANTHROPIC_API_KEY',
    'OPENAI_API_KEY',
    'ADK_MODEL',
    'ADK_SERVER_TOKEN',
    'DATABASE_URL',
  ])
    delete env[key];
  return { ...env, NO_COLOR: '1', ...extra };
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
  /** stdout as it arrived, one entry per read. */
  chunks: string[];
}

/** Runs `adk <args>` with `input` on stdin through a pipe (no TTY). */
export function runCli(
  args: string[],
  options: { input?: string; cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: options.cwd ?? process.cwd(),
      env: options.env ?? offlineEnv(),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const chunks: string[] = [];
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => chunks.push(d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`adk ${args.join(' ')} timed out\nstdout: ${chunks.join('')}\nstderr: ${stderr}`));
    }, options.timeoutMs ?? 20_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout: chunks.join(''), stderr, chunks });
    });
    child.stdin.end(options.input ?? '');
  });
}
