import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import { agentConfigValidators } from './agent-config-validators.js';

// The dev UI is built once, at package build time, into dist/ui; the page loads nothing from a CDN.
// `base: './'` keeps asset URLs relative, so the same build works under any mount path.
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: './',
  plugins: [agentConfigValidators()],
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: fileURLToPath(new URL('../dist/ui', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    reportCompressedSize: true,
    chunkSizeWarningLimit: 300,
  },
  server: {
    // For manual work only: `pnpm dev` proxies the API to a server on ADK_API (default :8000).
    proxy: Object.fromEntries(
      ['/list-apps', '/apps', '/run_sse', '/run', '/debug', '/dev', '/builder', '/version', '/health'].map(
        (p) => [p, process.env.ADK_API ?? 'http://127.0.0.1:8000'],
      ),
    ),
  },
});
