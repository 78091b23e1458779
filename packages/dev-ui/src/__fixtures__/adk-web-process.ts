import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = fileURLToPath(new URL('../../../..', import.meta.url));
export const CLI = join(repo, 'packages', 'cli', 'bin', 'adk.js');
export const EXAMPLES = join(repo, 'apps', 'examples');

/** `adk web` running as a child process. */
export interface AdkWebProcess {
  url: string;
  port: number;
  child: ChildProcess;
  /** SIGINT, then SIGKILL after 15 s; resolves once it has exited. */
  stop(): Promise<void>;
}

/**
 * Starts `adk web <agentsDir>` on `port` (0: a free one) with the offline demo model (no model keys,
 * no DATABASE_URL) and resolves once it listens.
 */
export async function startAdkWeb(agentsDir: string, dataDir: string, port = 0): Promise<AdkWebProcess> {
  const env: NodeJS.ProcessEnv = { ...process.env, ADK_MODEL: '', ADK_LIVE_MODEL: '' };
  for (const key of [
    'GEMINI_API_KEY',
    'GOOGLE_API_KEY',
    'ANTHROPIC_API_KEY',
    'OPENAI_API_KEY',
    'DATABASE_URL',
  ])
    delete env[key];
  const child = spawn(
    process.execPath,
    [CLI, 'web', agentsDir, '--port', String(port), '--data-dir', dataDir],
    {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  const [url, listening] = await new Promise<[string, number]>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`adk web did not start:\n${output}`)), 90_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/127\.0\.0\.1:(\d+))/.exec(output);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve([match[1], Number(match[2])]);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`adk web exited with ${code}:\n${output}`)));
  });
  return {
    url,
    port: listening,
    child,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGINT');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
