/// <reference lib="dom" />
// Scores in the web UI, in Chromium (playwright-core) against one in-process @adk/server on a
// temporary PGlite folder: turns are scored after they end (as score jobs beside the sessions), the
// Scores tab lists each turn's scores and draws a chart per scorer. Screenshots go to
// test-output/scores/ (gitignored).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { attachScorers, defineScorer, LlmAgent } from '@adk/core';
import { ScriptedModel } from '@adk/core/testing';
import { createAdkServer, type ListeningAdkServer, listenAdkServer } from '@adk/server';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { browserSuiteSkip, launchChromium, screenshots, ui } from './__fixtures__/browser.js';
import { buildUi } from './__fixtures__/build-ui.js';
import { devUi } from './index.js';

const unavailable = browserSuiteSkip('scores browser tests');

const pkgDir = fileURLToPath(new URL('..', import.meta.url));
const outDir = join(pkgDir, 'test-output', 'scores');
const quiet = { info() {}, warn() {}, error: (line: string) => console.error(line) };

const REPLIES = ['Short.', 'A somewhat longer answer.', 'The longest answer of the three, by far.'];

function scoredAgent(): LlmAgent {
  let turn = 0;
  return attachScorers(
    new LlmAgent({
      name: 'scored',
      description: 'Answers; every turn is scored.',
      model: new ScriptedModel({ respond: () => REPLIES[turn++ % REPLIES.length] as string }),
      instruction: 'Answer.',
    }),
    [
      defineScorer({
        name: 'length',
        score: (t) => ({
          score: Math.min(1, t.responseText.length / 40),
          reason: `${t.responseText.length} chars`,
        }),
      }),
      defineScorer({
        name: 'flaky',
        score: () => {
          throw new Error('judge offline');
        },
      }),
    ],
  );
}

let uiRoot: string;
let dataDir: string;
let listening: ListeningAdkServer | undefined;
let base = '';
let browser: Browser;
let page: Page;
const shot = screenshots(outDir, () => page);
const { send, idle } = ui(() => page);

describe.skipIf(unavailable)('scores in the web UI, in Chromium', { timeout: 120_000 }, () => {
  beforeAll(async () => {
    rmSync(outDir, { recursive: true, force: true });
    uiRoot = mkdtempSync(join(tmpdir(), 'adk-dev-ui-scores-build-'));
    dataDir = mkdtempSync(join(tmpdir(), 'adk-dev-ui-scores-data-'));
    await buildUi(uiRoot);
    const server = await createAdkServer({
      apps: { scored: scoredAgent() },
      dataDir,
      ui: devUi({ root: uiRoot }),
      a2a: false,
      tracing: false,
      logger: quiet,
      scoring: { pollMs: 50 },
    });
    listening = await listenAdkServer(server, { port: 0 });
    base = listening.url;
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1400, height: 860 }, colorScheme: 'light' });
    page.setDefaultTimeout(15_000);
    page.on('pageerror', (error) => console.error('page error:', error.message));
  }, 180_000);

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

  it('shows each turn’s scores (a failing scorer as failed) and a chart per scorer over time', async () => {
    await page.goto(`${base}/dev-ui/?app=scored`);
    for (const text of ['one', 'two', 'three']) {
      await send(text);
      await idle();
    }
    // Every turn answered, the throwing scorer notwithstanding.
    for (const reply of REPLIES) await expect.poll(() => page.getByText(reply).isVisible()).toBe(true);
    const sessionId = new URL(page.url()).searchParams.get('session') as string;
    // Scoring runs after the turns, as jobs: wait until the routes have all six results.
    await expect
      .poll(
        async () => {
          const res = await fetch(`${base}/apps/scored/scores?session=${sessionId}`);
          return ((await res.json()) as { scores: unknown[] }).scores.length;
        },
        { timeout: 60_000, interval: 100 },
      )
      .toBe(6);

    await page.getByRole('tab', { name: 'Scores' }).click();
    const table = page.getByRole('table', { name: 'Scores per turn' });
    await expect.poll(() => table.locator('tbody tr').count()).toBe(6);
    expect(await table.locator('tr[data-status="failed"]').count()).toBe(3);
    await expect.poll(() => table.getByText('judge offline').count()).toBe(3);
    await expect.poll(() => table.getByText('6 chars').isVisible()).toBe(true);
    await expect.poll(() => table.getByText('40 chars').isVisible()).toBe(true);

    const chart = page.getByRole('img', { name: 'Scores of length over time' });
    await expect.poll(() => chart.isVisible()).toBe(true);
    expect(await chart.locator('circle.score-point').count()).toBe(3);
    expect(await chart.locator('polyline.score-line').count()).toBe(1);
    // Points rise with the answers' length: later turns are drawn higher (smaller y).
    const ys = await chart
      .locator('circle.score-point')
      .evaluateAll((nodes) => nodes.map((n) => Number(n.getAttribute('cy'))));
    expect(ys[0]).toBeGreaterThan(ys[1] as number);
    expect(ys[1]).toBeGreaterThan(ys[2] as number);
    const flaky = page.locator('figure[data-scorer="flaky"]');
    await expect.poll(() => flaky.getByText('0 scored · 3 failed').isVisible()).toBe(true);
    // The tab row still fits at 1400 px: the Scores tab is on screen, not cut off.
    const box = await page.getByRole('tab', { name: 'Scores' }).boundingBox();
    expect((box?.x ?? 0) + (box?.width ?? 0)).toBeLessThanOrEqual(1400);
    await shot('scores-tab');
  });
});
