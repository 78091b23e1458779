/// <reference lib="dom" />
// The Builder as users meet it: `adk web` (a child process, offline demo model, which quotes its
// instruction in every answer) on a throwaway folder with a YAML app, driven in Chromium: edit the
// agent in the form and in YAML, see schema and parse errors, try the draft in the chat, save it and
// chat with the saved app, and cancel a draft.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type AdkWebProcess, startAdkWeb } from './__fixtures__/adk-web-process.js';
import { axeViolations, browserSuiteSkip, launchChromium, screenshots, ui } from './__fixtures__/browser.js';

const pkgDir = fileURLToPath(new URL('..', import.meta.url));
const repo = join(pkgDir, '..', '..');
const outDir = join(pkgDir, 'test-output', 'builder-web');

const unavailable = browserSuiteSkip('builder browser tests', {
  missing: [
    !existsSync(join(repo, 'packages', 'cli', 'dist', 'cli.js')) &&
      '@adk/cli build (pnpm --filter @adk/cli build)',
    !existsSync(join(pkgDir, 'dist', 'ui', 'index.html')) && 'the @adk/dev-ui build (pnpm build)',
  ],
});

const ROOT =
  '# The greeter, written in YAML.\nname: greeter\nmodel: gemini-2.5-flash\ninstruction: Greet the user.\n';

let work: string;
let appDir: string;
let adkWeb: AdkWebProcess | undefined;
let browser: Browser;
let page: Page;
const shot = screenshots(outDir, () => page);
const { send, idle } = ui(() => page);

const yamlBox = () => page.getByRole('textbox', { name: 'YAML of root_agent.yaml' });
const instruction = () => page.getByRole('textbox', { name: 'Instruction', exact: true });
const problems = () => page.getByRole('region', { name: 'Problems' });
const button = (name: string) => page.getByRole('button', { name, exact: true });
const banner = () => page.getByRole('status').filter({ hasText: 'Trying the unsaved draft' });
const log = () => page.getByRole('log', { name: 'Messages' });

/** Sends a message and waits for the demo model's answer quoting `quoted`. */
async function answerQuotes(text: string, quoted: string): Promise<void> {
  await send(text);
  await log().getByText(`My instructions: "${quoted}"`).last().waitFor();
  await idle();
}

describe.skipIf(unavailable)('the Builder in adk web, in Chromium', { timeout: 90_000 }, () => {
  beforeAll(async () => {
    rmSync(outDir, { recursive: true, force: true });
    work = mkdtempSync(join(tmpdir(), 'adk-dev-ui-builder-'));
    appDir = join(work, 'agents', 'greeter');
    mkdirSync(appDir, { recursive: true });
    writeFileSync(join(appDir, 'root_agent.yaml'), ROOT);
    // Code of another folder: a YAML app may not name it.
    mkdirSync(join(work, 'agents', 'other_app'));
    writeFileSync(join(work, 'agents', 'other_app', 'tools.ts'), 'export const secret = 1;\n');
    adkWeb = await startAdkWeb(join(work, 'agents'), join(work, 'data'));
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1500, height: 1000 }, colorScheme: 'light' });
    page.setDefaultTimeout(30_000);
    page.on('pageerror', (error) => console.error('page error:', error.message));
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await adkWeb?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  afterEach(async (context) => {
    if (context.task.result?.state === 'fail' && page)
      await page.screenshot({ path: join(outDir, `FAILED-${context.task.name.replace(/\W+/g, '-')}.png`) });
  });

  it('edits the agent in the form and the YAML follows, comments kept', async () => {
    await page.goto(`${adkWeb?.url}/dev-ui/?app=greeter`);
    await page.getByRole('tab', { name: 'Builder' }).click();
    await instruction().waitFor();
    expect(await instruction().inputValue()).toBe('Greet the user.');
    expect(await yamlBox().inputValue()).toBe(ROOT);

    await instruction().fill('Greet the user in French.');
    await expect
      .poll(() => yamlBox().inputValue())
      .toBe(ROOT.replace('Greet the user.', 'Greet the user in French.'));
    await page.getByRole('textbox', { name: 'Description' }).fill('Says hello');
    await expect.poll(() => yamlBox().inputValue()).toContain('description: Says hello\n');
    await page.getByRole('textbox', { name: 'Description' }).fill('');
    await expect.poll(() => yamlBox().inputValue()).not.toContain('description');

    // Tools and sub-agents are added and removed in the form.
    await page.getByRole('combobox', { name: 'New tool' }).fill('exit_loop');
    await button('Add tool').click();
    await expect.poll(() => yamlBox().inputValue()).toContain('tools:\n  - name: exit_loop\n');
    await button('Remove tool exit_loop').click();
    await expect.poll(() => yamlBox().inputValue()).not.toContain('tools:');
    await page.getByRole('textbox', { name: 'New sub-agent name' }).fill('helper');
    await button('Add sub-agent').click();
    await expect.poll(() => yamlBox().inputValue()).toContain('sub_agents:\n  - config_path: helper.yaml\n');
    await page.getByRole('button', { name: 'helper.yaml' }).first().waitFor();
    await button('Remove sub-agent helper.yaml').click();
    await expect.poll(() => yamlBox().inputValue()).not.toContain('sub_agents');
    expect(await page.getByRole('status').filter({ hasText: 'Unsaved changes.' }).count()).toBe(1);
    await shot('form-edited');
  });

  it('validates the YAML live: schema errors and parse errors with their place', async () => {
    const good = await yamlBox().inputValue();
    await yamlBox().fill(`${good}include_contents: all\n`);
    await problems()
      .getByText('root_agent.yaml:5:19: at include_contents: must be one of "default", "none"')
      .waitFor();
    expect(await button('Try it').isDisabled()).toBe(true);
    expect(await button('Save').isDisabled()).toBe(true);
    await shot('schema-error');
    // The Builder, a problem listed, has no serious accessibility violations in either theme.
    expect(await axeViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Switch to dark theme' }).click();
    expect(await axeViolations(page)).toEqual([]);
    await shot('schema-error-dark');
    await page.getByRole('button', { name: 'Switch to light theme' }).click();
    // A problem clicked puts the YAML's cursor on it.
    await problems()
      .getByRole('button', { name: /include_contents/ })
      .click();
    // (The cursor moves in an effect after the click's render, so the check waits for it.)
    const caret = () =>
      yamlBox().evaluate((box: HTMLTextAreaElement) => {
        const before = box.value.slice(0, box.selectionStart).split('\n');
        return [document.activeElement === box, before.length, (before.at(-1)?.length ?? 0) + 1];
      });
    await expect.poll(caret).toEqual([true, 5, 19]);

    await yamlBox().fill(good.replace('name: greeter\n', ''));
    await problems().getByText('the required key "name" is missing').waitFor();

    await yamlBox().fill('name: [greeter\n');
    await problems()
      .getByText(/root_agent\.yaml:\d+:\d+: /)
      .waitFor();
    await page.getByText('The form is back once the YAML below parses as a mapping.').waitFor();
    await shot('parse-error');

    await yamlBox().fill(good);
    await expect.poll(() => problems().count()).toBe(0);
    expect(await instruction().inputValue()).toBe('Greet the user in French.');
  });

  it('shows the server’s refusal of code outside the app', async () => {
    const good = await yamlBox().inputValue();
    await yamlBox().fill(`${good}tools:\n  - name: other_app.tools.secret\n`);
    await button('Try it').click();
    const refusal = page.getByRole('alert').filter({ hasText: 'The server refused it:' });
    await refusal.waitFor();
    expect(await refusal.textContent()).toMatch(
      /at tools\[0\]\.name: expected a module inside the app folder/,
    );
    expect(await banner().count()).toBe(0);
    await shot('refused');
    await yamlBox().fill(good);
    await expect.poll(() => refusal.count()).toBe(0);
  });

  it('tries the draft in the chat without touching the saved app', async () => {
    await button('Try it').click();
    await banner().waitFor();
    await answerQuotes('Hello', 'Greet the user in French.');
    expect(readFileSync(join(appDir, 'root_agent.yaml'), 'utf8')).toBe(ROOT);
    expect(existsSync(join(appDir, 'tmp', 'greeter', 'root_agent.yaml'))).toBe(true);
    // The link keeps naming the app: the draft's session is not one of the app's.
    expect(new URL(page.url()).searchParams.get('session')).toBeNull();
    await shot('trying-draft');
  });

  it('saves: the files are written, and the next answer of the app uses them', async () => {
    await button('Save').click();
    await page.getByText('Saved greeter: the next run uses it.').waitFor();
    expect(await banner().count()).toBe(0);
    expect(readFileSync(join(appDir, 'root_agent.yaml'), 'utf8')).toBe(
      ROOT.replace('Greet the user.', 'Greet the user in French.'),
    );
    expect(existsSync(join(appDir, 'tmp'))).toBe(false);
    await answerQuotes('Hello again', 'Greet the user in French.');
    expect(new URL(page.url()).searchParams.get('session')).not.toBeNull();
    await shot('saved-app-answers');
  });

  it('cancels a draft: the chat returns to the app, the draft and the edits are gone', async () => {
    // The app's files change on disk and the Builder reads them again; an edit made while that read
    // is under way is kept (the read's answers are held until the edit is made).
    const held: (() => void)[] = [];
    let holding = true;
    await page.route(/\/dev\/apps\/greeter\/builder\?file_path=/, async (route) => {
      if (holding) await new Promise<void>((release) => held.push(release));
      await route.continue();
    });
    writeFileSync(
      join(appDir, 'root_agent.yaml'),
      `${readFileSync(join(appDir, 'root_agent.yaml'), 'utf8')}# edited\n`,
    );
    await expect.poll(() => held.length, { timeout: 30_000 }).toBeGreaterThan(0);
    await instruction().fill('Greet the user in German.');
    holding = false;
    for (const release of held.splice(0)) release();
    await page.unrouteAll({ behavior: 'wait' });
    await button('Try it').click();
    await banner().waitFor();
    await answerQuotes('Hallo', 'Greet the user in German.');
    // A draft outlives the page: reopened, the Builder shows it (and the chat is the app's again).
    await page.reload();
    await page.getByRole('tab', { name: 'Builder' }).click();
    await page.getByRole('status').filter({ hasText: 'A draft is saved, not the app.' }).waitFor();
    expect(await instruction().inputValue()).toBe('Greet the user in German.');
    expect(await banner().count()).toBe(0);
    await button('Cancel').click();
    await page.getByText('Draft discarded.').waitFor();
    expect(await banner().count()).toBe(0);
    expect(await instruction().inputValue()).toBe('Greet the user in French.');
    expect(existsSync(join(appDir, 'tmp'))).toBe(false);
    // The draft's sessions went with it: a new draft has none.
    const form = new FormData();
    form.append('files', new File([ROOT], 'greeter/root_agent.yaml'));
    await fetch(`${adkWeb?.url}/builder/save?tmp=true`, { method: 'POST', body: form });
    const sessions = await fetch(`${adkWeb?.url}/apps/__draft__greeter/users/user/sessions`);
    expect(await sessions.json()).toEqual([]);
    await fetch(`${adkWeb?.url}/builder/app/greeter/cancel`, { method: 'POST' });
    await answerQuotes('Hello once more', 'Greet the user in French.');
    await shot('cancelled');
  });
});
