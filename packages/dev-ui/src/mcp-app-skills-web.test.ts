/// <reference lib="dom" />
// MCP Apps and Agent Skills in the dev UI, in a real browser. A tool with a `ui://` view (written
// with the official view-side `App`) is called, `@adk/mcp` saves the view as a session artifact, and
// the dev UI renders it in a scripts-only sandboxed iframe, answers the view's handshake and hands
// it the tool's input and result. The Skills tab lists the agent's skills (@adk/skills'
// SkillToolset over a skills folder) and marks the one the model loaded.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LlmAgent, type LlmRequest, type LlmResponse } from '@adk/core';
import { ScriptedModel } from '@adk/core/testing';
import { McpToolset } from '@adk/mcp';
import { createAdkServer, type ListeningAdkServer, listenAdkServer } from '@adk/server';
import { SkillToolset } from '@adk/skills';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildUi } from './__fixtures__/build-ui.js';
import { browserSuiteSkip, CHROMIUM } from './__fixtures__/chromium.js';
import { devUi } from './index.js';

const unavailable = browserSuiteSkip('MCP Apps web tests');

const pkgDir = fileURLToPath(new URL('..', import.meta.url));
const outDir = join(pkgDir, 'test-output', 'mcp-app');
const fixture = fileURLToPath(new URL('./__fixtures__/mcp-app-server.mjs', import.meta.url));
const quiet = { info() {}, warn() {}, error: (line: string) => console.error(line) };

const model = new ScriptedModel({
  script: Array.from({ length: 8 }, () => (request: LlmRequest): LlmResponse => {
    const last = request.contents.at(-1);
    if (last?.parts.some((p) => p.functionResponse))
      return { content: { role: 'model', parts: [{ text: 'Here is the forecast.' }] }, finishReason: 'STOP' };
    if (last?.parts.some((p) => p.text?.includes('skill')))
      return {
        content: {
          role: 'model',
          parts: [{ functionCall: { id: '', name: 'load_skill', args: { name: 'csv-stats' } } }],
        },
        finishReason: 'STOP',
      };
    return {
      content: {
        role: 'model',
        parts: [{ functionCall: { id: '', name: 'show_forecast', args: { city: 'Paris' } } }],
      },
      finishReason: 'STOP',
    };
  }),
});

let uiRoot: string;
let dataDir: string;
let listening: ListeningAdkServer | undefined;
let toolset: McpToolset;
let browser: Browser;
let page: Page;

describe.skipIf(unavailable)('MCP Apps in the dev UI (Chromium)', { timeout: 180_000 }, () => {
  beforeAll(async () => {
    mkdirSync(outDir, { recursive: true });
    uiRoot = mkdtempSync(join(tmpdir(), 'adk-dev-ui-build-'));
    dataDir = mkdtempSync(join(tmpdir(), 'adk-dev-ui-data-'));
    await buildUi(uiRoot);
    toolset = new McpToolset({
      name: 'forecast',
      connection: { type: 'stdio', command: process.execPath, args: [fixture] },
    });
    const skills = new SkillToolset({
      skills: join(pkgDir, '..', 'skills', 'src', '__fixtures__', 'skills'),
    });
    const agent = new LlmAgent({ name: 'assistant', model, tools: [toolset, skills] });
    const server = await createAdkServer({
      apps: { forecast: agent },
      dataDir,
      ui: devUi({ root: uiRoot }),
      a2a: false,
      logger: quiet,
    });
    listening = await listenAdkServer(server, { port: 0 });
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
    page = await browser.newPage({ viewport: { width: 1400, height: 860 }, colorScheme: 'light' });
    await page.goto(`${listening.url}/dev-ui/?app=forecast`);
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    await listening?.close();
    await toolset?.close();
    if (uiRoot) rmSync(uiRoot, { recursive: true, force: true });
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  afterEach(async (context) => {
    if (context.task.result?.state === 'fail' && page)
      await page.screenshot({ path: join(outDir, `FAILED-${context.task.name.replace(/\W+/g, '-')}.png`) });
  });

  it('renders the view sandboxed and gives it the tool input and result over the MCP Apps handshake', async () => {
    const composer = page.getByRole('textbox', { name: 'Message' });
    await expect.poll(() => composer.isEnabled(), { timeout: 60_000 }).toBe(true);
    await composer.fill('forecast for Paris');
    await composer.press('Enter');
    const frame = page.getByTitle('MCP App ui://forecast/view.html');
    await frame.waitFor({ timeout: 120_000 });
    expect(await frame.getAttribute('sandbox')).toBe('allow-scripts');
    const view = page.frameLocator('iframe[title="MCP App ui://forecast/view.html"]');
    await view.getByText('Host: adk-dev-ui').waitFor({ timeout: 60_000 });
    await view.getByText('Input: Paris').waitFor({ timeout: 60_000 });
    await view.getByText('Result: sunny, 21 °C').waitFor({ timeout: 60_000 });
    // Scripts-only sandbox: the view cannot reach the dev UI's page (its token, its storage).
    await view.getByText('Origin: isolated').waitFor({ timeout: 60_000 });
    // The view reported its size; the frame follows it instead of the default height.
    await expect
      .poll(async () => (await frame.boundingBox())?.height ?? 0, { timeout: 20_000 })
      .not.toBe(160);
    await page.getByText('Here is the forecast.').waitFor({ timeout: 60_000 });
    await page.screenshot({ path: join(outDir, '01-view.png') });
  }, 60_000); // about 9 s on an idle 2-core machine; a loaded CI run takes twice that or more

  it('lists the skills in the Skills tab and marks the loaded one; every inspector tab fits at 1400 px', async () => {
    const tabs = page.getByRole('tablist', { name: 'Inspector views' });
    const inspector = await page.getByRole('complementary', { name: 'Inspector' }).boundingBox();
    for (const tab of await tabs.getByRole('tab').all()) {
      const box = await tab.boundingBox();
      expect(
        box && inspector && box.x + box.width <= inspector.x + inspector.width + 1,
        (await tab.textContent()) ?? '',
      ).toBe(true);
    }
    await tabs.getByRole('tab', { name: 'Skills' }).click();
    const list = page.getByRole('region', { name: 'Skills of assistant' });
    await list.getByText('0 of 2 loaded').waitFor({ timeout: 60_000 });
    await list.getByText('Summarises a CSV table', { exact: false }).waitFor();
    const composer = page.getByRole('textbox', { name: 'Message' });
    await composer.fill('use the csv skill');
    await composer.press('Enter');
    await list.getByRole('listitem', { name: 'Skill csv-stats, loaded' }).waitFor({ timeout: 120_000 });
    await list.getByText('1 of 2 loaded').waitFor({ timeout: 60_000 });
    expect(await list.getByRole('listitem', { name: 'Skill weather-report' }).isVisible()).toBe(true);
    await page.screenshot({ path: join(outDir, '02-skills.png') });
  });
});
