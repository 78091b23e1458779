import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    passWithNoTests: true,
    testTimeout: 30_000,
    // A fresh PGlite data folder runs initdb and the migrations: seconds on a busy machine.
    hookTimeout: 90_000,
  },
});
