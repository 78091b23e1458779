/// <reference lib="dom" />
// Runs in the web UI, in Chromium (playwright-core) against one in-process @adk/server on a
// temporary PGlite folder (run records in SQL beside the sessions): the Stop button cancels the run
// through the runs routes, the Runs tab lists a session's runs, and a background run started
// through the API is reattached into the chat after a reload. Also the paged, searchable session
// list. Screenshots go to test-output/runs/ (gitignored).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LlmAgent, type LlmResponse } from '@adk/core';
import { ScriptedModel } from '@adk/core/testing';
import { createAdkServer, type ListeningAdkServer, listenAdkServer } from '@adk/server';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { browserSuiteSkip, launchChromium, screenshots, ui } from './__fixtures__/browser.js';
import { buildUi } from './__fixtures__/build-ui.js';
import { devUi } from './index.js';

// Skipped with the reason printed when Chromium is missing; in CI that fails the run instead.
const unavailable = browserSuiteSkip('runs panel browser tests');

const pkgDir = fileURLToPath(new URL('..', import.meta.url));
const outDir = join(pkgDir, 'test-output', 'runs');
const quiet = { info() {}, warn() {}, error: (line: string) => console.error(line) };

/** About 200 chunks 30 ms apart: a reply that streams for ~6 s, long enough to stop or reattach. */
const SLOW_REPLY = `${'Counting slowly, one word after another. '.repeat(30)}Finished counting.`;

function slowAgent(): LlmAgent {
  return new LlmAgent({
    name: 'counter',
    description: 'Counts slowly.',
    model: new ScriptedModel({
      chunkSize: 6,
      delayMs: 30,
      respond: (): LlmResponse => ({
        content: { role: 'model', parts: [{ text: SLOW_REPLY }] },
        finishReason: 'STOP',
        turnComplete: true,
      }),
    }),
    instruction: 'Count.',
  });
}

let uiRoot: string;
let dataDir: string;
let listening: ListeningAdkServer | undefined;
let base = '';
let browser: Browser;
let page: Page;
const shot = screenshots(outDir, () => page);
const { send, running, idle } = ui(() => page);

async function api<T = Record<string, unknown>>(method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${base}${path}`, {
    method,
    ...(body === undefined
      ? {}
      : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return JSON.parse(text) as T;
}

const runsTab = () => page.getByRole('tab', { name: 'Runs' });
const runRow = (runId: string) => page.locator(`.runs-table tr[data-run-id="${runId}"]`);
const sessionItems = () => page.getByRole('navigation', { name: 'Sessions' }).locator('li');

describe.skipIf(unavailable)('runs in the web UI, in Chromium', { timeout: 90_000 }, () => {
  beforeAll(async () => {
    rmSync(outDir, { recursive: true, force: true });
    uiRoot = mkdtempSync(join(tmpdir(), 'adk-dev-ui-runs-build-'));
    dataDir = mkdtempSync(join(tmpdir(), 'adk-dev-ui-runs-data-'));
    await buildUi(uiRoot);
    const server = await createAdkServer({
      apps: { counter: slowAgent() },
      dataDir,
      ui: devUi({ root: uiRoot }),
      a2a: false,
      tracing: false,
      logger: quiet,
    });
    listening = await listenAdkServer(server, { port: 0 });
    base = listening.url;
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1400, height: 860 }, colorScheme: 'light' });
    page.setDefaultTimeout(15_000);
    page.on('pageerror', (error) => console.error('page error:', error.message));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await listening?.close();
    if (uiRoot) rmSync(uiRoot, { recursive: true, force: true });
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  afterEach(async (context) => {
    if (context.task.result?.state === 'fail' && page)
      await page.screenshot({ path: join(outDir, `FAILED-${context.task.name.replace(/\W+/g, '-')}.png`) });
  });

  it('stops a long run with the Stop button through the cancel route; the Runs tab says cancelled', async () => {
    const cancels: string[] = [];
    page.on('request', (request) => {
      if (request.method() === 'POST' && /\/runs\/[^/]+\/cancel$/.test(request.url()))
        cancels.push(request.url());
    });
    await page.goto(`${base}/dev-ui/?app=counter`);
    await send('count to a thousand');
    await expect.poll(() => running().isVisible()).toBe(true);
    // The reply is streaming: some words are on screen, the end is not.
    await page.getByLabel('counter, streaming').waitFor();
    await shot('streaming');
    await page.getByRole('button', { name: 'Stop' }).click();
    await idle();
    expect(cancels).toHaveLength(1);
    await expect.poll(() => page.getByText('Run stopped.').isVisible()).toBe(true);
    await expect.poll(() => page.getByText('Finished counting.').count()).toBe(0);

    const sessionId = new URL(page.url()).searchParams.get('session') as string;
    const { runs } = await api<{ runs: { runId: string; status: string }[] }>(
      'GET',
      `/apps/counter/users/user/sessions/${sessionId}/runs`,
    );
    expect(runs).toHaveLength(1);
    expect(runs[0]?.status).toBe('cancelled');
    expect(cancels[0]).toContain(`/runs/${runs[0]?.runId}/cancel`);

    await runsTab().click();
    const row = runRow(runs[0]?.runId as string);
    await expect.poll(() => row.getAttribute('data-status')).toBe('cancelled');
    await expect.poll(() => row.getByText('cancelled', { exact: true }).isVisible()).toBe(true);
    expect(await row.getByRole('button', { name: /Cancel run/ }).count()).toBe(0);
    await shot('runs-tab-cancelled');
  });

  it('lists a background run after a reload and reattaches its events into the chat', async () => {
    const session = await api<{ id: string }>('POST', '/apps/counter/users/user/sessions', {});
    await page.goto(`${base}/dev-ui/?app=counter&session=${session.id}`);
    const started = await api<{ runId: string; status: string; background: boolean }>(
      'POST',
      `/apps/counter/users/user/sessions/${session.id}/runs`,
      { newMessage: { role: 'user', parts: [{ text: 'count in the background' }] }, streaming: true },
    );
    expect(started.background).toBe(true);

    // The page was open before the run started; a reload is how a user comes back to it.
    await page.reload();
    await runsTab().click();
    const row = runRow(started.runId);
    await expect.poll(() => row.getAttribute('data-status')).toBe('running');
    expect(await row.getByText('background').isVisible()).toBe(true);
    await shot('runs-tab-background-running');

    await row.getByRole('button', { name: `Reattach to run ${started.runId}` }).click();
    await expect.poll(() => running().isVisible()).toBe(true);
    // Its events so far (the user message) and then the live stream land in the chat.
    await page.getByText('count in the background').first().waitFor();
    await page.getByLabel('counter, streaming').waitFor();
    await expect.poll(() => row.getByRole('button', { name: /Reattach/ }).isDisabled()).toBe(true);
    await shot('reattached-streaming');
    await idle();
    await page.getByText('Finished counting.').waitFor();
    // Each event once, however many times the tail and the reload delivered it.
    expect(await page.locator('article', { hasText: 'count in the background' }).count()).toBe(1);
    expect(await page.locator('article', { hasText: 'Finished counting.' }).count()).toBe(1);
    await expect.poll(() => row.getAttribute('data-status')).toBe('succeeded');
    await shot('reattached-finished');
  }, 60_000); // about 9 s on an idle 2-core machine; a loaded CI run takes twice that or more

  it('cancels a background run from the Runs tab', async () => {
    const session = await api<{ id: string }>('POST', '/apps/counter/users/user/sessions', {});
    const started = await api<{ runId: string }>(
      'POST',
      `/apps/counter/users/user/sessions/${session.id}/runs`,
      {
        newMessage: { role: 'user', parts: [{ text: 'count again' }] },
        streaming: true,
      },
    );
    await page.goto(`${base}/dev-ui/?app=counter&session=${session.id}`);
    await runsTab().click();
    const row = runRow(started.runId);
    await expect.poll(() => row.getAttribute('data-status')).toBe('running');
    await row.getByRole('button', { name: `Cancel run ${started.runId}` }).click();
    await expect.poll(() => row.getAttribute('data-status')).toBe('cancelled');
    const record = await api<{ status: string }>(
      'GET',
      `/apps/counter/users/user/sessions/${session.id}/runs/${started.runId}`,
    );
    expect(record.status).toBe('cancelled');
  });

  it('pages the session list (Load more) and searches it by id', async () => {
    const user = 'pager';
    for (let i = 0; i < 57; i++)
      await api('POST', `/apps/counter/users/${user}/sessions`, {
        sessionId: `chat-${String(i).padStart(2, '0')}`,
      });
    await page.goto(`${base}/dev-ui/?app=counter&user=${user}`);
    // Newest first, 50 a page.
    await expect.poll(() => sessionItems().count()).toBe(50);
    expect(await sessionItems().first().textContent()).toContain('chat-56');
    await page.getByRole('button', { name: 'Load more' }).click();
    await expect.poll(() => sessionItems().count()).toBe(57);
    await expect.poll(() => page.getByRole('button', { name: 'Load more' }).count()).toBe(0);

    const search = page.getByRole('searchbox', { name: 'Search sessions' });
    await search.fill('chat-0');
    await expect.poll(() => sessionItems().count()).toBe(10);
    await shot('session-search');

    // An id that is not among the loaded pages is looked up on the server.
    await page.reload();
    await expect.poll(() => sessionItems().count()).toBe(50);
    await search.fill('chat-03');
    await expect.poll(() => sessionItems().count()).toBe(0);
    await page.getByRole('button', { name: 'Look up “chat-03” on the server' }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get('session')).toBe('chat-03');
    await expect.poll(() => sessionItems().count()).toBe(1);
    await search.fill('nope');
    await search.press('Enter');
    await page.getByText('No session “nope”.').waitFor();
  });

  it('renders the latest 50 messages of a long session first, and earlier ones on demand', async () => {
    const events = Array.from({ length: 150 }, (_, i) => ({
      author: i % 2 === 0 ? 'user' : 'counter',
      content: { role: i % 2 === 0 ? 'user' : 'model', parts: [{ text: `message number ${i}` }] },
    }));
    const session = await api<{ id: string }>('POST', '/apps/counter/users/user/sessions', { events });
    await page.goto(`${base}/dev-ui/?app=counter&session=${session.id}`);
    const log = page.getByRole('log', { name: 'Messages' });
    await log.getByText('message number 149').waitFor();
    expect(await log.locator('article').count()).toBe(50);
    expect(await log.getByText('message number 99', { exact: true }).count()).toBe(0);
    await page.getByRole('button', { name: 'Show earlier messages (100 more)' }).click();
    await expect.poll(() => log.locator('article').count()).toBe(150);
    await log.getByText('message number 0', { exact: true }).waitFor();
  });
});
