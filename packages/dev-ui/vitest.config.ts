import { defineConfig } from 'vitest/config';
import { agentConfigValidators } from './ui/agent-config-validators.js';

export default defineConfig({
  // The Builder's unit tests import the validators the page is built with.
  plugins: [agentConfigValidators()],
  test: {
    // expect.poll waits on a condition; a loaded 2-core machine needs far more than the 1 s default.
    expect: { poll: { timeout: 20_000 } },
    include: ['src/**/*.test.ts', 'ui/src/**/*.test.ts'],
    passWithNoTests: true,
    testTimeout: 20_000,
  },
});
