import { existsSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FunctionTool, InMemorySessionService, LlmAgent, type LlmRequest } from '@adk/core';
import { functionCallResponse, ScriptedModel } from '@adk/core/testing';
import { createAdkServer, type ListeningAdkServer, listenAdkServer } from '@adk/server';
import { type Browser, chromium, type Page } from 'playwright-core';
import { build } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';

// The useChat page in a real Chromium against @adk/server: the answer streams, a tool call shows,
// an approval runs the tool, and a reload in the middle of an answer shows the whole answer.

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ci = process.env.CI === 'true' || process.env.CI === '1';
if (!existsSync(CHROMIUM)) {
  if (ci) throw new Error(`web-chat browser suite cannot run in CI: missing Chromium at ${CHROMIUM}`);
  console.warn(`web-chat browser suite skipped: missing Chromium at ${CHROMIUM}`);
}

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = join(root, 'dist');
const STORY = `Once upon a time ${'a story went on and on, '.repeat(12)}and that was the end.`;

function chatAgent(): LlmAgent {
  return new LlmAgent({
    name: 'assistant',
    description: 'Chats with tools',
    instruction: 'Help.',
    model: new ScriptedModel({
      model: 'gemini-2.5-flash',
      chunkSize: 6,
      delayMs: 40,
      respond: (request: LlmRequest) => {
        const last = request.contents.at(-1);
        const response = last?.parts.find((p) => p.functionResponse)?.functionResponse;
        if (response) return `Done: ${JSON.stringify(response.response)}`;
        const text = last?.parts.map((p) => p.text ?? '').join('') ?? '';
        const weather = /weather in (\w+)/i.exec(text);
        if (weather) return functionCallResponse('get_weather', { city: weather[1] });
        const del = /delete (\S+)/i.exec(text);
        if (del) return functionCallResponse('delete_file', { path: del[1] });
        if (/story/i.test(text)) return STORY;
        const paint = /paint (\w+)/i.exec(text);
        if (paint && request.tools?.some((t) => t.name === 'change_background'))
          return functionCallResponse('change_background', { color: paint[1] });
        return `You said: ${text}. Nice to meet you!`;
      },
    }),
    tools: [
      new FunctionTool({
        name: 'get_weather',
        description: 'Weather of a city',
        parameters: z.object({ city: z.string() }),
        execute: ({ city }) => ({ city, forecast: 'sunny' }),
      }),
      new FunctionTool({
        name: 'delete_file',
        description: 'Deletes a file (asks first)',
        parameters: z.object({ path: z.string() }),
        requireConfirmation: true,
        execute: ({ path }) => ({ deleted: path }),
      }),
    ],
  });
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};

/** The built pages under `/web-chat/`. */
async function staticFiles(request: Request): Promise<Response | undefined> {
  const path = new URL(request.url).pathname.replace(/^\/web-chat\/?/, '') || 'index.html';
  const file = join(dist, path);
  if (!file.startsWith(dist) || !existsSync(file)) return undefined;
  return new Response(readFileSync(file), {
    headers: { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' },
  });
}

describe.skipIf(!existsSync(CHROMIUM))('web-chat (useChat) in Chromium against @adk/server', () => {
  let listener: ListeningAdkServer;
  let browser: Browser;
  let base: string;

  beforeAll(async () => {
    await build({ configFile: join(root, 'ui', 'vite.config.ts'), logLevel: 'warn' });
    const server = await createAdkServer({
      apps: { assistant: chatAgent() },
      sessionService: new InMemorySessionService(),
      a2a: false,
      tracing: false,
      ui: { basePath: '/web-chat', fetch: staticFiles },
    });
    listener = await listenAdkServer(server, { port: 0 });
    base = `${listener.url}/web-chat/?app=assistant`;
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'],
    });
  });
  afterAll(async () => {
    await browser?.close();
    await listener?.close();
  });

  async function open(): Promise<Page> {
    const page = await browser.newPage();
    await page.goto(base);
    await page.getByLabel('message', { exact: true }).waitFor();
    return page;
  }

  async function send(page: Page, text: string): Promise<void> {
    await page.getByLabel('message', { exact: true }).fill(text);
    await page.getByRole('button', { name: 'Send' }).click();
  }

  it('streams the answer into the page', async () => {
    const page = await open();
    await send(page, 'a story please');
    const answer = page.getByLabel('assistant message').locator('p');
    // Seen part-way: the text grows while the model streams.
    await expect
      .poll(
        async () => {
          const text = (await answer.allTextContents()).join('');
          return text.startsWith('Once upon a time') && !text.includes('the end.');
        },
        { timeout: 20_000, interval: 20 },
      )
      .toBe(true);
    await expect.poll(async () => (await answer.allTextContents()).join(''), { timeout: 20_000 }).toBe(STORY);
    await expect.poll(async () => page.getByLabel('status').textContent(), { timeout: 20_000 }).toBe('ready');
    // The agent that spoke is named above its text.
    expect(await page.getByLabel('assistant message').locator('.author').first().textContent()).toBe(
      'assistant',
    );
    await page.close();
  });

  it('shows a tool call and its result', async () => {
    const page = await open();
    await send(page, 'weather in Paris');
    const tool = page.getByLabel('tool get_weather');
    await expect.poll(async () => tool.textContent()).toContain('output-available');
    await expect.poll(async () => tool.getByLabel('tool output').textContent()).toContain('sunny');
    await expect.poll(async () => page.getByLabel('assistant message').textContent()).toContain('Done:');
    await page.close();
  });

  it('asks for approval; approving runs the tool in the same assistant message', async () => {
    const page = await open();
    await send(page, 'delete notes.txt');
    const approve = page.getByRole('button', { name: 'Approve' });
    await approve.waitFor();
    await approve.click();
    const tool = page.getByLabel('tool delete_file');
    await expect
      .poll(async () => tool.getByLabel('tool output').textContent(), { timeout: 20_000 })
      .toContain('notes.txt');
    await expect.poll(async () => page.getByLabel('assistant message').textContent()).toContain('Done:');
    expect(await page.getByLabel('assistant message').count()).toBe(1);
    expect(await page.getByLabel('user message').count()).toBe(1);
    await page.close();
  });

  it('a reload in the middle of an answer shows the whole answer', async () => {
    const page = await open();
    await send(page, 'tell me a story');
    const answer = page.getByLabel('assistant message');
    await expect
      .poll(async () => (await answer.locator('p').allTextContents()).join('').length, {
        timeout: 20_000,
        interval: 20,
      })
      .toBeGreaterThan(20);
    expect(await answer.textContent()).not.toContain('the end.');
    await page.reload();
    await expect
      .poll(async () => page.getByLabel('assistant message').textContent(), { timeout: 30_000 })
      .toContain('and that was the end.');
    expect(await page.getByLabel('assistant message').count()).toBe(1);
    expect(await page.getByLabel('user message').count()).toBe(1);
    const text = (await page.getByLabel('assistant message').textContent()) ?? '';
    expect(text).toContain(STORY);
    await page.close();
  });
});

describe.skipIf(!existsSync(CHROMIUM))(
  'web-chat AG-UI page (HttpAgent) in Chromium against @adk/server',
  () => {
    let listener: ListeningAdkServer;
    let browser: Browser;
    let base: string;

    beforeAll(async () => {
      if (!existsSync(join(dist, 'ag-ui.html')))
        await build({ configFile: join(root, 'ui', 'vite.config.ts'), logLevel: 'warn' });
      const server = await createAdkServer({
        apps: { assistant: chatAgent() },
        sessionService: new InMemorySessionService(),
        a2a: false,
        tracing: false,
        ui: { basePath: '/web-chat', fetch: staticFiles },
      });
      listener = await listenAdkServer(server, { port: 0 });
      base = `${listener.url}/web-chat/ag-ui.html?app=assistant`;
      browser = await chromium.launch({
        executablePath: CHROMIUM,
        args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'],
      });
    });
    afterAll(async () => {
      await browser?.close();
      await listener?.close();
    });

    async function open(): Promise<Page> {
      const page = await browser.newPage();
      await page.goto(base);
      await page.getByLabel('message', { exact: true }).waitFor();
      return page;
    }

    async function send(page: Page, text: string): Promise<void> {
      await page.getByLabel('message', { exact: true }).fill(text);
      await page.getByRole('button', { name: 'Send' }).click();
    }

    it('streams the answer, named after its agent', async () => {
      const page = await open();
      await send(page, 'hello');
      const answer = page.getByLabel('assistant message');
      await expect
        .poll(async () => answer.textContent(), { timeout: 20_000 })
        .toContain('You said: hello. Nice to meet you!');
      expect(await answer.locator('.author').textContent()).toBe('assistant');
      await expect.poll(async () => page.getByLabel('status').textContent()).toBe('ready');
      await page.close();
    });

    it('a frontend tool runs in the page, and its result goes back to the agent', async () => {
      const page = await open();
      await send(page, 'paint pink');
      await expect
        .poll(async () => page.getByLabel('chat page').getAttribute('style'), { timeout: 20_000 })
        .toContain('background: pink');
      await expect
        .poll(async () => (await page.getByLabel('assistant message').allTextContents()).join(' '), {
          timeout: 20_000,
        })
        .toContain('Done: {"ok":true,"color":"pink"}');
      await page.close();
    });

    it('an approval is an interrupt; approving resumes the run', async () => {
      const page = await open();
      await send(page, 'delete draft.txt');
      const approve = page.getByRole('button', { name: 'Approve' });
      await approve.waitFor({ timeout: 20_000 });
      await approve.click();
      await expect
        .poll(async () => (await page.getByLabel('assistant message').allTextContents()).join(' '), {
          timeout: 20_000,
        })
        .toContain('Done: {"deleted":"draft.txt"}');
      await expect
        .poll(() => page.getByRole('button', { name: 'Approve' }).count(), { timeout: 30_000 })
        .toBe(0);
      await page.close();
    });
  },
);

describe.skipIf(!existsSync(CHROMIUM))(
  'web-chat CopilotKit page (AG-UI) in Chromium against @adk/server',
  () => {
    let listener: ListeningAdkServer;
    let browser: Browser;
    let base: string;

    beforeAll(async () => {
      if (!existsSync(join(dist, 'copilotkit.html')))
        await build({ configFile: join(root, 'ui', 'vite.config.ts'), logLevel: 'warn' });
      const server = await createAdkServer({
        apps: { assistant: chatAgent() },
        sessionService: new InMemorySessionService(),
        a2a: false,
        tracing: false,
        ui: { basePath: '/web-chat', fetch: staticFiles },
      });
      listener = await listenAdkServer(server, { port: 0 });
      base = `${listener.url}/web-chat/copilotkit.html?app=assistant`;
      browser = await chromium.launch({
        executablePath: CHROMIUM,
        args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'],
      });
    });
    afterAll(async () => {
      await browser?.close();
      await listener?.close();
    });

    /** The page, with what it logs as errors and the AG-UI bodies it posts. */
    async function open(): Promise<{ page: Page; errors: string[]; posted: Record<string, unknown>[] }> {
      const page = await browser.newPage();
      const errors: string[] = [];
      const posted: Record<string, unknown>[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      page.on('request', (r) => {
        if (r.method() === 'POST' && r.url().endsWith('/ag-ui'))
          posted.push(JSON.parse(r.postData() ?? '{}'));
      });
      await page.goto(base);
      await page.locator('textarea').first().waitFor({ timeout: 30_000 });
      return { page, errors, posted };
    }

    async function send(page: Page, text: string): Promise<void> {
      const box = page.locator('textarea').first();
      await box.fill(text);
      await box.press('Enter');
    }

    /** The chat's text, all messages together. */
    const chatText = async (page: Page) => (await page.locator('main').textContent()) ?? '';

    it("streams the answer through CopilotKit's chat", async () => {
      const { page, errors, posted } = await open();
      await send(page, 'a story please');
      // Seen part-way: the text grows while the model streams.
      await expect
        .poll(
          async () => {
            const text = await chatText(page);
            return text.includes('Once upon a time') && !text.includes('the end.');
          },
          { timeout: 20_000, interval: 20 },
        )
        .toBe(true);
      await expect.poll(() => chatText(page), { timeout: 20_000 }).toContain('and that was the end.');
      expect(errors).toEqual([]);
      // CopilotKit's pinned 0.0.x client: our stream carries no 1.0-only field for it.
      expect(posted[0]?.protocolVersion).toBeUndefined();
      await page.close();
    });

    it('shows a server tool call with its result', async () => {
      const { page } = await open();
      await send(page, 'weather in Paris');
      const tool = page.getByLabel('tool get_weather');
      await expect
        .poll(async () => tool.getByLabel('tool output').textContent(), { timeout: 20_000 })
        .toContain('sunny');
      await expect
        .poll(() => chatText(page), { timeout: 20_000 })
        .toContain('Done: {"city":"Paris","forecast":"sunny"}');
      await page.close();
    });

    it('runs a frontend tool in the page and sends its result back', async () => {
      const { page } = await open();
      await send(page, 'paint pink');
      await expect
        .poll(async () => page.getByLabel('chat page').getAttribute('style'), { timeout: 20_000 })
        .toContain('background: pink');
      await expect
        .poll(() => chatText(page), { timeout: 20_000 })
        .toContain('Done: {"ok":true,"color":"pink"}');
      await page.close();
    });

    it('shows an approval as an interrupt; approving resumes the run', async () => {
      const { page } = await open();
      await send(page, 'delete draft.txt');
      const approve = page.getByRole('button', { name: 'Approve' });
      await approve.waitFor({ timeout: 20_000 });
      await approve.click();
      await expect.poll(() => chatText(page), { timeout: 20_000 }).toContain('Done: {"deleted":"draft.txt"}');
      await page.close();
    });
  },
);
