import { defineConfig } from 'vitest/config';

// Runs the eval-set fixture suites only (the helper's own test starts this in a child process).
export default defineConfig({
  test: { root: import.meta.dirname, include: ['*.eval-fixture.ts'], testTimeout: 20_000 },
});
