import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    passWithNoTests: true,
    testTimeout: 120_000,
    hookTimeout: 240_000,
    // Starts a throwaway PostgreSQL cluster (or records why the Postgres suites are skipped).
    globalSetup: ['src/__fixtures__/postgres-cluster.ts'],
  },
});
