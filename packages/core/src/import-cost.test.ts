// Importing the root of @adk/core must not load zod: schemas are built on first use (`lazySchema`,
// `lazyZod`), so an app pays zod's start-up (about a hundred modules) only when it validates.
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

const here = fileURLToPath(new URL('.', import.meta.url));

describe('importing @adk/core', () => {
  it('imports zod only lazily: no module reachable from the root imports it statically', async () => {
    const bundled = await build({
      entryPoints: [`${here}index.ts`],
      bundle: true,
      write: false,
      format: 'esm',
      platform: 'node',
      target: 'es2022',
      external: ['zod', 'zod/*', '@opentelemetry/*', 'undici'],
      logLevel: 'silent',
    });
    const code = bundled.outputFiles[0]?.text ?? '';
    const staticZod = code.match(/^import\b[^;]*?from\s*["']zod(?:\/[^"']*)?["'];?$/gm) ?? [];
    expect(staticZod).toEqual([]);
  });
});
