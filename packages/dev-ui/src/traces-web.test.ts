/// <reference lib="dom" />
// The Traces view in Chromium against one in-process @adk/server on a temporary PGlite folder
// (spans persisted beside the sessions): traces of several sessions and users listed, filtered by
// app, user, session, status, duration, time range and attribute; one trace's waterfall with its
// failed tool span, tokens and cost per span and per trace. Screenshots go to test-output/traces/.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FunctionTool, LlmAgent, type LlmRequest, type LlmResponse } from '@adk/core';
import { ScriptedModel } from '@adk/core/testing';
import { createAdkServer, type ListeningAdkServer, listenAdkServer } from '@adk/server';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { axeViolations, browserSuiteSkip, launchChromium, screenshots } from './__fixtures__/browser.js';
import { buildUi } from './__fixtures__/build-ui.js';
import { devUi } from './index.js';

const unavailable = browserSuiteSkip('traces view browser tests');
const outDir = join(fileURLToPath(new URL('..', import.meta.url)), 'test-output', 'traces');
const quiet = { info() {}, warn() {}, error: (line: string) => console.error(line) };

// gemini-2.5-flash: $0.30 input, $0.03 cached input, $2.50 output (reasoning billed as output), per
// million tokens. 600 fresh + 400 cached input, 200 + 100 reasoning output: $0.000942 per call.
const USAGE = {
  promptTokenCount: 1000,
  cachedContentTokenCount: 400,
  candidatesTokenCount: 200,
  thoughtsTokenCount: 100,
  totalTokenCount: 1300,
};

function agent(): LlmAgent {
  return new LlmAgent({
    name: 'shop',
    model: new ScriptedModel({
      model: 'gemini-2.5-flash',
      respond: (request: LlmRequest): LlmResponse => {
        const last = request.contents.at(-1);
        if (last?.parts.some((p) => p.functionResponse))
          return { content: { role: 'model', parts: [{ text: 'done' }] }, usageMetadata: USAGE };
        const text = last?.parts[0]?.text ?? '';
        const name = text.includes('explode') ? 'explode' : 'lookup';
        return {
          content: { role: 'model', parts: [{ functionCall: { id: `c-${name}`, name, args: { q: text } } }] },
          usageMetadata: USAGE,
        };
      },
    }),
    tools: [
      new FunctionTool({
        name: 'lookup',
        description: 'Looks up',
        parameters: z.object({ q: z.string() }),
        execute: ({ q }) => ({ q, found: true }),
      }),
      new FunctionTool({
        name: 'explode',
        description: 'Fails',
        parameters: z.object({ q: z.string() }),
        execute: () => {
          throw new Error('the warehouse is on fire');
        },
      }),
    ],
  });
}

let uiRoot: string;
let dataDir: string;
let listening: ListeningAdkServer | undefined;
let base = '';
let browser: Browser;
let page: Page;
const shot = screenshots(outDir, () => page);

async function turn(userId: string, sessionId: string, text: string): Promise<void> {
  const created = await fetch(`${base}/apps/shop/users/${userId}/sessions/${sessionId}`, { method: 'POST' });
  if (!created.ok && created.status !== 409) throw new Error(`create session: ${created.status}`);
  const res = await fetch(`${base}/run`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      appName: 'shop',
      userId,
      sessionId,
      newMessage: { role: 'user', parts: [{ text }] },
    }),
  });
  if (!res.ok) throw new Error(`run: ${res.status} ${await res.text()}`);
}

/** Waits until `count` traces are stored (spans are written in batches off the request path). */
async function storedTraces(count: number): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const res = await fetch(`${base}/debug/traces?app=shop`);
    const { traces } = (await res.json()) as { traces: unknown[] };
    if (traces.length >= count) return;
    if (Date.now() > deadline) throw new Error(`only ${traces.length} of ${count} traces stored`);
    await new Promise<void>((resolve) => setTimeout(resolve, 50)); // poll interval of the condition
  }
}

const rows = () => page.locator('.traces-table tbody tr');

async function applyFilters(fill: Record<string, string>): Promise<void> {
  await page.getByRole('button', { name: 'Clear' }).click();
  const form = page.getByRole('form', { name: 'Trace filters' });
  for (const [label, value] of Object.entries(fill)) {
    const field = form.getByLabel(label, { exact: true });
    if ((await field.evaluate((el) => el.tagName)) === 'SELECT') await field.selectOption(value);
    else await field.fill(value);
  }
  await page.getByRole('button', { name: 'Apply filters' }).click();
}

describe.skipIf(unavailable)('the Traces view, in Chromium', { timeout: 120_000 }, () => {
  beforeAll(async () => {
    rmSync(outDir, { recursive: true, force: true });
    uiRoot = mkdtempSync(join(tmpdir(), 'adk-dev-ui-traces-build-'));
    dataDir = mkdtempSync(join(tmpdir(), 'adk-dev-ui-traces-data-'));
    await buildUi(uiRoot);
    const server = await createAdkServer({
      apps: { shop: agent() },
      dataDir,
      ui: devUi({ root: uiRoot }),
      a2a: false,
      logger: quiet,
    });
    listening = await listenAdkServer(server, { host: '127.0.0.1', port: 0 });
    base = listening.url;
    await turn('alice', 's-alice', 'find socks');
    await turn('bob', 's-bob', 'find shoes');
    await turn('bob', 's-bob', 'explode the warehouse');
    // Spans are written in batches off the request path: wait until all three traces are stored.
    await storedTraces(3);
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1400, height: 900 }, colorScheme: 'light' });
    page.setDefaultTimeout(20_000);
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

  it('lists the traces of every session and user, newest first, with tokens and cost', async () => {
    await page.goto(`${base}/dev-ui/`);
    await page.getByRole('button', { name: 'Traces' }).click();
    await expect.poll(() => rows().count()).toBe(3);
    await shot('list');
    const first = rows().first();
    // Newest first: bob's failed turn.
    await expect.poll(() => first.locator('td').nth(1).textContent()).toBe('bob');
    expect(await first.locator('.trace-status').textContent()).toBe('error (1)');
    // Two model calls per turn: 2 × 1000 in, 2 × 200 out (reasoning tokens are not output tokens).
    expect(await first.locator('td').nth(6).textContent()).toBe('2,000 / 400');
    expect(await first.locator('td').nth(7).textContent()).toBe('$0.0019');
    const users = await rows().evaluateAll((trs) =>
      trs.map((tr) => tr.querySelectorAll('td')[1]?.textContent),
    );
    expect(users).toEqual(['bob', 'bob', 'alice']);
    expect(await axeViolations(page, '.traces-view')).toEqual([]);
  });

  it('filters by user, session, status, duration, time range and attribute', async () => {
    await page.goto(`${base}/dev-ui/?view=traces`);
    await expect.poll(() => rows().count()).toBe(3);
    await applyFilters({ User: 'bob' });
    await expect.poll(() => rows().count()).toBe(2);
    await applyFilters({ Session: 's-alice' });
    await expect.poll(() => rows().count()).toBe(1);
    expect(await rows().first().locator('td').nth(1).textContent()).toBe('alice');
    await applyFilters({ Status: 'error' });
    await expect.poll(() => rows().count()).toBe(1);
    expect(await rows().first().locator('td').nth(1).textContent()).toBe('bob');
    await applyFilters({ 'Attribute (key=value)': 'gen_ai.tool.name=lookup' });
    await expect.poll(() => rows().count()).toBe(2);
    await applyFilters({ App: 'shop', Status: 'ok' });
    await expect.poll(() => rows().count()).toBe(2);
    await applyFilters({ 'Min duration (ms)': '3600000' });
    await expect.poll(() => page.getByText('No trace matches these filters.').isVisible()).toBe(true);
    await applyFilters({ From: '2001-01-01T00:00:00', To: '2001-01-02T00:00:00' });
    await expect.poll(() => page.getByText('No trace matches these filters.').isVisible()).toBe(true);
    await applyFilters({ From: '2001-01-01T00:00:00' });
    await expect.poll(() => rows().count()).toBe(3);
    await shot('filtered');
  });

  it('shows one trace as a waterfall: spans, the failed tool call, tokens and cost per span', async () => {
    await page.goto(`${base}/dev-ui/?view=traces`);
    await applyFilters({ Status: 'error' });
    await expect.poll(() => rows().count()).toBe(1);
    await rows().first().getByRole('button').click();
    const waterfall = page.getByRole('region', { name: 'Waterfall' });
    await waterfall.waitFor();
    const items = waterfall.locator('.wf-item');
    await expect.poll(() => items.count()).toBeGreaterThanOrEqual(4);
    const names = await items.evaluateAll((els) => els.map((el) => el.getAttribute('data-span-name')));
    expect(names[0]).toBe('invocation');
    expect(names.filter((n) => n === 'execute_tool explode')).toHaveLength(1);
    const modelCalls = waterfall.locator('.wf-item[data-span-name="call_llm"]');
    expect(await modelCalls.count()).toBe(2);
    const cells = modelCalls.first().locator('.wf-row > .num');
    expect(await cells.nth(1).textContent()).toBe('1,000 / 200');
    expect(await cells.nth(2).textContent()).toBe('$0.00094');
    // Totals per trace.
    const totals = page.getByRole('region', { name: 'Trace detail' }).locator('.trace-totals');
    await expect.poll(() => totals.textContent()).toContain('$0.0019');
    expect(await totals.textContent()).toContain('2,000 / 400');
    // The failed span is marked; opening it shows its error and attributes.
    const failed = waterfall.locator('.wf-item[data-span-name="execute_tool explode"]');
    expect(await failed.getAttribute('data-status')).toBe('error');
    await failed.getByRole('button').first().click();
    await expect.poll(() => failed.getByRole('alert').textContent()).toContain('the warehouse is on fire');
    await expect.poll(() => failed.textContent()).toContain('gen_ai.tool.name');
    await shot('waterfall');
    // From the trace to its session in the chat.
    await page.getByRole('button', { name: /^Open session/ }).click();
    await page.waitForURL(/session=s-bob/);
    expect(page.url()).toContain('user=bob');
  });

  it('the Usage tab shows tokens and cost per call, per turn and per session', async () => {
    await page.goto(`${base}/dev-ui/?app=shop&session=s-bob&user=bob`);
    await page.getByRole('tab', { name: 'Usage' }).click();
    const panel = page.getByRole('tabpanel');
    // Two turns of two model calls: 4 × $0.000942.
    await expect.poll(() => panel.locator('.usage-cost dd').textContent()).toBe('$0.0038');
    const turns = panel.locator('.usage-turns tbody tr');
    await expect.poll(() => turns.count()).toBe(2);
    for (const row of await turns.all()) {
      const cells = await row.locator('td').allTextContents();
      expect(cells).toEqual(['2', '2,000', '400', '800', '200', '$0.0019']);
    }
    const steps = panel.locator('.usage-steps tbody tr');
    expect(await steps.count()).toBe(4);
    await expect
      .poll(() => steps.evaluateAll((trs) => trs.map((tr) => tr.querySelector('td:last-child')?.textContent)))
      .toEqual(['$0.00094', '$0.00094', '$0.00094', '$0.00094']);
    expect(await steps.first().locator('td').allTextContents()).toEqual([
      '1000',
      '200',
      '400',
      '100',
      '1300',
      '$0.00094',
    ]);
    await shot('usage');
  });
});
