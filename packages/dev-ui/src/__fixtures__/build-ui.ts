import { fileURLToPath } from 'node:url';
import { build } from 'vite';

/** Builds the UI from source into `outDir` (the tests use a fresh build, not a stale dist/). */
export async function buildUi(outDir: string): Promise<void> {
  await build({
    configFile: fileURLToPath(new URL('../../ui/vite.config.ts', import.meta.url)),
    logLevel: 'warn',
    build: { outDir, emptyOutDir: true },
  });
}
