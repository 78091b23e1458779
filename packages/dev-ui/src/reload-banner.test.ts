/// <reference lib="dom" />
// `adk web`'s hot reload in the page: a file that fails to load shows a banner naming the file and
// the message; the fix takes it away and the graph shows the new version. `adk web` runs as a child
// process on an agents folder the test edits; Chromium drives the page.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { browserSuiteSkip, launchChromium, screenshots } from './__fixtures__/browser.js';

const pkgDir = fileURLToPath(new URL('..', import.meta.url));
const repo = join(pkgDir, '..', '..');
const CLI = join(repo, 'packages', 'cli', 'bin', 'adk.js');
const outDir = join(pkgDir, 'test-output', 'reload-banner');

const unavailable = browserSuiteSkip('hot reload browser test', {
  missing: [
    !existsSync(join(repo, 'packages', 'cli', 'dist', 'cli.js')) &&
      '@adk/cli build (pnpm --filter @adk/cli build)',
    !existsSync(join(pkgDir, 'dist', 'ui', 'index.html')) && 'the @adk/dev-ui build (pnpm build)',
  ],
});

const AGENT = (sub: string) => `import { LlmAgent } from '@adk/core';

export const rootAgent = new LlmAgent({
  name: 'shop',
  description: 'Sells things.',
  model: 'gemini-2.5-flash',
  subAgents: [new LlmAgent({ name: '${sub}', description: 'Helps.', model: 'gemini-2.5-flash' })],
});
`;

// The agents folder lives under the package (tmp/, git-ignored) so its modules resolve @adk/core.
let work = '';
let agentFile = '';
let child: ChildProcess | undefined;
let base = '';
let stderr = '';
let browser: Browser;
let page: Page;
const shot = screenshots(outDir, () => page);

async function startAdkWeb(agents: string, dataDir: string): Promise<void> {
  const env: NodeJS.ProcessEnv = { ...process.env, ADK_MODEL: '' };
  for (const key of ['GEMINI_API_KEY', 'GOOGLE_API_KEY', 'ANTHROPIC_API_KEY', 'OPENAI_API_KEY'])
    delete env[key];
  env.DATABASE_URL = `sqlite://${join(dataDir, 'sessions.db')}`;
  const proc = spawn(process.execPath, [CLI, 'web', agents, '--port', '0', '--data-dir', dataDir], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child = proc;
  let stdout = '';
  proc.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  base = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`adk web did not start:\n${stdout}${stderr}`)), 30_000);
    proc.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout);
      if (match?.[1] && stdout.includes('Press Ctrl-C')) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    proc.once('exit', (code) => reject(new Error(`adk web exited with ${code}:\n${stdout}${stderr}`)));
  });
}

describe.skipIf(unavailable)('adk web hot reload, in Chromium', { timeout: 60_000 }, () => {
  beforeAll(async () => {
    rmSync(outDir, { recursive: true, force: true });
    mkdirSync(join(pkgDir, 'tmp'), { recursive: true });
    work = mkdtempSync(join(pkgDir, 'tmp', 'reload-'));
    const agents = join(work, 'agents');
    mkdirSync(join(agents, 'shop'), { recursive: true });
    agentFile = join(agents, 'shop', 'agent.ts');
    writeFileSync(agentFile, AGENT('cashier'));
    mkdirSync(join(work, 'data'));
    await startAdkWeb(agents, join(work, 'data'));
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1400, height: 860 }, colorScheme: 'light' });
    page.setDefaultTimeout(20_000);
    page.on('pageerror', (error) => console.error('page error:', error.message));
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    if (child && child.exitCode === null) {
      const exited = new Promise((resolve) => child?.once('exit', resolve));
      child.kill('SIGINT');
      await exited;
    }
    if (work) rmSync(work, { recursive: true, force: true });
  });

  afterEach(async (context) => {
    if (context.task.result?.state === 'fail' && page)
      await page.screenshot({ path: join(outDir, `FAILED-${context.task.name.replace(/\W+/g, '-')}.png`) });
  });

  it('shows a banner with the file and the message while the app fails to load, and the new graph after the fix', async () => {
    await page.goto(`${base}/dev-ui/?app=shop`);
    await page.getByRole('tab', { name: 'Graph' }).click();
    const graph = page.getByRole('tabpanel');
    await expect.poll(() => graph.getByRole('img').getAttribute('aria-label')).toContain('cashier');
    const banner = page.getByRole('alert', { name: 'shop failed to load' });
    expect(await banner.count()).toBe(0);
    await shot('loaded');

    writeFileSync(agentFile, AGENT('cashier').replace("name: 'shop',", "name: 'shop',,"));
    await banner.waitFor();
    await expect.poll(() => banner.textContent()).toContain('shop/agent.ts');
    expect(await banner.locator('pre').textContent()).toMatch(
      /shop\/agent\.ts:4:15: ERROR: Expected identifier but found ","/,
    );
    expect(await banner.textContent()).toContain('Still running the version loaded before');
    expect(stderr).toContain('app shop failed to reload');
    await shot('banner');

    writeFileSync(agentFile, AGENT('stock_keeper'));
    await banner.waitFor({ state: 'detached' });
    await expect.poll(() => graph.getByRole('img').getAttribute('aria-label')).toContain('stock_keeper');
    await shot('fixed');
  });
});
