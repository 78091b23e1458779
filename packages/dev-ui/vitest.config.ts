import { defineConfig } from 'vitest/config';
import { agentConfigValidators } from './ui/agent-config-validators.js';

export default defineConfig({
  // The Builder's unit tests import the validators the page is built with.
  plugins: [agentConfigValidators()],
  test: {
    include: ['src/**/*.test.ts', 'ui/src/**/*.test.ts'],
    passWithNoTests: true,
    testTimeout: 20_000,
  },
});
