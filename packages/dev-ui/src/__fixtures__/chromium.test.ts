import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BrowserSuiteUnavailableError, browserSuiteSkip } from './chromium.js';

// The rule every browser suite goes through when it cannot run.

const scratch = mkdtempSync(join(tmpdir(), 'adk-browser-rule-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const absent = join(scratch, 'no-chromium');

describe('a browser suite without Chromium', () => {
  it('fails the run in CI, naming what is missing', () => {
    const printed: string[] = [];
    const decide = () =>
      browserSuiteSkip('web UI tests', {
        chromiumPath: absent,
        env: { CI: 'true' },
        warn: (line) => printed.push(line),
      });
    expect(decide).toThrow(BrowserSuiteUnavailableError);
    expect(decide).toThrow(
      `web UI tests cannot run in CI (CI=true) and is not skipped there: missing Chromium at ${absent}`,
    );
    expect(printed).toEqual([]);
  });

  it('is skipped with the reason printed outside CI', () => {
    const printed: string[] = [];
    const reason = browserSuiteSkip('web UI tests', {
      chromiumPath: absent,
      missing: ['the @adk/dev-ui build (pnpm build)', false],
      env: {},
      warn: (line) => printed.push(line),
    });
    expect(reason).toBe(
      `missing Chromium at ${absent} (install the chromium package or set CHROMIUM_PATH), the @adk/dev-ui build (pnpm build)`,
    );
    expect(printed).toEqual([`web UI tests skipped: ${reason}`]);
  });

  it('runs when everything is there, in CI or not', () => {
    const browser = join(scratch, 'chromium');
    writeFileSync(browser, '');
    expect(browserSuiteSkip('web UI tests', { chromiumPath: browser, env: { CI: 'true' } })).toBeUndefined();
    expect(browserSuiteSkip('web UI tests', { chromiumPath: browser, env: {} })).toBeUndefined();
  });

  it('fails in CI for a missing prerequisite other than the browser too', () => {
    const browser = join(scratch, 'chromium');
    writeFileSync(browser, '');
    expect(() =>
      browserSuiteSkip('adk web tests', {
        chromiumPath: browser,
        missing: ['@adk/cli build (pnpm --filter @adk/cli build)'],
        env: { CI: 'true' },
      }),
    ).toThrow(/missing @adk\/cli build/);
  });
});
