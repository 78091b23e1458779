// Starting the MCP servers of the npm registry that the tests talk to.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import {
  type Content,
  type Event,
  InMemorySessionService,
  type LlmAgent,
  Runner,
  userContent,
} from '@adk/core';

const require = createRequire(import.meta.url);

/** The bin script of an installed package (resolved from node_modules, run with this Node). */
function binOf(pkg: string): string {
  const manifestPath = require.resolve(`${pkg}/package.json`);
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { bin: string | Record<string, string> };
  const bin = typeof manifest.bin === 'string' ? manifest.bin : (Object.values(manifest.bin)[0] as string);
  return join(dirname(manifestPath), bin);
}

export const everythingBin = binOf('@modelcontextprotocol/server-everything');
export const filesystemBin = binOf('@modelcontextprotocol/server-filesystem');

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export interface StartedServer {
  url: string;
  port: number;
  process: ChildProcess;
  stop(): Promise<void>;
}

/** Starts the everything server in an HTTP mode and waits until it listens. */
export async function startEverythingHttp(
  mode: 'streamableHttp' | 'sse',
  port?: number,
): Promise<StartedServer> {
  const p = port ?? (await freePort());
  const child = spawn(process.execPath, [everythingBin, mode], {
    env: { ...process.env, PORT: String(p) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  await new Promise<void>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`everything server did not start: ${out}`)), 15_000);
    child.stderr?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (/listening on port|running on port/i.test(out)) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`everything server exited (${code}): ${out}`));
    });
  });
  return {
    port: p,
    url: `http://127.0.0.1:${p}/${mode === 'sse' ? 'sse' : 'mcp'}`,
    process: child,
    stop: () => stopProcess(child),
  };
}

export function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

/** Pids of this process's children whose command line contains `needle`. */
export function childPids(needle: string): number[] {
  let out = '';
  try {
    out = execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(process.pid)], { encoding: 'utf8' });
  } catch {
    return []; // ps exits 1 when there are no children
  }
  return out
    .split('\n')
    .filter((line) => line.includes(needle))
    .map((line) => Number.parseInt(line.trim(), 10))
    .filter((pid) => Number.isFinite(pid));
}

/** A runner on an in-memory session service, and a helper that collects one run's events. */
export function runnerFor(agent: LlmAgent) {
  const runner = new Runner({
    appName: 'mcp-test',
    agent,
    sessionService: new InMemorySessionService(),
    autoCreateSession: true,
  });
  const run = async (
    message: string | Content | undefined,
    options: { sessionId?: string; signal?: AbortSignal } = {},
  ): Promise<Event[]> => {
    const events: Event[] = [];
    for await (const e of runner.run({
      userId: 'u',
      sessionId: options.sessionId ?? 's',
      ...(message === undefined
        ? {}
        : { newMessage: typeof message === 'string' ? userContent(message) : message }),
      ...(options.signal ? { signal: options.signal } : {}),
    }))
      events.push(e);
    return events;
  };
  return { runner, run };
}

/** The function responses of a list of events, by tool name. */
export function responsesOf(events: Event[]): { name: string; response: Record<string, unknown> }[] {
  const out: { name: string; response: Record<string, unknown> }[] = [];
  for (const e of events)
    for (const p of e.content?.parts ?? []) if (p.functionResponse) out.push(p.functionResponse);
  return out;
}
