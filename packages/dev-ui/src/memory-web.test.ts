/// <reference lib="dom" />
// The Memory tab in Chromium (playwright-core) against one in-process @adk/server whose memory is
// SQL on PGlite with a hashing embedder: a turn recalls a stored fact and the tab shows it; a
// profile edit is a state event of the session; the search playground shows the full-text, vector
// and fused rankings. Screenshots go to test-output/memory/ (gitignored).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HashingEmbedder, InMemorySessionService, LlmAgent, userContent } from '@adk/core';
import { ScriptedModel } from '@adk/core/testing';
import { createAdkServer, type ListeningAdkServer, listenAdkServer } from '@adk/server';
import { kyselyFromUrl, SqlMemoryService } from '@adk/session-sql';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { browserSuiteSkip, launchChromium, ui } from './__fixtures__/browser.js';
import { buildUi } from './__fixtures__/build-ui.js';
import { devUi } from './index.js';

const unavailable = browserSuiteSkip('memory browser tests');

const pkgDir = fileURLToPath(new URL('..', import.meta.url));
const outDir = join(pkgDir, 'test-output', 'memory');
const quiet = { info() {}, warn() {}, error: (line: string) => console.error(line) };

let uiRoot: string;
let listening: ListeningAdkServer | undefined;
let memory: SqlMemoryService | undefined;
let base = '';
let browser: Browser;
let page: Page;
let factId = '';
const sessions = new InMemorySessionService();
const { send, idle } = ui(() => page);

describe.skipIf(unavailable)('the Memory tab, in Chromium', { timeout: 120_000 }, () => {
  beforeAll(async () => {
    rmSync(outDir, { recursive: true, force: true });
    uiRoot = mkdtempSync(join(tmpdir(), 'adk-dev-ui-memory-build-'));
    await buildUi(uiRoot);
    const embedder = new HashingEmbedder({ dimensions: 64 });
    memory = new SqlMemoryService({
      db: await kyselyFromUrl('pglite://memory'),
      destroyOnClose: true,
      embeddings: { dimensions: embedder.dimensions, embed: (texts, o) => embedder.embed(texts, o) },
    });
    [factId = ''] = await memory.addMemory({
      appName: 'keeper',
      userId: 'user',
      memories: [
        {
          kind: 'fact',
          content: userContent("The user's boat is a ketch named Tern."),
          eventIds: ['e-tern'],
        },
        {
          kind: 'turn',
          content: userContent('We sailed the ketch to the islands in May.'),
          sessionId: 'old',
        },
      ],
    });
    const server = await createAdkServer({
      apps: {
        keeper: new LlmAgent({
          name: 'keeper',
          model: new ScriptedModel({ respond: () => 'Noted, skipper.' }),
          instruction: 'Answer.',
          memory: {
            recall: true,
            profile: { schema: z.object({ name: z.string().optional() }) },
            observe: { observeAtTokens: 4000 },
          },
        }),
      },
      sessionService: sessions,
      memoryService: memory,
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
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await listening?.close();
    await memory?.close();
    if (uiRoot) rmSync(uiRoot, { recursive: true, force: true });
  });

  afterEach(async (context) => {
    if (context.task.result?.state === 'fail' && page)
      await page.screenshot({ path: join(outDir, `FAILED-${context.task.name.replace(/\W+/g, '-')}.png`) });
  });

  it('shows what a turn recalled, and the fact with its source', async () => {
    await page.goto(`${base}/dev-ui/?app=keeper`);
    await send('Tell me about my ketch');
    await idle();
    await page.getByText('Noted, skipper.').waitFor({ timeout: 60_000 });
    const tabs = page.getByRole('tablist', { name: 'Inspector views' });
    const inspector = await page.getByRole('complementary', { name: 'Inspector' }).boundingBox();
    const memoryTab = tabs.getByRole('tab', { name: 'Memory' });
    const box = await memoryTab.boundingBox();
    expect(box && inspector && box.x + box.width <= inspector.x + inspector.width + 1).toBe(true);
    await memoryTab.click();
    const recall = page.getByRole('region', { name: 'Recall per turn' });
    await recall.getByText('Tell me about my ketch', { exact: false }).waitFor({ timeout: 30_000 });
    await recall.getByText(factId).waitFor();
    const facts = page.getByRole('region', { name: 'Facts' });
    await facts.getByText('ketch named Tern', { exact: false }).waitFor();
    await facts.getByText('e-tern').waitFor();
    // The observation pane measures the history against the configured threshold.
    await page.getByRole('meter', { name: 'Not yet observed' }).waitFor();
    await page.getByText('/ 4,000 tokens', { exact: false }).first().waitFor();
    await page.screenshot({ path: join(outDir, '01-recall.png'), fullPage: true });
  });

  it('saves a profile edit as a state event of the session', async () => {
    const profile = page.getByRole('region', { name: 'Profile' });
    const editor = profile.getByRole('textbox', { name: 'Profile' });
    await editor.fill('{ "name": "Ada" }');
    await profile.getByRole('button', { name: 'Save profile' }).click();
    const history = profile.getByRole('list', { name: 'Profile history' });
    await history.getByRole('listitem').first().waitFor({ timeout: 30_000 });
    const sessionId = new URL(page.url()).searchParams.get('session') as string;
    await expect
      .poll(async () => {
        const session = await sessions.getSession({ appName: 'keeper', userId: 'user', sessionId });
        return session?.events.some((e) => e.actions.stateDelta['user:profile'] !== undefined) ?? false;
      })
      .toBe(true);
    const session = await sessions.getSession({ appName: 'keeper', userId: 'user', sessionId });
    const edit = session?.events.find((e) => e.actions.stateDelta['user:profile'] !== undefined);
    expect(edit?.actions.stateDelta['user:profile']).toEqual({ name: 'Ada' });
    await history.getByText(edit?.id as string, { exact: false }).waitFor();
    await page.screenshot({ path: join(outDir, '02-profile.png'), fullPage: true });
  });

  it('shows the full-text, vector and fused rankings side by side', async () => {
    const playground = page.getByRole('region', { name: 'Search playground' });
    await playground.getByRole('searchbox', { name: 'Memory query' }).fill('ketch');
    await playground.getByRole('button', { name: 'Search' }).click();
    for (const name of ['Full-text', 'Vector', 'Fused']) {
      const ranking = playground.getByRole('region', { name: `${name} ranking` });
      await ranking.getByRole('listitem').first().waitFor({ timeout: 30_000 });
      expect(await ranking.getByText('ketch named Tern', { exact: false }).count()).toBe(1);
    }
    await playground.getByRole('region', { name: 'Vector ranking' }).getByText('vector #1').waitFor();
    await page.screenshot({ path: join(outDir, '03-playground.png'), fullPage: true });
  });
});
