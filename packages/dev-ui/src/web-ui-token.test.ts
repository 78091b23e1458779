/// <reference lib="dom" />
// The web UI against a real @adk/server started with a token: the page loads without it, asks for
// it on the API's 401, and sends it as a bearer header from then on (Debian's Chromium).
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { InMemorySessionService } from '@adk/core';
import { createAdkServer, type ListeningAdkServer, listenAdkServer } from '@adk/server';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assistantAgent } from './__fixtures__/agents.js';
import { axeViolations, browserSuiteSkip, launchChromium } from './__fixtures__/browser.js';
import { buildUi } from './__fixtures__/build-ui.js';
import { devUi } from './index.js';

const TOKEN = 'tab-only-token';
const outDir = join(fileURLToPath(new URL('..', import.meta.url)), 'test-output', 'token');
const quiet = { info() {}, warn() {}, error: (line: string) => console.error(line) };

let uiRoot: string;
let listening: ListeningAdkServer | undefined;
let browser: Browser;
let page: Page;

const unavailable = browserSuiteSkip('web UI token tests');

describe.skipIf(unavailable)('web UI with a server token', { timeout: 60_000 }, () => {
  beforeAll(async () => {
    mkdirSync(outDir, { recursive: true });
    uiRoot = mkdtempSync(join(tmpdir(), 'adk-dev-ui-build-'));
    await buildUi(uiRoot);
    const server = await createAdkServer({
      apps: { assistant: assistantAgent() },
      sessionService: new InMemorySessionService(),
      token: TOKEN,
      ui: devUi({ root: uiRoot }),
      a2a: false,
      logger: quiet,
    });
    listening = await listenAdkServer(server, { port: 0 });
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1200, height: 800 } });
    page.setDefaultTimeout(10_000);
    page.on('pageerror', (error) => console.error('page error:', error.message));
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await listening?.close();
    if (uiRoot) rmSync(uiRoot, { recursive: true, force: true });
  });

  it('asks for the token, refuses a wrong one, then lists the apps and sends it on every call', async () => {
    const url = listening?.url ?? '';
    const authorizations: (string | null)[] = [];
    page.on('request', (request) => {
      if (new URL(request.url()).pathname.startsWith('/apps/'))
        authorizations.push(request.headers().authorization ?? null);
    });
    await page.goto(`${url}/`);
    const dialog = page.getByRole('dialog', { name: 'Access token required' });
    await expect.poll(() => dialog.isVisible()).toBe(true);
    const field = dialog.getByLabel('Token');
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('adk-token');

    await field.fill('not-it');
    await dialog.getByRole('button', { name: 'Connect' }).click();
    await expect.poll(() => dialog.getByRole('alert').textContent()).toContain('refused');
    expect(await axeViolations(page)).toEqual([]);
    await page.screenshot({ path: join(outDir, 'token-refused.png') });

    await field.fill(TOKEN);
    await field.press('Enter');
    await expect.poll(() => dialog.isVisible()).toBe(false);
    // The app list arrived: the single app is picked, its sessions are listed with the token.
    await expect
      .poll(() => page.getByRole('combobox', { name: 'App' }).inputValue(), { timeout: 10_000 })
      .toBe('assistant');
    await expect.poll(() => authorizations.length).toBeGreaterThan(0);
    expect(authorizations.every((a) => a === `Bearer ${TOKEN}`)).toBe(true);
    expect(await page.evaluate(() => sessionStorage.getItem('adk-dev-ui-token'))).toBe(TOKEN);
    await page.screenshot({ path: join(outDir, 'token-accepted.png') });

    // A reload in the same tab does not ask again.
    await page.reload();
    await expect
      .poll(() => page.getByRole('combobox', { name: 'App' }).inputValue(), { timeout: 10_000 })
      .toBe('assistant');
    expect(await dialog.isVisible()).toBe(false);
  });
});
