/// <reference lib="dom" />
// Live voice in the web UI as users meet it: `adk web apps/examples` (the repo's `npm start`) on the
// offline demo model, Chromium with a fake microphone that plays a WAV written here (a tone, then a
// pause, looped). The page streams the microphone to /run_live and plays the spoken answer.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type AdkWebProcess,
  EXAMPLES,
  startAdkWeb as startWebProcess,
} from './__fixtures__/adk-web-process.js';
import { browserSuiteSkip, CHROMIUM, screenshots } from './__fixtures__/browser.js';
import { writeToneWav } from './__fixtures__/wav.js';

const pkgDir = fileURLToPath(new URL('..', import.meta.url));
const repo = join(pkgDir, '..', '..');
const outDir = join(pkgDir, 'test-output', 'live-voice');

const unavailable = browserSuiteSkip('live voice browser tests', {
  missing: [
    !existsSync(join(repo, 'packages', 'cli', 'dist', 'cli.js')) &&
      '@adk/cli build (pnpm --filter @adk/cli build)',
    !existsSync(join(EXAMPLES, 'voice')) && 'apps/examples/voice',
    !existsSync(join(pkgDir, 'dist', 'ui', 'index.html')) && 'the @adk/dev-ui build (pnpm build)',
  ],
});

let tmp: string;
let adkWeb: AdkWebProcess | undefined;
let base = '';
let browser: Browser;
let page: Page;
const shot = screenshots(outDir, () => page);

async function startAdkWeb(dataDir: string): Promise<void> {
  adkWeb = await startWebProcess(EXAMPLES, dataDir);
  base = adkWeb.url;
}

async function stopAdkWeb(): Promise<void> {
  await adkWeb?.stop();
  adkWeb = undefined;
}

const panel = () => page.getByRole('region', { name: 'Live conversation' });
const attr = async (name: string) => Number((await panel().getAttribute(name)) ?? 0);

describe.skipIf(unavailable)(
  'live voice in the dev UI (fake microphone, demo model)',
  { timeout: 90_000 },
  () => {
    beforeAll(async () => {
      rmSync(outDir, { recursive: true, force: true });
      tmp = mkdtempSync(join(tmpdir(), 'adk-dev-ui-live-'));
      // 1.2 s of "speech", then 2.8 s of silence: one utterance per 4 s loop of the fake microphone.
      const wav = join(tmp, 'speech.wav');
      writeToneWav(wav, { toneMs: 1200, silenceMs: 2800 });
      await startAdkWeb(join(tmp, 'data'));
      browser = await chromium.launch({
        executablePath: CHROMIUM,
        args: [
          '--headless',
          '--no-sandbox',
          '--disable-gpu',
          '--no-first-run',
          '--disable-background-networking',
          '--disable-component-update',
          '--disable-sync',
          '--use-fake-ui-for-media-stream',
          '--use-fake-device-for-media-stream',
          `--use-file-for-fake-audio-capture=${wav}`,
          '--autoplay-policy=no-user-gesture-required',
        ],
      });
      page = await browser.newPage({ viewport: { width: 1400, height: 900 }, colorScheme: 'light' });
      page.setDefaultTimeout(30_000);
      page.on('pageerror', (error) => console.error('page error:', error.message));
    }, 60_000);

    afterAll(async () => {
      await browser?.close();
      await stopAdkWeb();
      if (tmp) rmSync(tmp, { recursive: true, force: true });
    });

    afterEach(async (context) => {
      if (context.task.result?.state === 'fail' && page)
        await page.screenshot({ path: join(outDir, `FAILED-${context.task.name.replace(/\W+/g, '-')}.png`) });
    });

    it('streams the microphone, shows both transcriptions and the tool call, and plays the answer', async () => {
      await page.goto(`${base}/dev-ui/?app=voice`);
      await page.getByRole('button', { name: /Start voice/ }).click();
      await expect.poll(() => panel().getAttribute('data-live-status')).toBe('live');
      // The chat box waits while the live session is open, and says why.
      expect(await page.getByRole('textbox', { name: 'Message' }).getAttribute('placeholder')).toMatch(
        /live session is open/,
      );
      // The worklet downsamples from the device rate and sends 100 ms chunks.
      await expect.poll(() => attr('data-mic-chunks'), { timeout: 10_000 }).toBeGreaterThan(5);
      expect(await attr('data-mic-rate')).toBeGreaterThan(16_000);

      // The demo hears the utterance (its length noted), calls get_weather, and speaks the result.
      const heard = panel().locator('.live-line.user[data-final="true"]', {
        hasText: 'What is the weather in Paris?',
      });
      await heard.first().waitFor({ timeout: 20_000 });
      expect(await heard.first().textContent()).toMatch(/\(\d+\.\d s of audio\)/);
      await shot('heard');
      const tool = panel().locator('.live-tool', { hasText: 'get_weather' });
      await tool.first().waitFor();
      await expect.poll(() => tool.first().textContent()).toContain('sunny');
      const said = panel().locator('.live-line.agent');
      await expect
        .poll(() => said.first().textContent(), { timeout: 20_000 })
        .toContain('offline demo model');
      // Audio arrived and was scheduled on the AudioContext, and it is playing.
      await expect.poll(() => attr('data-audio-chunks')).toBeGreaterThan(3);
      await expect.poll(() => attr('data-audio-ms')).toBeGreaterThan(500);
      // …and played: buffers reached their end on the AudioContext's clock.
      await expect.poll(() => attr('data-audio-played'), { timeout: 10_000 }).toBeGreaterThan(0);
      await shot('speaking');

      // The next loop of the microphone starts while the answer plays: barge-in stops playback.
      await expect.poll(() => attr('data-interruptions'), { timeout: 20_000 }).toBeGreaterThan(0);
      await expect
        .poll(() => panel().locator('.live-line.agent', { hasText: '(interrupted)' }).count())
        .toBeGreaterThan(0);
      await shot('barge-in');

      await page.getByRole('button', { name: 'End live', exact: true }).click();
      await expect.poll(() => panel().getAttribute('data-live-status')).toBe('idle');
      // The session's stored events: the user's words (as transcribed) and the tool round trip.
      await page.locator('details.tool-call', { hasText: 'get_weather' }).first().waitFor();
      await page
        .getByRole('log', { name: 'Messages' })
        .getByText('What is the weather in Paris?')
        .first()
        .waitFor();
      await shot('stored');
    });

    it('holds a live text session for models without audio, with its tool calls', async () => {
      await page.getByRole('navigation', { name: 'Sessions' }).getByRole('button', { name: '+ New' }).click();
      await page.getByText('This session has no messages yet.').waitFor();
      await page.getByRole('button', { name: 'Live text' }).click();
      await expect.poll(() => panel().getAttribute('data-live-status')).toBe('live');
      expect(await attr('data-mic-chunks')).toBe(0);
      const input = page.getByRole('textbox', { name: 'Say something (typed)' });
      await input.fill('What time is it in Tokyo?');
      await input.press('Enter');
      const tool = panel().locator('.live-tool', { hasText: 'get_current_time' });
      await tool.waitFor();
      await expect.poll(() => tool.textContent()).toContain('Asia/Tokyo');
      await expect
        .poll(() => panel().locator('.live-line.agent[data-final="true"]').last().textContent(), {
          timeout: 20_000,
        })
        .toContain('get_current_time');
      expect(await attr('data-audio-chunks')).toBeGreaterThanOrEqual(0);
      await shot('live-text');
      await page.getByRole('button', { name: 'End live', exact: true }).click();
      await expect.poll(() => panel().getAttribute('data-live-status')).toBe('idle');
      await page.locator('details.tool-call', { hasText: 'get_current_time' }).first().waitFor();
    });
  },
);
