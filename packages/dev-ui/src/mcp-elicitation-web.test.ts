/// <reference lib="dom" />
// MCP elicitation answered in the dev UI, in a real browser: the real `server-everything` MCP server
// (from the registry) asks for input during a tool call, the run pauses on a confirmation whose
// payload carries the question, the UI builds a form from the requested JSON schema (form mode) or
// shows the link with consent/refusal (URL mode), and the answer re-runs the call to completion.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LlmAgent, type LlmRequest, type LlmResponse } from '@adk/core';
import { ScriptedModel } from '@adk/core/testing';
import { McpToolset } from '@adk/mcp';
import { createAdkServer, type ListeningAdkServer, listenAdkServer } from '@adk/server';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildUi } from './__fixtures__/build-ui.js';
import { browserSuiteSkip, CHROMIUM } from './__fixtures__/chromium.js';
import { devUi } from './index.js';

const unavailable = browserSuiteSkip('MCP elicitation web tests');

const pkgDir = fileURLToPath(new URL('..', import.meta.url));
const outDir = join(pkgDir, 'test-output', 'mcp-elicitation');
const quiet = { info() {}, warn() {}, error: (line: string) => console.error(line) };

function everythingBin(): string {
  const require = createRequire(import.meta.url);
  const pkgJson = require.resolve('@modelcontextprotocol/server-everything/package.json');
  const pkg = require(pkgJson) as { bin: string | Record<string, string> };
  const bin = typeof pkg.bin === 'string' ? pkg.bin : (Object.values(pkg.bin)[0] as string);
  return join(dirname(pkgJson), bin);
}

function call(name: string, args: Record<string, unknown>): LlmResponse {
  return {
    content: { role: 'model', parts: [{ functionCall: { id: '', name, args } }] },
    finishReason: 'STOP',
  };
}

function reply(value: string): LlmResponse {
  return { content: { role: 'model', parts: [{ text: value }] }, finishReason: 'STOP', turnComplete: true };
}

/** The text of the newest function response the model received, to echo it back. */
function lastToolResult(request: LlmRequest): string {
  for (let i = request.contents.length - 1; i >= 0; i--) {
    for (const part of request.contents[i]?.parts ?? []) {
      if (part.functionResponse) return JSON.stringify(part.functionResponse.response);
    }
  }
  return '';
}

/** Calls the tool the user names; once the tool answered, reports what it returned. */
const model = new ScriptedModel({
  script: Array.from({ length: 8 }, () => (request: LlmRequest) => {
    const last = request.contents.at(-1);
    if (last?.parts.some((p) => p.functionResponse)) return reply(`Tool said: ${lastToolResult(request)}`);
    const text = last?.parts.find((p) => p.text)?.text ?? '';
    if (text.includes('link'))
      return call('trigger-url-elicitation', {
        url: 'https://example.com/connect',
        message: 'Connect your account',
      });
    return call('trigger-elicitation-request', {});
  }),
});

let uiRoot: string;
let dataDir: string;
let listening: ListeningAdkServer | undefined;
let toolset: McpToolset;
let browser: Browser;
let page: Page;

const composer = () => page.getByRole('textbox', { name: 'Message' });
async function send(text: string): Promise<void> {
  await composer().fill(text);
  await composer().press('Enter');
}
const running = () => page.getByRole('status').getByText('Running…');
const idle = () => expect.poll(() => running().isVisible(), { timeout: 60_000 }).toBe(false);
const question = () => page.getByRole('region', { name: 'Input requested by everything' });

describe.skipIf(unavailable)('MCP elicitation in the dev UI (Chromium)', { timeout: 180_000 }, () => {
  beforeAll(async () => {
    mkdirSync(outDir, { recursive: true });
    uiRoot = mkdtempSync(join(tmpdir(), 'adk-dev-ui-build-'));
    dataDir = mkdtempSync(join(tmpdir(), 'adk-dev-ui-data-'));
    await buildUi(uiRoot);
    toolset = new McpToolset({
      name: 'everything',
      connection: { type: 'stdio', command: process.execPath, args: [everythingBin(), 'stdio'] },
    });
    const agent = new LlmAgent({ name: 'assistant', model, tools: [toolset] });
    const server = await createAdkServer({
      apps: { elicit: agent },
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
    await page.goto(`${listening.url}/dev-ui/?app=elicit`);
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

  it('builds a form from the requested schema; the answer re-runs the call to completion', async () => {
    await expect.poll(() => composer().isEnabled(), { timeout: 60_000 }).toBe(true);
    await send('ask me');
    await question().waitFor({ timeout: 120_000 });
    // The form has the schema's fields, typed: a text box, a checkbox and a whole number.
    const name = question().getByRole('textbox').first();
    await expect.poll(() => name.isVisible()).toBe(true);
    expect(await question().getByRole('checkbox').count()).toBeGreaterThan(0);
    expect(await question().getByRole('spinbutton').count()).toBeGreaterThan(0);
    await page.screenshot({ path: join(outDir, '01-form.png') });
    await name.fill('Ada Lovelace');
    await question().getByRole('checkbox').first().check();
    await question().getByRole('spinbutton').first().fill('7');
    await question().getByRole('button', { name: 'Send answer' }).click();
    // The server hears the answer when the call re-runs, and the run goes on to the model's reply.
    await page.getByText(/Tool said: .*Ada Lovelace/).waitFor({ timeout: 120_000 });
    await expect.poll(() => question().getByText('Answered.').isVisible()).toBe(true);
    await idle();
    await page.screenshot({ path: join(outDir, '02-form-answered.png') });
  });

  it('declining the form reaches the server as a refusal', async () => {
    await send('ask me again');
    const open = question().filter({ has: page.getByRole('button', { name: 'Decline' }) });
    await open.waitFor({ timeout: 120_000 });
    await open.getByRole('button', { name: 'Decline' }).click();
    await page.getByText(/Tool said: .*decline/).waitFor({ timeout: 120_000 });
    await idle();
  });

  it('URL mode shows the link; consent continues the call', async () => {
    await send('open the link');
    const open = question().filter({ has: page.getByRole('button', { name: 'I consent' }) });
    await open.waitFor({ timeout: 120_000 });
    const link = open.getByRole('link', { name: /example\.com\/connect/ });
    expect(await link.getAttribute('href')).toBe('https://example.com/connect');
    expect(await link.getAttribute('rel')).toContain('noopener');
    await page.screenshot({ path: join(outDir, '03-url.png') });
    await open.getByRole('button', { name: 'I consent' }).click();
    await page.getByText(/Tool said: .*URL elicitation flow/).waitFor({ timeout: 120_000 });
    await idle();
  });
});
