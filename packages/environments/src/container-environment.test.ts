import { isAdkError } from '@adk/core';
import { describe, expect, it } from 'vitest';
import { ContainerEnvironment, EnvironmentUnavailableError } from './index.js';

describe('ContainerEnvironment', () => {
  it('refuses to start with a typed error when the runtime cannot run the image', async () => {
    // A local-only image name is never pulled; without a runtime the error says so instead.
    const env = new ContainerEnvironment({ image: 'localhost/adk-no-such-image:never' });
    const error = await env.start().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EnvironmentUnavailableError);
    expect(isAdkError(error, 'ENVIRONMENT_UNAVAILABLE')).toBe(true);
    expect((error as Error).message).toMatch(
      /cannot run localhost\/adk-no-such-image:never here|No container runtime found/,
    );
    await env.close();
  });

  it('isolates by default: no network, read-only root, limits, no capabilities, an unprivileged user', () => {
    const env = new ContainerEnvironment({
      image: 'python:3.13-slim',
      limits: { processes: 16, memoryBytes: 256 * 1024 * 1024, cpuSeconds: 5, fileSizeBytes: 1024 },
    });
    const args = env.runArguments(
      'adk-env-1',
      ['python3', '-'],
      '/workspace',
      { HOME: '/workspace' },
      '/srv/ws',
    );
    expect(args.slice(0, 5)).toEqual(['run', '--rm', '-i', '--name', 'adk-env-1']);
    expect(args).toEqual(
      expect.arrayContaining([
        '--network=none',
        '--read-only',
        '--pids-limit=16',
        `--memory=${256 * 1024 * 1024}`,
        'cpu=5:5',
        'fsize=1024:1024',
        '--cap-drop=ALL',
        'no-new-privileges',
        '65534:65534',
        'HOME=/workspace',
        '/srv/ws:/workspace',
      ]),
    );
    expect(args.slice(-3)).toEqual(['python:3.13-slim', 'python3', '-']);
  });
});
