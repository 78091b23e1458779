import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// `pnpm dev` serves the page on :5173 and proxies the chat routes to the ADK server that
// `npm start` runs (ADK_API, default http://127.0.0.1:8000). The proxy drops the page's Origin:
// to the server the calls are then same-origin, which its cross-site guard requires.
const api = process.env.ADK_API ?? 'http://127.0.0.1:8000';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: './',
  oxc: { jsx: { runtime: 'automatic', importSource: 'react' } },
  build: {
    outDir: fileURLToPath(new URL('../dist', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    // Three pages: useChat (index.html), AG-UI's HttpAgent (ag-ui.html) and CopilotKit (copilotkit.html).
    rollupOptions: {
      // CopilotKit's React dependencies carry Next.js "use client" directives, meaningless here.
      onwarn(warning, warn) {
        if (warning.code !== 'MODULE_LEVEL_DIRECTIVE') warn(warning);
      },
      input: {
        main: fileURLToPath(new URL('index.html', import.meta.url)),
        agUi: fileURLToPath(new URL('ag-ui.html', import.meta.url)),
        copilotkit: fileURLToPath(new URL('copilotkit.html', import.meta.url)),
      },
    },
  },
  server: {
    proxy: Object.fromEntries(
      ['/list-apps', '/apps'].map((path) => [
        path,
        {
          target: api,
          configure: (proxy: {
            on(event: 'proxyReq', listener: (req: { removeHeader(name: string): void }) => void): void;
          }) => {
            proxy.on('proxyReq', (req) => req.removeHeader('origin'));
          },
        },
      ]),
    ),
  },
});
