/// <reference lib="dom" />
// A graph workflow in the web UI as users meet it: `adk web apps/examples` as a child process on
// a temporary data folder (offline demo model), Chromium driving the `refund_flow` app: the Graph
// tab draws its routes and join, its question shows as a form, and answering it ends the run.
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
const outDir = join(pkgDir, 'test-output', 'workflow-web');

const unavailable = browserSuiteSkip('workflow browser tests', {
  missing: [
    !existsSync(join(repo, 'packages', 'cli', 'dist', 'cli.js')) &&
      '@adk/cli build (pnpm --filter @adk/cli build)',
    !existsSync(join(EXAMPLES, 'refund_flow')) && 'apps/examples/refund_flow',
    !existsSync(join(pkgDir, 'dist', 'ui', 'index.html')) && 'the @adk/dev-ui build (pnpm build)',
  ],
});

let dataDir: string;
let adkWeb: AdkWebProcess | undefined;
let base = '';
let browser: Browser;
let page: Page;
const shot = screenshots(outDir, () => page);
const { send, idle } = ui(() => page);

async function startAdkWeb(): Promise<void> {
  adkWeb = await startWebProcess(EXAMPLES, dataDir);
  base = adkWeb.url;
}

async function stopAdkWeb(): Promise<void> {
  await adkWeb?.stop();
  adkWeb = undefined;
}

const node = (name: string) => page.locator(`.graph g.node[data-node="${name}"]`);
const nodeClass = (name: string) => node(name).getAttribute('class');

describe.skipIf(unavailable)('a graph workflow in adk web, in Chromium', { timeout: 60_000 }, () => {
  beforeAll(async () => {
    rmSync(outDir, { recursive: true, force: true });
    dataDir = mkdtempSync(join(tmpdir(), 'adk-dev-ui-workflow-'));
    await startAdkWeb();
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1400, height: 900 }, colorScheme: 'light' });
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

  it('draws the workflow graph: START, END, the routes on their edges and the join', async () => {
    await page.goto(`${base}/dev-ui/?app=refund_flow`);
    await page.getByRole('tab', { name: 'Graph' }).click();
    const graph = page.getByRole('img', { name: /Agent graph of refund_flow/ });
    await graph.waitFor();
    for (const name of [
      '__START__',
      'classify',
      'lookup_order',
      'check_policy',
      'checks',
      'ask_approval',
      'settle',
      'answer',
      '__END__',
    ])
      await node(name).waitFor();
    expect(await nodeClass('checks')).toContain('join');
    expect(await nodeClass('__START__')).toContain('start');
    expect(await nodeClass('__END__')).toContain('end');
    const labels = await page.locator('.graph .edge-label').allTextContents();
    expect(labels.sort()).toEqual(['default', 'refund', 'refund']);
    expect(await page.locator('.graph [data-edge="lookup_order->checks"] path').count()).toBe(1);
    expect(await page.locator('.graph [data-edge="check_policy->checks"] path').count()).toBe(1);
    await shot('graph');
  });

  it('asks the question as a form, highlights the waiting node, and finishes the run on the answer', async () => {
    await send('Please refund order 1001');
    const form = page.getByRole('region', { name: /Question: Refund 249 EUR for order 1001/ });
    await form.waitFor();
    await idle();
    // The checks ran side by side and the join passed both outputs on.
    await page.getByRole('region', { name: 'Output of checks' }).waitFor();
    await expect.poll(() => nodeClass('ask_approval')).toContain('waiting');
    expect(await nodeClass('lookup_order')).toContain('done');
    expect(await nodeClass('checks')).toContain('done');
    await shot('question-form');

    // A required number left empty is refused in the page, before anything is sent.
    await form.getByRole('spinbutton', { name: /amount/ }).fill('');
    await form.getByRole('button', { name: 'Send answer' }).click();
    await form.getByText('Required').waitFor();

    await form.getByRole('checkbox', { name: /approve/ }).check();
    await form.getByRole('spinbutton', { name: /amount/ }).fill('200');
    await form.getByRole('combobox', { name: /method/ }).selectOption('store_credit');
    await form.getByRole('textbox', { name: /note/ }).fill('Sorry for the trouble');
    await form.getByRole('button', { name: 'Send answer' }).click();

    const settled = page.getByRole('region', { name: 'Output of settle' });
    await settled.waitFor();
    await idle();
    expect(await settled.textContent()).toContain(
      'Refunded 200 EUR for order 1001 as store credit. Note: Sorry for the trouble',
    );
    await expect.poll(() => form.getByText('Answered.').isVisible()).toBe(true);
    expect(await page.locator('.card.error').count()).toBe(0);
    // The run is over: the nodes it ran are done, nothing waits.
    await expect.poll(() => nodeClass('settle')).toContain('done');
    expect(await nodeClass('ask_approval')).toContain('done');
    expect(await page.locator('.graph g.node.waiting').count()).toBe(0);
    await shot('answered');
  });

  it('takes the default route to the model for other messages', async () => {
    await send('What are your opening hours?');
    await expect.poll(() => nodeClass('answer'), { timeout: 30_000 }).toMatch(/active|done/);
    await idle();
    await page.getByText('offline demo model').first().waitFor();
    await shot('default-route');
  });
});
