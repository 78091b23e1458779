import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';

const vitestBin = join(dirname(createRequire(import.meta.url).resolve('vitest/package.json')), 'vitest.mjs');
const config = new URL('./__fixtures__/vitest/vitest.config.ts', import.meta.url).pathname;

describe('describeEvalSet', () => {
  it('turns each eval case into a test that fails when a metric is below its threshold', () => {
    const run = spawnSync(
      process.execPath,
      [vitestBin, 'run', '--config', config, '--reporter', 'verbose', '--no-color'],
      {
        encoding: 'utf8',
        env: { ...process.env, CI: 'true', NO_COLOR: '1', FORCE_COLOR: '0' },
        timeout: 120_000,
      },
    );
    const out = `${run.stdout}\n${run.stderr}`;
    expect(run.status, out).toBe(1);
    expect(out).toMatch(/✓ .*eval set weather_passing > paris/);
    expect(out).toMatch(/✓ .*eval set weather_passing > paris_then_london/);
    expect(out).toMatch(/× .*eval set weather_failing > london_wrong_trajectory/);
    expect(out).toContain('tool_trajectory_avg_score = 0.0000 is below its threshold 1');
    expect(out).toContain('response_match_score = 0.6000 is below its threshold 0.75');
    expect(out).toMatch(/Tests\s+1 failed \| 2 passed/);
  });
});
