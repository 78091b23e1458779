import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // expect.poll waits on a condition; a loaded 2-core machine needs far more than the 1 s default.
    expect: { poll: { timeout: 20_000 } },
    include: ['src/**/*.test.ts'],
    exclude: ['node_modules/**', 'dist/**'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
