import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { expect } from 'vitest';

import { CHROMIUM } from './chromium.js';

export { browserSuiteSkip, CHROMIUM } from './chromium.js';

/** Debian's Chromium, headless; never a downloaded browser. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
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
}

/** Numbered screenshots of each step, kept as test output. */
export function screenshots(dir: string, page: () => Page) {
  mkdirSync(dir, { recursive: true });
  let step = 0;
  return async (name: string) => {
    step++;
    await page().screenshot({ path: join(dir, `${String(step).padStart(2, '0')}-${name}.png`) });
  };
}

export function ui(page: () => Page) {
  const composer = () => page().getByRole('textbox', { name: 'Message' });
  const running = () => page().getByRole('status').getByText('Running…');
  return {
    composer,
    running,
    /** Waits until no run is going (the demo model streams for seconds). */
    idle: () => expect.poll(() => running().isVisible(), { timeout: 30_000 }).toBe(false),
    async send(text: string) {
      await composer().fill(text);
      await composer().press('Enter');
    },
  };
}
