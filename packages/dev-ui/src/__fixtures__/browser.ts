import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
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

/**
 * The serious or critical axe-core violations of the page as it is (or of the element `selector`
 * picks), one line each: impact, rule and the first few offending elements.
 */
export async function axeViolations(page: Page, selector?: string): Promise<string[]> {
  const source = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  await page.addScriptTag({ content: source });
  const violations = await page.evaluate(async (within) => {
    const { axe } = window as unknown as {
      axe: {
        run: (
          ctx: Document | Element,
          opts: object,
        ) => Promise<{ violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }>;
      };
    };
    const context = within === undefined ? document : (document.querySelector(within) as Element);
    return (await axe.run(context, { resultTypes: ['violations'] })).violations;
  }, selector);
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map(
      (v) =>
        `${v.impact} ${v.id}: ${v.nodes
          .map((n) => n.target.join(' '))
          .slice(0, 3)
          .join(', ')}`,
    );
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
