/// <reference lib="dom" />
// The Eval tab in a real browser (Debian's Chromium through playwright-core) against @adk/server
// with the eval routes of @adk/eval: chat, save the session as an eval case, run the set, and read
// the result with the expected and actual trajectory side by side. Screenshots go to
// test-output/eval/ (gitignored).
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { InMemorySessionService } from '@adk/core';
import { evalRoutes } from '@adk/eval/server';
import { createAdkServer, type ListeningAdkServer, listenAdkServer } from '@adk/server';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assistantAgent } from './__fixtures__/agents.js';
import { axeViolations } from './__fixtures__/browser.js';
import { buildUi } from './__fixtures__/build-ui.js';
import { browserSuiteSkip, CHROMIUM } from './__fixtures__/chromium.js';
import { devUi } from './index.js';

const unavailable = browserSuiteSkip('eval tab tests');

const outDir = join(fileURLToPath(new URL('..', import.meta.url)), 'test-output', 'eval');
let uiRoot: string;
let agentsDir: string;
let listening: ListeningAdkServer | undefined;
let browser: Browser;
let page: Page;

async function shot(name: string): Promise<void> {
  mkdirSync(outDir, { recursive: true });
  await page.screenshot({ path: join(outDir, `${name}.png`) });
}

describe.skipIf(unavailable)('Eval tab in Chromium', { timeout: 60_000 }, () => {
  beforeAll(async () => {
    uiRoot = mkdtempSync(join(tmpdir(), 'adk-dev-ui-eval-build-'));
    agentsDir = mkdtempSync(join(tmpdir(), 'adk-dev-ui-eval-apps-'));
    mkdirSync(join(agentsDir, 'assistant'));
    await buildUi(uiRoot);
    const agent = assistantAgent();
    const server = await createAdkServer({
      apps: { assistant: agent },
      sessionService: new InMemorySessionService(),
      ui: devUi({ root: uiRoot }),
      a2a: false,
      tracing: false,
      logger: { info() {}, warn() {}, error: (line: string) => console.error(line) },
      routes: [
        evalRoutes({ agentsDir, loadAgent: async () => agent, hasApp: (name) => name === 'assistant' }),
      ],
    });
    listening = await listenAdkServer(server, { host: '127.0.0.1', port: 0 });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--no-first-run',
      ],
    });
    page = await browser.newPage({ viewport: { width: 1400, height: 900 }, colorScheme: 'light' });
    page.setDefaultTimeout(15_000);
    page.on('pageerror', (error) => console.error('page error:', error.message));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await listening?.close();
    if (uiRoot) rmSync(uiRoot, { recursive: true, force: true });
    if (agentsDir) rmSync(agentsDir, { recursive: true, force: true });
  });

  it('saves a chat as an eval case, runs the set, and shows expected and actual side by side', async () => {
    await page.goto(`${listening?.url}/dev-ui/?app=assistant`);
    const composer = page.getByRole('textbox', { name: 'Message' });
    await expect.poll(() => composer.isEnabled()).toBe(true);
    await composer.fill('What is the weather in Paris?');
    await composer.press('Enter');
    await expect
      .poll(() => page.getByText('It is sunny in Paris, 21°C.').isVisible(), { timeout: 30_000 })
      .toBe(true);
    await expect.poll(() => page.getByRole('status').getByText('Running…').isVisible()).toBe(false);

    await page.getByRole('tab', { name: 'Eval' }).click();
    await page.getByRole('textbox', { name: 'New eval set id' }).fill('smoke');
    await page.getByRole('button', { name: 'Create eval set' }).click();
    await expect.poll(() => page.getByRole('combobox', { name: 'Eval set' }).inputValue()).toBe('smoke');

    await page.getByRole('textbox', { name: 'Eval case id' }).fill('paris');
    await page.getByRole('button', { name: 'Add current session' }).click();
    await expect.poll(() => page.getByText('Cases: paris').isVisible()).toBe(true);
    await shot('1-case-added');

    await page.getByRole('button', { name: 'Run eval' }).click();
    const result = page.getByRole('article', { name: 'Eval case paris' });
    await expect.poll(() => result.isVisible(), { timeout: 30_000 }).toBe(true);
    await shot('2-result');
    await expect.poll(() => result.getByRole('heading', { level: 4 }).textContent()).toContain('PASSED');
    const rows = result.getByRole('row');
    expect(await rows.filter({ hasText: 'tool_trajectory_avg_score' }).textContent()).toMatch(
      /1\.000\s*1\s*PASSED/,
    );
    expect(await rows.filter({ hasText: 'response_match_score' }).textContent()).toMatch(
      /1\.000\s*0\.8\s*PASSED/,
    );
    const expected = result.getByRole('region', { name: 'Expected' });
    const actual = result.getByRole('region', { name: 'Actual' });
    expect(await expected.textContent()).toContain('get_weather({"city":"Paris"})');
    expect(await actual.textContent()).toContain('get_weather({"city":"Paris"})');
    expect(await actual.textContent()).toContain('It is **sunny** in Paris, 21°C.');

    // The run was saved: it can be reopened from the past results.
    const past = page.getByRole('combobox', { name: 'Past result' });
    const options = await past.locator('option').allInnerTexts();
    expect(options.filter((o) => o.startsWith('assistant_smoke_'))).toHaveLength(1);

    // No serious or critical accessibility violations with the results open.
    expect(await axeViolations(page, '#inspector-panel')).toEqual([]);
  });
});
