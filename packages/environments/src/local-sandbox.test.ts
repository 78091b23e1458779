import { chmod, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isAdkError } from '@adk/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EnvironmentUnavailableError, LocalSandboxEnvironment, WorkspacePathError } from './index.js';

// The sandbox escape suite: every attempt is refused or killed, and this process (the "server")
// keeps running and answering. It needs Linux with bubblewrap, as CI installs it (.ci/run).
describe('LocalSandboxEnvironment', () => {
  let env: LocalSandboxEnvironment;
  let secretDir: string;
  let listener: Server;
  let port = 0;

  beforeAll(async () => {
    secretDir = await mkdtemp(join(tmpdir(), 'adk-secret-'));
    await writeFile(join(secretDir, 'secret.txt'), 'top secret');
    listener = createServer((socket) => socket.end('hello from the host\n'));
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    port = (listener.address() as { port: number }).port;
    env = new LocalSandboxEnvironment({
      limits: {
        timeoutMs: 15_000,
        outputBytes: 64 * 1024,
        processes: 32,
        cpuSeconds: 10,
        fileSizeBytes: 1024 * 1024,
      },
    });
    await env.start();
  });

  afterAll(async () => {
    await env?.close();
    listener?.close();
    await rm(secretDir, { recursive: true, force: true });
  });

  it('runs a command in the workspace and shares files with the host', async () => {
    await env.writeFile('input.txt', 'from the host');
    const result = await env.exec(['sh', '-c', 'cat input.txt; echo made > out.txt; pwd']);
    expect(result).toMatchObject({
      exitCode: 0,
      stdout: 'from the host/workspace\n',
      outputTruncated: false,
    });
    expect(await env.readText('out.txt')).toBe('made\n');
    expect((await env.listFiles()).map((f) => f.path)).toEqual(['input.txt', 'out.txt']);
  });

  it('shows nothing of the host outside the workspace, and the system is read-only', async () => {
    const result = await env.exec([
      'sh',
      '-c',
      `cat ${join(secretDir, 'secret.txt')}; ls /root /home /etc/passwd; echo x > /usr/evil; echo $?`,
    ]);
    expect(result.stdout).not.toContain('top secret');
    expect(result.stderr).toMatch(/No such file or directory/);
    expect(result.stderr).toMatch(/Read-only file system|Permission denied/);
    expect(result.stdout.trim()).not.toBe('0');
  });

  it('has no network: a host listener on loopback is out of reach', async () => {
    const script = `import socket\ntry:\n    socket.create_connection(("127.0.0.1", ${port}), timeout=3)\n    print("connected")\nexcept OSError as e:\n    print("refused", e.errno)\n`;
    const result = await env.exec(['python3', '-'], { stdin: script });
    expect(result.stdout).toMatch(/^refused/);
    const resolve = await env.exec([
      'python3',
      '-c',
      'import socket; socket.getaddrinfo("registry.npmjs.org", 443)',
    ]);
    expect(resolve.exitCode).not.toBe(0);
  });

  it('bounds a fork bomb by the process limit, and the timeout kills what is left', async () => {
    const started = Date.now();
    const result = await env.exec(['sh', '-c', 'bomb() { bomb | bomb & }; bomb; sleep 30'], {
      timeoutMs: 3_000,
    });
    expect(result.killed).toBe('timeout');
    expect(result.stderr).toMatch(/fork|Resource temporarily unavailable|Cannot fork/i);
    expect(Date.now() - started).toBeLessThan(10_000);
    // Nothing of it survives: a fresh command starts and sees only itself.
    const after = await env.exec(['sh', '-c', 'ls /proc | grep -c "^[0-9]"']);
    expect(after.exitCode).toBe(0);
    expect(Number(after.stdout.trim())).toBeLessThan(5);
  });

  it('kills a command that writes past the output limit, and keeps the first part', async () => {
    const result = await env.exec(['sh', '-c', 'yes adk']);
    expect(result.killed).toBe('output_limit');
    expect(result.outputTruncated).toBe(true);
    expect(result.stdout.length).toBe(64 * 1024);
    expect(result.stdout.startsWith('adk\nadk\n')).toBe(true);
  });

  it('stops a file at the file size limit', async () => {
    const result = await env.exec(['sh', '-c', 'head -c 5000000 /dev/zero > big.bin']);
    expect(result.exitCode).not.toBe(0);
    expect((await env.listFiles()).find((f) => f.path === 'big.bin')?.size).toBe(1024 * 1024);
  });

  it('kills a command that runs past its timeout', async () => {
    const started = Date.now();
    const result = await env.exec(['sleep', '60'], { timeoutMs: 500 });
    expect(result).toMatchObject({ killed: 'timeout', signal: 'SIGKILL' });
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('kills a busy loop at the CPU limit', async () => {
    const cpu = new LocalSandboxEnvironment({ limits: { cpuSeconds: 1, timeoutMs: 20_000 } });
    try {
      const result = await cpu.exec(['python3', '-c', 'while True: pass']);
      expect(result.killed).toBeUndefined();
      expect(result.signal).toMatch(/SIGXCPU|SIGKILL/);
    } finally {
      await cpu.close();
    }
  });

  it('refuses memory past the limit', async () => {
    const result = await env.exec(['python3', '-c', 'x = bytearray(2 * 1024 * 1024 * 1024)']);
    expect(result.exitCode).not.toBe(0);
    expect(result.stderr).toContain('MemoryError');
  });

  it('stops a command when the caller aborts', async () => {
    const controller = new AbortController();
    const running = env.exec(['sleep', '60'], { signal: controller.signal });
    setTimeout(() => controller.abort(), 100);
    expect((await running).killed).toBe('cancelled');
  });

  it('refuses host paths out of the workspace, links included', async () => {
    await expect(env.readFile('../secret.txt')).rejects.toBeInstanceOf(WorkspacePathError);
    await expect(env.readFile('/etc/passwd')).rejects.toBeInstanceOf(WorkspacePathError);
    // A link planted by sandboxed code is not followed by the server.
    await env.exec(['ln', '-s', join(secretDir, 'secret.txt'), 'link.txt']);
    await symlink(secretDir, join(env.workspaceDir, 'dirlink'));
    await expect(env.readFile('link.txt')).rejects.toBeInstanceOf(WorkspacePathError);
    await expect(env.writeFile('dirlink/new.txt', 'x')).rejects.toBeInstanceOf(WorkspacePathError);
    // A link in the last component pointing at a host file is refused for writes too, and the host
    // file keeps its content (the server never writes through it).
    await env.exec(['ln', '-s', join(secretDir, 'secret.txt'), 'planted.txt']);
    await expect(env.writeFile('planted.txt', 'overwritten')).rejects.toBeInstanceOf(WorkspacePathError);
    expect(await readFile(join(secretDir, 'secret.txt'), 'utf8')).not.toBe('overwritten');
    await expect(env.exec(['true'], { cwd: '../..' })).rejects.toBeInstanceOf(WorkspacePathError);
  });

  it('leaves this process unaffected', async () => {
    // After every attack above: this process still answers, and so does the sandbox.
    const result = await env.exec(['echo', 'still here']);
    expect(result.stdout).toBe('still here\n');
    expect(process.memoryUsage().rss).toBeLessThan(2 * 1024 * 1024 * 1024);
  });

  it('refuses to start with a typed error where bubblewrap is missing', async () => {
    const missing = new LocalSandboxEnvironment({ bwrapPath: '/nonexistent/bwrap' });
    const error = await missing.start().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EnvironmentUnavailableError);
    expect(isAdkError(error, 'ENVIRONMENT_UNAVAILABLE')).toBe(true);
    expect((error as Error).message).toMatch(/bubblewrap \(bwrap\) was not found/);
    await expect(missing.exec(['true'])).rejects.toBeInstanceOf(EnvironmentUnavailableError);
  });

  it('refuses to start with a typed error where the kernel refuses the sandbox', async () => {
    // A bwrap that fails the probe stands for a kernel without user namespaces.
    const dir = await mkdtemp(join(tmpdir(), 'adk-fake-bwrap-'));
    await chmod(dir, 0o755);
    const fake = join(dir, 'bwrap');
    await writeFile(fake, '#!/bin/sh\necho "bwrap: No permissions to create new namespace" >&2\nexit 1\n', {
      mode: 0o755,
    });
    const refused = new LocalSandboxEnvironment({ bwrapPath: fake });
    const error = await refused.start().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EnvironmentUnavailableError);
    expect((error as Error).message).toMatch(/No permissions to create new namespace/);
    await rm(dir, { recursive: true, force: true });
  });
});
