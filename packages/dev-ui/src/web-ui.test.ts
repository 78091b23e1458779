/// <reference lib="dom" />
// The web UI in a real browser (Debian's Chromium driven by playwright-core) against a real
// @adk/server on a temporary PGlite data folder, with scripted agents (no network, no keys).
// Screenshots of every step land in test-output/server/ (gitignored).
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { createAdkServer, type ListeningAdkServer, listenAdkServer } from '@adk/server';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { assistantAgent, routerAgent } from './__fixtures__/agents.js';
import { axeViolations } from './__fixtures__/browser.js';
import { buildUi } from './__fixtures__/build-ui.js';
import { browserSuiteSkip, CHROMIUM } from './__fixtures__/chromium.js';
import { devUi } from './index.js';

const unavailable = browserSuiteSkip('web-ui tests');

const pkgDir = fileURLToPath(new URL('..', import.meta.url));
const outDir = join(pkgDir, 'test-output', 'server');
const quiet = { info() {}, warn() {}, error: (line: string) => console.error(line) };

let uiRoot: string;
let dataDir: string;
let listening: ListeningAdkServer | undefined;
let port = 0;
let browser: Browser;
let page: Page;
let base: string;
const metrics: Record<string, number> = {};

async function startServer(): Promise<void> {
  const server = await createAdkServer({
    apps: { assistant: assistantAgent(), router: routerAgent() },
    dataDir,
    ui: devUi({ root: uiRoot }),
    a2a: false,
    logger: quiet,
  });
  listening = await listenAdkServer(server, { port });
  port = listening.port;
  base = listening.url;
}

let step = 0;
async function shot(name: string): Promise<void> {
  step++;
  await page.screenshot({ path: join(outDir, `${String(step).padStart(2, '0')}-${name}.png`) });
}

const composer = () => page.getByRole('textbox', { name: 'Message' });
async function send(text: string): Promise<void> {
  await composer().fill(text);
  await composer().press('Enter');
}
const running = () => page.getByRole('status').getByText('Running…');
const idle = () => expect.poll(() => running().isVisible(), { timeout: 30_000 }).toBe(false);

describe.skipIf(unavailable)('web UI in Chromium against @adk/server', { timeout: 60_000 }, () => {
  beforeAll(async () => {
    rmSync(outDir, { recursive: true, force: true });
    mkdirSync(outDir, { recursive: true });
    uiRoot = mkdtempSync(join(tmpdir(), 'adk-dev-ui-build-'));
    dataDir = mkdtempSync(join(tmpdir(), 'adk-dev-ui-data-'));
    await buildUi(uiRoot);
    await startServer();
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--no-first-run',
      ],
    });
    page = await browser.newPage({ viewport: { width: 1400, height: 860 }, colorScheme: 'light' });
    page.setDefaultTimeout(10_000);
    page.on('pageerror', (error) => console.error('page error:', error.message));
  }, 90_000);

  afterAll(async () => {
    writeFileSync(join(outDir, 'metrics.json'), `${JSON.stringify(metrics, null, 2)}\n`);
    console.log('dev-ui metrics:', metrics);
    await browser?.close();
    await listening?.close();
    if (uiRoot) rmSync(uiRoot, { recursive: true, force: true });
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  afterEach(async (context) => {
    if (context.task.result?.state === 'fail' && page)
      await page.screenshot({ path: join(outDir, `FAILED-${context.task.name.replace(/\W+/g, '-')}.png`) });
  });

  it('ships under 150 KB of gzipped JavaScript, nothing from a CDN', () => {
    const assets = join(uiRoot, 'assets');
    let js = 0;
    let css = 0;
    for (const f of readdirSync(assets)) {
      const gz = gzipSync(readFileSync(join(assets, f)), { level: 9 }).byteLength;
      if (f.endsWith('.js')) js += gz;
      if (f.endsWith('.css')) css += gz;
      expect(readFileSync(join(assets, f), 'utf8')).not.toMatch(/<script[^>]+src=["']https?:/);
    }
    metrics.jsGzipBytes = js;
    metrics.cssGzipBytes = css;
    expect(js).toBeLessThan(150 * 1024);
  });

  it('redirects / to /dev-ui/, picks the app from the link, and is interactive fast', async () => {
    await page.goto(`${base}/`);
    expect(new URL(page.url()).pathname).toBe('/dev-ui/');
    await page.goto(`${base}/dev-ui/?app=assistant`);
    await expect.poll(() => composer().isEnabled()).toBe(true);
    // Navigation start to the app list loaded and the composer usable (the page marks it).
    const interactive = () =>
      page.evaluate(() => performance.getEntriesByName('adk:interactive')[0]?.startTime ?? -1);
    metrics.timeToInteractiveColdMs = Math.round(await interactive());
    const warm: number[] = [];
    for (let i = 0; i < 5; i++) {
      await page.reload();
      await expect.poll(() => composer().isEnabled()).toBe(true);
      warm.push(await interactive());
    }
    metrics.timeToInteractiveWarmMedianMs = Math.round(warm.sort((a, b) => a - b)[2] as number);
    expect(metrics.timeToInteractiveColdMs).toBeGreaterThan(0);
    expect(metrics.timeToInteractiveWarmMedianMs).toBeGreaterThan(0);
    await expect.poll(() => page.getByRole('heading', { name: 'assistant' }).isVisible()).toBe(true);
    await shot('empty-app');
  });

  it('streams the reply token by token: the text grows over more than one paint', async () => {
    // Sample the streaming bubble once per animation frame.
    await page.evaluate(() => {
      const seen: string[] = [];
      (window as unknown as { __frames: string[] }).__frames = seen;
      const sample = () => {
        const bubble = document.querySelector('article.streaming .markdown');
        const text = (bubble?.textContent ?? '').trim();
        if (text && seen.at(-1) !== text) seen.push(text);
        requestAnimationFrame(sample);
      };
      requestAnimationFrame(sample);
    });
    await send('hi there');
    await expect.poll(() => running().isVisible(), { timeout: 10_000 }).toBe(true);
    await page.getByText('Ask me about the weather in Paris.').waitFor();
    await idle();
    const frames = await page.evaluate(() => (window as unknown as { __frames: string[] }).__frames);
    // Several distinct paints while streaming, each a longer beginning of the same answer.
    expect(frames.length).toBeGreaterThan(2);
    const head = 'Hello! I am a';
    for (const frame of frames) expect(frame.startsWith(head) || head.startsWith(frame)).toBe(true);
    expect((frames.at(-1) as string).length).toBeGreaterThan((frames[0] as string).length + 40);
    // Markdown rendered with a highlighted code block.
    await expect.poll(() => page.locator('pre.code code .hljs-keyword').first().textContent()).toBe('const');
    expect(new URL(page.url()).searchParams.get('session')).toBeTruthy();
    await shot('streamed-reply');
  });

  it('is usable before the Markdown renderer has loaded: plain text first, then Markdown and colours', async () => {
    // marked and highlight.js are a chunk of their own, fetched after the page is interactive. Hold
    // that chunk back in a fresh context (empty cache), open the conversation above, then let it through.
    const session = new URL(page.url()).searchParams.get('session') ?? '';
    expect(session).not.toBe('');
    const context = await browser.newContext({ viewport: { width: 1400, height: 860 } });
    try {
      let release = () => {};
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      const asked: string[] = [];
      await context.route(/\/assets\/render-html-[^/]+\.js$/, async (route) => {
        asked.push(route.request().url());
        await held;
        await route.continue();
      });
      const fresh = await context.newPage();
      fresh.setDefaultTimeout(10_000);
      await fresh.goto(`${base}/dev-ui/?app=assistant&session=${session}`);
      const box = fresh.getByRole('textbox', { name: 'Message' });
      await expect.poll(() => box.isEnabled()).toBe(true);
      const reply = fresh.locator('article .markdown', { hasText: 'scripted' }).first();
      await expect.poll(() => reply.locator('p.plain').textContent()).toContain('**scripted**');
      await expect.poll(() => asked.length).toBeGreaterThan(0);
      expect(await reply.locator('strong, pre.code').count()).toBe(0);
      release();
      await expect.poll(() => reply.locator('strong').textContent()).toBe('scripted');
      await expect
        .poll(() => reply.locator('pre.code code .hljs-keyword').first().textContent())
        .toBe('const');
      expect(await reply.locator('p.plain').count()).toBe(0);
    } finally {
      await context.close();
    }
  });

  it('shows the tool call with its arguments and the tool result, then the answer', async () => {
    await send('What is the weather in Paris?');
    const call = page.locator('details.tool-call', { hasText: 'get_weather' }).last();
    await call.waitFor();
    await expect.poll(() => call.textContent()).toContain('{"city":"Paris"}');
    const result = page.locator('details.tool-response', { hasText: 'get_weather' }).last();
    await expect.poll(() => result.textContent()).toContain('"forecast":"sunny"');
    await page.getByText('21°C').last().waitFor();
    await result.locator('summary').click();
    await shot('tool-call-and-result');
  });

  it('opens an event as JSON and shows the state delta it made, before and after', async () => {
    await page.getByRole('button', { name: 'state Δ last_city' }).last().click();
    const panel = page.getByRole('tabpanel');
    await expect
      .poll(() => page.getByRole('tab', { name: 'State' }).getAttribute('aria-selected'))
      .toBe('true');
    const row = panel.getByRole('row', { name: /last_city/ });
    await expect.poll(() => row.textContent()).toContain('unset');
    await expect.poll(() => row.textContent()).toContain('"Paris"');
    await shot('state-delta');
    await page.getByRole('tab', { name: 'Event' }).click();
    await expect.poll(() => panel.textContent()).toContain('"stateDelta"');
    await expect.poll(() => panel.textContent()).toContain('"functionResponse"');
    await shot('event-json');
  });

  it('shows a failing tool in red and a model error as an alert', async () => {
    await send('use the broken tool');
    const failed = page.locator('details.tool-response.error', { hasText: 'flaky_lookup' });
    await failed.waitFor();
    expect(await failed.evaluate((el) => getComputedStyle(el).color)).toMatch(
      /rgb\((19[0-9]|2\d\d), \d{1,2}, \d{1,2}\)/,
    );
    await page.getByText('The tool failed').waitFor();
    await idle();
    await send('crash please');
    await page.getByRole('alert').filter({ hasText: 'model exploded' }).waitFor();
    await idle();
    await shot('errors');
  });

  it('pauses on a tool confirmation; Approve resumes the run', async () => {
    await send('please delete my notes');
    const approve = page.getByRole('button', { name: 'Approve' });
    await approve.waitFor();
    await expect
      .poll(() => page.getByRole('region', { name: 'Confirmation for delete_file' }).isVisible())
      .toBe(true);
    await shot('confirmation-pending');
    await approve.click();
    await page.getByText('Done: deleted').waitFor();
    await expect.poll(() => approve.count()).toBe(0);
    await shot('confirmation-approved');
    // The answer shows before the run has ended (its record is finished, the stream closes): a
    // message can be sent once it has.
    await idle();
    // A rejection resumes the run too: the tool does not run and the model hears why.
    await send('delete it again');
    await page.getByRole('button', { name: 'Reject' }).click();
    await page.getByText('I did not delete it').waitFor();
    await idle();
    await shot('confirmation-rejected');
  });

  it('sends an attached file as an inline part', async () => {
    await page.getByLabel('Attach files').setInputFiles({
      name: 'notes.txt',
      mimeType: 'text/plain',
      buffer: Buffer.from('remember the milk'),
    });
    await page.getByRole('list', { name: 'Attached files' }).getByText('notes.txt').waitFor();
    await send('here is a file');
    await page.locator('article.from-user .file-chip', { hasText: 'notes.txt' }).last().waitFor();
    await idle();
    await page
      .locator('article.from-user')
      .last()
      .getByRole('button', { name: /Inspect event/ })
      .click();
    await expect.poll(() => page.getByRole('tabpanel').textContent()).toContain('"inlineData"');
  });

  it('stops a long run with Esc', async () => {
    await send('tell me something long');
    await expect.poll(() => running().isVisible(), { timeout: 10_000 }).toBe(true);
    await page.locator('article.streaming').waitFor({ timeout: 20_000 });
    await expect.poll(() => page.locator('article.streaming').textContent()).toContain('keeps streaming');
    await composer().press('Escape');
    await page.getByText('Run stopped.').waitFor();
    await idle();
    await page.waitForTimeout(300);
    expect(await page.getByText('The end.').count()).toBe(0);
    await shot('run-stopped');
    // The app still answers after a stop.
    await send('hi again');
    await page.getByText('Ask me about the weather in Paris.').last().waitFor();
    await idle();
  });

  it('shows usage per step and per session, artifacts, the trace and the agent graph', async () => {
    await page.getByRole('tab', { name: 'Usage' }).click();
    const panel = page.getByRole('tabpanel');
    await expect.poll(() => panel.getByRole('row').count()).toBeGreaterThan(3);
    const total = await panel.locator('.totals div', { hasText: 'total tokens' }).locator('dd').textContent();
    expect(Number(total)).toBeGreaterThan(100);
    await shot('usage');

    await page.getByRole('tab', { name: 'Artifacts' }).click();
    await panel.getByRole('button', { name: 'report.txt' }).click();
    await expect.poll(() => panel.locator('pre.artifact-text').textContent()).toContain('Forecast for Paris');
    await expect
      .poll(() => panel.getByRole('link', { name: 'Download' }).getAttribute('download'))
      .toBe('report.txt');
    await panel.getByRole('button', { name: 'map.png' }).click();
    await expect
      .poll(() =>
        panel
          .getByRole('img', { name: 'Artifact map.png' })
          .evaluate((img) => (img as HTMLImageElement).naturalWidth),
      )
      .toBe(1);
    await shot('artifacts');

    // The model step behind the weather answer: what the server's trace recorded for it.
    await page
      .locator('article', { hasText: '21°C' })
      .last()
      .getByRole('button', { name: /Inspect event/ })
      .click();
    await page.getByRole('tab', { name: 'Request/Response' }).click();
    // The request as the model received it (the server records it on the model call's span):
    // the system instruction and the conversation, ending with the tool's result.
    const modelRequest = panel.locator('pre[title="Model request"]');
    await expect.poll(() => modelRequest.textContent()).toContain('Be helpful.');
    expect(await modelRequest.textContent()).toContain('functionResponse');
    expect(await modelRequest.textContent()).toContain('sunny');
    await expect.poll(() => panel.locator('pre[title="Model response"]').textContent()).toContain('21°C');
    expect(await panel.textContent()).not.toContain('does not record the model request');
    await panel.getByText('All trace attributes').click();
    await expect.poll(() => panel.textContent()).toContain('gen_ai.request.model');
    await shot('request-response');

    await page.getByRole('tab', { name: 'Trace' }).click();
    await expect
      .poll(() => panel.getByRole('list', { name: 'Span tree' }).locator('li').count())
      .toBeGreaterThan(1);
    await expect.poll(() => panel.textContent()).toMatch(/\d+(\.\d+)? (ms|s|µs)/);
    await shot('trace');

    await page.getByRole('tab', { name: 'Graph' }).click();
    const graph = panel.getByRole('img', { name: /Agent graph of assistant/ });
    await expect.poll(() => graph.getAttribute('aria-label')).toContain('get_weather');
    await shot('graph');
  });

  it('shows the author of each event and transfers between agents', async () => {
    await page.getByRole('combobox', { name: 'App' }).selectOption('router');
    await send('I want a refund');
    await page.getByText('Billing here').waitFor();
    await page.locator('.badge.transfer', { hasText: 'billing' }).waitFor();
    await expect.poll(() => page.locator('article[aria-label="billing"]').count()).toBeGreaterThan(0);
    await shot('transfer');
  });

  it('switches sessions, creates and deletes one, and follows deep links', async () => {
    await page.goto(`${base}/dev-ui/?app=assistant`);
    const sessions = page.getByRole('navigation', { name: 'Sessions' });
    await expect.poll(() => sessions.getByRole('listitem').count()).toBe(1);
    await sessions.getByRole('button', { name: '+ New' }).click();
    await expect.poll(() => sessions.getByRole('listitem').count()).toBe(2);
    await page.getByText('This session has no messages yet.').waitFor();
    await send('hello second session');
    await page.getByText('Ask me about the weather in Paris.').waitFor();
    const second = new URL(page.url()).searchParams.get('session');
    // Back to the first conversation.
    await sessions.locator('li:not(.current) .session-item').click();
    await page.getByText('21°C').waitFor();
    const first = new URL(page.url()).searchParams.get('session');
    expect(first).not.toBe(second);
    await shot('switched-session');
    // Delete the second one.
    page.once('dialog', (d) => void d.accept());
    await sessions.getByRole('button', { name: `Delete session ${second}` }).click();
    await expect.poll(() => sessions.getByRole('listitem').count()).toBe(1);
    // Unknown session and unknown app links say so.
    await page.goto(`${base}/dev-ui/?app=assistant&session=nope`);
    await page.getByRole('heading', { name: 'Session not found' }).waitFor();
    await page.goto(`${base}/dev-ui/?app=nope`);
    await page.getByRole('heading', { name: /Unknown app/ }).waitFor();
    await page.goto(`${base}/dev-ui/?app=assistant&session=${first}`);
    await page.getByText('21°C').waitFor();
  });

  it('finds the conversation again after a reload and after a server restart', async () => {
    const url = page.url();
    await page.reload();
    await page.getByText('21°C').waitFor();
    await page.getByText('Done: deleted').waitFor();
    await shot('after-reload');
    await listening?.close();
    listening = undefined;
    // The page stays open while the server is down: sending says so.
    await send('are you there?');
    await page.getByRole('alert').filter({ hasText: 'cannot be reached' }).waitFor();
    await idle();
    await shot('server-down');
    await startServer();
    await page.goto(url);
    await page.getByText('21°C').waitFor();
    await page.getByText('Done: deleted').waitFor();
    await shot('after-restart');
  });

  it('says so when the server cannot be reached at load, and recovers on Retry', async () => {
    await page.route('**/list-apps', (route) => route.abort('connectionrefused'));
    await page.reload();
    await page.getByRole('heading', { name: 'Cannot reach the ADK server' }).waitFor();
    await shot('server-unreachable');
    await page.unroute('**/list-apps');
    await page.getByRole('button', { name: 'Retry' }).click();
    await page.getByText('21°C').waitFor();
  });

  it('switches to the dark theme and keeps it across reloads', async () => {
    await page.getByRole('button', { name: 'Switch to dark theme' }).click();
    await expect.poll(() => page.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
    await page.reload();
    await page.getByText('21°C').waitFor();
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
    await shot('dark-theme');
  });

  it('has no serious or critical accessibility violations (axe-core), in both themes', async () => {
    // With a tool card and the state pane open, in dark then light.
    await page.getByRole('button', { name: 'state Δ last_city' }).first().click();
    expect(await axeViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Switch to light theme' }).click();
    await expect.poll(() => page.evaluate(() => document.documentElement.dataset.theme)).toBe('light');
    expect(await axeViolations(page)).toEqual([]);
  });
});
