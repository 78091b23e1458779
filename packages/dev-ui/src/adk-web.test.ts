/// <reference lib="dom" />
// The web UI as users meet it: `adk web apps/examples` (the repo's `npm start`) as a child process,
// on a temporary data folder, with the offline demo model; Chromium drives the page.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type AdkWebProcess,
  EXAMPLES,
  startAdkWeb as startWebProcess,
} from './__fixtures__/adk-web-process.js';
import { browserSuiteSkip, launchChromium, screenshots, ui } from './__fixtures__/browser.js';

const pkgDir = fileURLToPath(new URL('..', import.meta.url));
const repo = join(pkgDir, '..', '..');
const outDir = join(pkgDir, 'test-output', 'adk-web');

const unavailable = browserSuiteSkip('adk web browser tests', {
  missing: [
    !existsSync(join(repo, 'packages', 'cli', 'dist', 'cli.js')) &&
      '@adk/cli build (pnpm --filter @adk/cli build)',
    !existsSync(join(EXAMPLES, 'assistant')) && 'apps/examples',
    !existsSync(join(pkgDir, 'dist', 'ui', 'index.html')) && 'the @adk/dev-ui build (pnpm build)',
  ],
});

let dataDir: string;
let adkWeb: AdkWebProcess | undefined;
let base = '';
let port = 0;
let firstSession = '';
let browser: Browser;
let page: Page;
const shot = screenshots(outDir, () => page);
const { send, running, idle } = ui(() => page);

/** Starts `adk web` (on the same port again after a restart) and resolves once it listens. */
async function startAdkWeb(): Promise<void> {
  adkWeb = await startWebProcess(EXAMPLES, dataDir, port);
  base = adkWeb.url;
  port = adkWeb.port;
}

async function stopAdkWeb(): Promise<void> {
  await adkWeb?.stop();
  adkWeb = undefined;
}

describe.skipIf(unavailable)('adk web with the example apps, in Chromium', { timeout: 60_000 }, () => {
  beforeAll(async () => {
    rmSync(outDir, { recursive: true, force: true });
    dataDir = mkdtempSync(join(tmpdir(), 'adk-dev-ui-web-'));
    await startAdkWeb();
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1400, height: 860 }, colorScheme: 'light' });
    page.setDefaultTimeout(30_000);
    page.on('pageerror', (error) => console.error('page error:', error.message));
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await stopAdkWeb();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  afterEach(async (context) => {
    if (context.task.result?.state === 'fail' && page)
      await page.screenshot({ path: join(outDir, `FAILED-${context.task.name.replace(/\W+/g, '-')}.png`) });
  });

  it('opens at / on the example apps and streams the demo model reply in several paints', async () => {
    await page.goto(`${base}/`);
    expect(new URL(page.url()).pathname).toBe('/dev-ui/');
    const picker = page.getByRole('combobox', { name: 'App' });
    await expect
      .poll(() => picker.locator('option').allTextContents())
      .toEqual(expect.arrayContaining(['assistant', 'approval', 'router', 'pipeline']));
    await picker.selectOption('assistant');
    await page.evaluate(() => {
      const seen: string[] = [];
      (window as unknown as { __frames: string[] }).__frames = seen;
      const sample = () => {
        const text = (document.querySelector('article.streaming .markdown')?.textContent ?? '').trim();
        if (text && seen.at(-1) !== text) seen.push(text);
        requestAnimationFrame(sample);
      };
      requestAnimationFrame(sample);
    });
    await send('Hello, who are you?');
    await expect.poll(() => running().isVisible(), { timeout: 10_000 }).toBe(true);
    await page.getByText('offline demo model').first().waitFor();
    await idle();
    const frames = await page.evaluate(() => (window as unknown as { __frames: string[] }).__frames);
    expect(frames.length).toBeGreaterThan(2);
    firstSession = new URL(page.url()).searchParams.get('session') ?? '';
    expect(firstSession).not.toBe('');
    await shot('streamed-reply');
  });

  it('shows the weather tool call, its result, and the state delta it made', async () => {
    await send('What is the weather in Paris?');
    await page.locator('details.tool-call', { hasText: 'get_weather' }).waitFor();
    await page.locator('details.tool-response', { hasText: 'get_weather' }).waitFor();
    await idle();
    await shot('tool-call-and-result');
    await page
      .getByRole('button', { name: /state Δ .*last_city/ })
      .first()
      .click();
    const row = page.getByRole('tabpanel').getByRole('row', { name: /last_city/ });
    await expect.poll(() => row.textContent()).toContain('Paris');
    await page.locator('details.tool-response', { hasText: 'get_weather' }).locator('summary').click();
    await shot('state-delta');
    await page.screenshot({ path: join(outDir, 'dev-ui.png') });
    if (process.env.UPDATE_SCREENSHOT) await page.screenshot({ path: join(repo, 'docs', 'dev-ui.png') });
    await page.getByRole('tab', { name: 'Event' }).click();
    await expect.poll(() => page.getByRole('tabpanel').textContent()).toContain('"stateDelta"');
    await shot('event-json');
  });

  it('approves a paused refund and the run continues', async () => {
    await page.getByRole('combobox', { name: 'App' }).selectOption('approval');
    await send('Please refund order 1001');
    const approve = page.getByRole('button', { name: 'Approve' });
    await approve.waitFor();
    await idle();
    await shot('confirmation-pending');
    await approve.click();
    await page.locator('details.tool-response', { hasText: 'refund_order' }).waitFor();
    await idle();
    await expect.poll(() => approve.count()).toBe(0);
    await shot('confirmation-approved');
  });

  it('stops a long run with Esc', async () => {
    await page.getByRole('combobox', { name: 'App' }).selectOption('assistant');
    await send('Tell me a long story');
    await page.locator('article.streaming').waitFor();
    await page.getByRole('textbox', { name: 'Message' }).press('Escape');
    await page.getByText('Run stopped.').waitFor();
    await idle();
    await shot('run-stopped');
  });

  it('shows a transfer between agents in the router app', async () => {
    await page.getByRole('combobox', { name: 'App' }).selectOption('router');
    await send('Can you plan a trip to Paris?');
    await page.locator('.badge.transfer', { hasText: 'travel_guide' }).waitFor();
    await idle();
    await expect.poll(() => page.locator('article[aria-label="travel_guide"]').count()).toBeGreaterThan(0);
    await shot('transfer');
  });

  it('switches sessions, then finds the conversation after a reload and after restarting adk web', async () => {
    await page.goto(`${base}/dev-ui/?app=assistant&session=${firstSession}`);
    await page.locator('details.tool-call', { hasText: 'get_weather' }).waitFor();
    const sessions = page.getByRole('navigation', { name: 'Sessions' });
    await sessions.getByRole('button', { name: '+ New' }).click();
    await page.getByText('This session has no messages yet.').waitFor();
    await send('Hi from a new session');
    await page.getByText('offline demo model').first().waitFor();
    await idle();
    expect(new URL(page.url()).searchParams.get('session')).not.toBe(firstSession);
    await sessions.getByTitle(firstSession).click();
    await page.locator('details.tool-call', { hasText: 'get_weather' }).waitFor();
    await shot('switched-session');
    const url = page.url();
    await page.reload();
    await page.locator('details.tool-call', { hasText: 'get_weather' }).waitFor();
    await shot('after-reload');
    await stopAdkWeb();
    await startAdkWeb();
    await page.goto(url);
    await page.locator('details.tool-call', { hasText: 'get_weather' }).waitFor();
    await page.getByText('Hello, who are you?').first().waitFor();
    await shot('after-restart');
  }, 60_000); // about 9 s on an idle 2-core machine; a loaded CI run takes twice that or more
});
