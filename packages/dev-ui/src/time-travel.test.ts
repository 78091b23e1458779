/// <reference lib="dom" />
// Time travel in a real browser (Debian's Chromium through playwright-core) against @adk/server:
// edit a message, regenerate an answer, toggle the rewound turns, and fork from an answer.
// Screenshots go to test-output/time-travel/ (gitignored).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { InMemorySessionService, LlmAgent } from '@adk/core';
import { ScriptedModel } from '@adk/core/testing';
import { createAdkServer, type ListeningAdkServer, listenAdkServer } from '@adk/server';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserSuiteSkip, launchChromium, screenshots, ui } from './__fixtures__/browser.js';
import { buildUi } from './__fixtures__/build-ui.js';
import { devUi } from './index.js';

const unavailable = browserSuiteSkip('time travel tests');
const outDir = join(fileURLToPath(new URL('..', import.meta.url)), 'test-output', 'time-travel');

/** Echoes the last message with how many user messages the request held and a reply counter. */
function echoAgent(): LlmAgent {
  return new LlmAgent({
    name: 'echo',
    model: new ScriptedModel({
      chunkSize: 8,
      delayMs: 5,
      respond: (request, index) => {
        const said = request.contents.filter((c) => c.role === 'user' && c.parts.some((p) => p.text));
        const last = said.at(-1)?.parts.find((p) => p.text)?.text ?? '';
        return `echo ${last} · ${said.length} in history · #${index + 1}`;
      },
    }),
  });
}

let uiRoot: string;
let listening: ListeningAdkServer | undefined;
let browser: Browser;
let page: Page;
const shot = screenshots(outDir, () => page);
const u = ui(() => page);
const answer = (text: string) => page.getByRole('article', { name: 'echo' }).filter({ hasText: text });

describe.skipIf(unavailable)('time travel in Chromium', { timeout: 90_000 }, () => {
  beforeAll(async () => {
    uiRoot = mkdtempSync(join(tmpdir(), 'adk-dev-ui-tt-build-'));
    await buildUi(uiRoot);
    const server = await createAdkServer({
      apps: { echo: echoAgent() },
      sessionService: new InMemorySessionService(),
      ui: devUi({ root: uiRoot }),
      a2a: false,
      tracing: false,
      logger: { info() {}, warn() {}, error: (line: string) => console.error(line) },
    });
    listening = await listenAdkServer(server, { host: '127.0.0.1', port: 0 });
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1400, height: 900 }, colorScheme: 'light' });
    page.setDefaultTimeout(15_000);
    page.on('pageerror', (error) => console.error('page error:', error.message));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await listening?.close();
    if (uiRoot) rmSync(uiRoot, { recursive: true, force: true });
  });

  it('edits a message, regenerates an answer, toggles rewound turns and forks', async () => {
    await page.goto(`${listening?.url}/dev-ui/?app=echo`);
    await expect.poll(() => u.composer().isEnabled()).toBe(true);
    await u.send('first');
    await answer('echo first · 1 in history · #1').waitFor();
    await u.idle();
    await u.send('second');
    await answer('echo second · 2 in history · #2').waitFor();
    await u.idle();
    await shot('two-turns');

    // Edit: rewind before "second" and send the edited text; the old turn collapses.
    await page
      .getByRole('article', { name: 'You' })
      .filter({ hasText: 'second' })
      .getByRole('button', { name: 'Edit' })
      .click();
    const box = page.getByRole('textbox', { name: 'Edited message' });
    await expect.poll(() => box.inputValue()).toBe('second');
    await box.fill('second, edited');
    await shot('editing');
    await page.getByRole('button', { name: 'Save & send' }).click();
    await answer('echo second, edited · 2 in history · #3').waitFor();
    await u.idle();
    await expect.poll(() => answer('echo second · 2 in history · #2').count()).toBe(0);
    const toggle = page.getByRole('button', { name: /Show rewound turns/ });
    await toggle.waitFor();
    await shot('edited');

    // Regenerate the answer: the same message again, a new reply; still two messages in history.
    await answer('#3').getByRole('button', { name: 'Regenerate' }).click();
    await answer('echo second, edited · 2 in history · #4').waitFor();
    await u.idle();
    await expect.poll(() => answer('#3').count()).toBe(0);
    await shot('regenerated');

    // Rewound turns stay reachable: shown marked, then collapsed again.
    await page.getByRole('button', { name: /Show rewound turns/ }).click();
    await page.getByRole('article', { name: 'echo, rewound' }).filter({ hasText: '#2' }).waitFor();
    await expect.poll(() => page.getByRole('article', { name: 'echo, rewound' }).count()).toBe(2);
    await expect.poll(() => page.getByRole('article', { name: 'You, rewound' }).count()).toBe(2);
    await shot('rewound-shown');
    await page.getByRole('button', { name: 'Hide rewound turns' }).click();
    await expect.poll(() => page.getByRole('article', { name: 'echo, rewound' }).count()).toBe(0);

    // Fork from the first answer: a new session with that history, marked in the session list.
    const original = new URL(page.url()).searchParams.get('session');
    await answer('#1').getByRole('button', { name: 'Fork from here' }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get('session')).not.toBe(original);
    await answer('echo first · 1 in history · #1').waitFor();
    await expect.poll(() => answer('#4').count()).toBe(0);
    await page
      .getByRole('navigation', { name: 'Sessions' })
      .getByText(/fork of/)
      .waitFor();
    await u.send('on the fork');
    await answer('echo on the fork · 2 in history · #5').waitFor();
    await u.idle();
    await shot('forked');
  });
});
