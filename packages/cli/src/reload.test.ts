import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Served, startServer, until } from './__fixtures__/serve.js';

// The agents folder is copied under the package (its modules resolve @adk/core from here) into
// tmp/ (git-ignored); `adk web` watches it while the test edits its files.
const pkgDir = new URL('..', import.meta.url).pathname;
mkdirSync(join(pkgDir, 'tmp'), { recursive: true });
const work = mkdtempSync(join(pkgDir, 'tmp', 'reload-'));
const agents = join(work, 'agents');
const dataDir = join(work, 'data');
cpSync(new URL('./__fixtures__/reload', import.meta.url), agents, { recursive: true });
mkdirSync(dataDir);
const label = join(agents, 'echo', 'label.ts');
// A CommonJS app (no "type": "module"): it loads, but Node cannot load a fresh copy of it.
const legacyAgent = (name: string) =>
  `import { LlmAgent } from '@adk/core';\nexport const rootAgent = new LlmAgent({ name: '${name}', model: 'gemini-2.5-flash' });\n`;
mkdirSync(join(agents, 'legacy'));
writeFileSync(join(agents, 'legacy', 'package.json'), '{ "name": "legacy" }\n');
writeFileSync(join(agents, 'legacy', 'agent.ts'), legacyAgent('legacy'));

let web: Served;
beforeAll(async () => {
  web = await startServer('web', agents, dataDir);
}, 40_000);
afterAll(async () => {
  await web?.stop();
  rmSync(work, { recursive: true, force: true });
});

async function ask(base: string, text: string): Promise<string> {
  const post = (path: string, body: unknown) =>
    fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const session = (await (await post('/apps/echo/users/u/sessions', {})).json()) as { id: string };
  const res = await post('/run', {
    appName: 'echo',
    userId: 'u',
    sessionId: session.id,
    newMessage: { role: 'user', parts: [{ text }] },
  });
  expect(res.status).toBe(200);
  const events = (await res.json()) as { author: string; content?: { parts: { text?: string }[] } }[];
  return events
    .filter((e) => e.author === 'echo')
    .flatMap((e) => e.content?.parts.map((p) => p.text ?? '') ?? [])
    .join('');
}

type Status = {
  enabled: boolean;
  apps: Record<
    string,
    { revision: number; error?: { file: string; message: string; keptPrevious: boolean } }
  >;
};
const status = async (base: string) => (await (await fetch(`${base}/dev/reload`)).json()) as Status;
const reloads = () => web.stdout().match(/Reloaded app echo/g)?.length ?? 0;

describe('adk web --reload (the default)', () => {
  it('serves a changed app from the next run on, and finishes runs in flight on the old code', async () => {
    expect(web.stdout()).toContain(`Reload: watching ${agents}`);
    expect(await ask(web.url, 'hi')).toBe('v1 hello: hi');
    expect((await status(web.url)).apps.echo).toMatchObject({ revision: 0 });

    const slow = ask(web.url, 'slow one');
    await new Promise((resolve) => setTimeout(resolve, 300));
    // label.ts is imported by agent.ts: the reload re-reads the app's whole module graph.
    writeFileSync(label, "export const label: string = 'v2';\n");
    await until('the reload', () => reloads() === 1);
    expect(await ask(web.url, 'hi')).toBe('v2 hello: hi');
    expect(await slow).toBe('v1 hello: slow one');
    expect((await status(web.url)).apps.echo).toEqual(expect.objectContaining({ revision: 1 }));
  });

  it('keeps the last good version when a file fails, and reports the file and message', async () => {
    writeFileSync(label, "export const label: string = 'v3' +;\n");
    await until('the error on stderr', () => web.stderr().includes('app echo failed to reload'));
    expect(web.stderr()).toMatch(
      /app echo failed to reload \(still serving the version loaded before\): echo\/label\.ts: [\s\S]*Unexpected/,
    );
    const broken = (await status(web.url)).apps.echo;
    expect(broken?.revision).toBe(1);
    expect(broken?.error).toMatchObject({ file: 'echo/label.ts', keptPrevious: true });
    expect(broken?.error?.message).toMatch(/Unexpected/);
    expect(broken?.error?.message).not.toContain('adk_reload');
    expect(await ask(web.url, 'still there?')).toBe('v2 hello: still there?');

    // A fix clears the error and is served.
    writeFileSync(label, "export const label: string = 'v3';\n");
    await until('the fixed version', async () => (await status(web.url)).apps.echo?.revision === 2);
    expect((await status(web.url)).apps.echo?.error).toBeUndefined();
    expect(await ask(web.url, 'hi')).toBe('v3 hello: hi');
  });

  it('reloads an app when its .env changes', async () => {
    writeFileSync(join(agents, 'echo', '.env'), 'RELOAD_GREETING=hola\n');
    await until('the .env reload', async () => (await status(web.url)).apps.echo?.revision === 3);
    expect(await ask(web.url, 'hi')).toBe('v3 hola: hi');
    writeFileSync(join(agents, 'echo', '.env'), 'RELOAD_GREETING=salut\n');
    await until('the second .env reload', async () => (await status(web.url)).apps.echo?.revision === 4);
    expect(await ask(web.url, 'hi')).toBe('v3 salut: hi');
  });

  it('answers the graph of the new version', async () => {
    writeFileSync(
      join(agents, 'echo', 'agent.ts'),
      "import { LlmAgent } from '@adk/core';\nexport const rootAgent = new LlmAgent({ name: 'renamed', model: 'gemini-2.5-flash', subAgents: [new LlmAgent({ name: 'helper', model: 'gemini-2.5-flash' })] });\n",
    );
    await until('the new agent', async () => (await status(web.url)).apps.echo?.revision === 5);
    const graph = JSON.stringify(await (await fetch(`${web.url}/dev/apps/echo/build_graph`)).json());
    expect(graph).toContain('renamed');
    expect(graph).toContain('helper');
  });
});

describe('an app broken from the start', () => {
  it('reports the error without a version to keep, then serves the fix', async () => {
    const late = join(agents, 'late');
    mkdirSync(late);
    writeFileSync(
      join(late, 'agent.ts'),
      "import { LlmAgent } from '@adk/core';\nexport const rootAgent = new LlmAgent({ name: 'late', model: });\n",
    );
    const first = await fetch(`${web.url}/dev/apps/late/build_graph`);
    expect(first.status).toBe(500);
    expect(((await first.json()) as { code: string }).code).toBe('APP_LOAD');
    expect((await status(web.url)).apps.late?.error).toMatchObject({
      file: 'late/agent.ts',
      keptPrevious: false,
    });

    writeFileSync(
      join(late, 'agent.ts'),
      "import { LlmAgent } from '@adk/core';\nexport const rootAgent = new LlmAgent({ name: 'late', model: 'gemini-2.5-flash' });\n",
    );
    await until('the fixed app', async () => (await status(web.url)).apps.late?.error === undefined);
    // A new version for the page to refresh its views (the one before was the failure).
    expect((await status(web.url)).apps.late?.revision).toBe(1);
    expect((await fetch(`${web.url}/dev/apps/late/build_graph`)).status).toBe(200);
  });
});

describe('a CommonJS app', () => {
  it('loads, and a change is reported (hot reload needs ES modules) while the loaded version stays', async () => {
    const graph = async () =>
      JSON.stringify(await (await fetch(`${web.url}/dev/apps/legacy/build_graph`)).json());
    expect(await graph()).toContain('legacy');
    writeFileSync(join(agents, 'legacy', 'agent.ts'), legacyAgent('changed'));
    const error = await until('the report', async () => (await status(web.url)).apps.legacy?.error);
    expect(error).toMatchObject({ file: 'legacy/agent.ts', keptPrevious: true });
    expect(error.message).toContain('hot reload needs an ES module app');
    expect(await graph()).not.toContain('changed');
    // Other apps are unaffected.
    expect((await status(web.url)).apps.echo?.error).toBeUndefined();
  });
});

describe('adk api_server', () => {
  it('does not reload unless asked', async () => {
    const api = await startServer('api_server', agents, join(work, 'data-api'));
    try {
      expect(api.stdout()).not.toContain('Reload: watching');
      expect(await status(api.url)).toEqual({ enabled: false, apps: {} });
    } finally {
      await api.stop();
    }
  }, 40_000);
});
