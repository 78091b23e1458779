import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, offlineEnv } from './__fixtures__/cli.js';

// The web UI's YAML builder routes of `adk web`, on a throwaway agents folder, over real HTTP.
const work = mkdtempSync(join(tmpdir(), 'adk-builder-'));
const agents = join(work, 'agents');
const app = join(agents, 'greeter');
const ROOT = 'name: greeter\nmodel: gemini-2.5-flash\ninstruction: Greet the user.\n';
mkdirSync(app, { recursive: true });
mkdirSync(join(agents, 'other_app'));
writeFileSync(join(app, 'root_agent.yaml'), ROOT);
writeFileSync(join(agents, 'other_app', 'tools.ts'), 'export const secret = 1;\n');
// The app's code may import from outside its folder (a shared module), as the examples do.
mkdirSync(join(agents, 'common'));
writeFileSync(join(agents, 'common', 'mark.ts'), 'export function mark() {\n  return undefined;\n}\n');
writeFileSync(join(app, 'callbacks.ts'), "export { mark } from '../common/mark.js';\n");
mkdirSync(join(agents, 'broken'));
writeFileSync(
  join(agents, 'broken', 'root_agent.yaml'),
  'name: broken\ninstruction: x\ninclude_contents: all\n',
);

let child: ChildProcessWithoutNullStreams;
let url: string;
beforeAll(async () => {
  let output = '';
  child = spawn(
    process.execPath,
    [BIN, 'web', agents, '--port', '0', '--data-dir', join(work, 'data'), '--no-a2a'],
    {
      env: offlineEnv({ DATABASE_URL: `sqlite://${join(work, 'sessions.db')}` }),
    },
  );
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    output += d;
  });
  child.stderr.setEncoding('utf8').on('data', (d: string) => {
    output += d;
  });
  url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), 20_000);
    child.stdout.on('data', () => {
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (match?.[1] && output.includes('Press Ctrl-C')) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.on('close', () => reject(new Error(`server exited:\n${output}`)));
  });
});
afterAll(async () => {
  if (child && child.exitCode === null) {
    const closed = new Promise((resolve) => child.on('close', resolve));
    child.kill('SIGTERM');
    await closed;
  }
  rmSync(work, { recursive: true, force: true });
});

function upload(path: string, files: [string, string][]): Promise<Response> {
  const form = new FormData();
  for (const [name, text] of files)
    form.append('files', new File([text], name, { type: 'application/x-yaml' }));
  return fetch(`${url}${path}`, { method: 'POST', body: form });
}

/** The text of one /run of an app (the greeter by default) in a new session. */
async function reply(text: string, appName = 'greeter'): Promise<string> {
  const session = (await (
    await fetch(`${url}/apps/${appName}/users/u1/sessions`, { method: 'POST' })
  ).json()) as {
    id: string;
  };
  const run = await fetch(`${url}/run`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      appName,
      userId: 'u1',
      sessionId: session.id,
      newMessage: { role: 'user', parts: [{ text }] },
    }),
  });
  const events = (await run.json()) as { content?: { parts: { text?: string }[] } }[];
  return events.map((e) => e.content?.parts[0]?.text ?? '').join('\n');
}

const edited = ROOT.replace('Greet the user.', 'Greet the user in French.');

describe('builder routes', () => {
  it('reads an app file in both spellings; bad paths read as empty', async () => {
    for (const path of ['/builder/app/greeter', '/dev/apps/greeter/builder']) {
      const response = await fetch(`${url}${path}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toContain('application/x-yaml');
      expect(await response.text()).toBe(ROOT);
    }
    for (const query of ['file_path=../other_app/tools.ts', 'file_path=.env', 'file_path=missing.yaml']) {
      const response = await fetch(`${url}/dev/apps/greeter/builder?${query}`);
      expect(response.status).toBe(200);
      expect(await response.text()).toBe('');
    }
  });

  it('saves a draft (tmp), reads it back, and cancels it', async () => {
    const saved = await upload('/builder/save?tmp=true', [['greeter/root_agent.yaml', edited]]);
    expect(saved.status).toBe(200);
    expect(await saved.json()).toBe(true);
    expect(await (await fetch(`${url}/builder/app/greeter?tmp=true`)).text()).toBe(edited);
    expect(await (await fetch(`${url}/builder/app/greeter`)).text()).toBe(ROOT);
    expect(existsSync(join(app, 'tmp', 'greeter', 'root_agent.yaml'))).toBe(true);

    const cancelled = await fetch(`${url}/builder/app/greeter/cancel`, { method: 'POST' });
    expect(await cancelled.json()).toBe(true);
    expect(existsSync(join(app, 'tmp'))).toBe(false);
    expect(readFileSync(join(app, 'root_agent.yaml'), 'utf8')).toBe(ROOT);
  });

  it('serves the draft as the unlisted app __draft__greeter until it is cancelled', async () => {
    const draftSession = () => fetch(`${url}/apps/__draft__greeter/users/u1/sessions`, { method: 'POST' });
    expect((await draftSession()).status).toBe(404);
    const first = await upload('/builder/save?tmp=true', [['greeter/root_agent.yaml', edited]]);
    expect(await first.json()).toBe(true);
    expect(await reply('Hello', '__draft__greeter')).toContain('Greet the user in French.');
    expect(await reply('Hello')).toContain('My instructions: "Greet the user."');
    expect(await (await fetch(`${url}/list-apps`)).json()).toEqual(['broken', 'greeter']);
    // Each draft save is served at once.
    const again = ROOT.replace('Greet the user.', 'Greet the user in Spanish.');
    expect(await (await upload('/builder/save?tmp=true', [['greeter/root_agent.yaml', again]])).json()).toBe(
      true,
    );
    expect(await reply('Hello', '__draft__greeter')).toContain('Greet the user in Spanish.');

    expect(await (await fetch(`${url}/builder/app/greeter/cancel`, { method: 'POST' })).json()).toBe(true);
    expect((await draftSession()).status).toBe(404);
    expect(readFileSync(join(app, 'root_agent.yaml'), 'utf8')).toBe(ROOT);
  });

  it('reloads the draft, not the app, when a draft file changes on disk', async () => {
    const revisions = async () =>
      ((await (await fetch(`${url}/dev/reload`)).json()) as { apps: Record<string, { revision: number }> })
        .apps;
    const before = (await revisions()).greeter?.revision;
    expect(await (await upload('/builder/save?tmp=true', [['greeter/root_agent.yaml', edited]])).json()).toBe(
      true,
    );
    writeFileSync(
      join(app, 'tmp', 'greeter', 'root_agent.yaml'),
      ROOT.replace('Greet the user.', 'Greet the user in Italian.'),
    );
    await expect
      .poll(() => reply('Hello', '__draft__greeter'), { timeout: 10_000, interval: 200 })
      .toContain('Greet the user in Italian.');
    expect((await revisions()).greeter?.revision).toBe(before);
    await fetch(`${url}/builder/app/greeter/cancel`, { method: 'POST' });
  });

  it('runs a draft on the app’s own code, whose modules import from outside the app folder', async () => {
    const withCallback = `${edited}before_agent_callbacks:\n  - name: greeter.callbacks.mark\n`;
    const saved = await upload('/builder/save?tmp=true', [['greeter/root_agent.yaml', withCallback]]);
    expect(await saved.json()).toBe(true);
    expect(await reply('Hello', '__draft__greeter')).toContain('Greet the user in French.');
    await fetch(`${url}/builder/app/greeter/cancel`, { method: 'POST' });
  });

  it('answers 400 when a draft is written but does not load, and names the problem', async () => {
    const response = await upload('/builder/save?tmp=true', [
      ['greeter/root_agent.yaml', `${ROOT}tools:\n  - name: greeter.tools.missing\n`],
    ]);
    expect(response.status).toBe(400);
    const body = (await response.json()) as { detail: string; code: string };
    expect(body.code).toBe('BUILDER_REQUEST');
    expect(body.detail).toMatch(/^The draft was saved but does not load: .*tools\[0\]\.name/);
    await fetch(`${url}/builder/app/greeter/cancel`, { method: 'POST' });
    expect(existsSync(join(app, 'tmp'))).toBe(false);
  });

  it('saves to the app: the draft is folded in and removed, and the next run uses it', async () => {
    expect(await reply('Hello')).toContain('My instructions: "Greet the user."');
    const helper = 'name: helper\ninstruction: Help.\n';
    expect(
      await (
        await upload('/dev/apps/greeter/builder/save?tmp=true', [['greeter/helper.yaml', helper]])
      ).json(),
    ).toBe(true);
    const saved = await upload('/dev/apps/greeter/builder/save', [
      ['greeter/root_agent.yaml', `${edited}sub_agents:\n  - config_path: helper.yaml\n`],
    ]);
    expect(saved.status).toBe(200);
    expect(await saved.json()).toBe(true);
    expect(readFileSync(join(app, 'root_agent.yaml'), 'utf8')).toContain('in French');
    expect(readFileSync(join(app, 'helper.yaml'), 'utf8')).toBe(helper);
    expect(existsSync(join(app, 'tmp'))).toBe(false);
    // The running server serves the saved files at once: the demo model quotes its instruction.
    expect(await reply('Hello')).toContain('Greet the user in French.');
    const cancelled = await fetch(`${url}/dev/apps/greeter/builder/cancel`, { method: 'POST' });
    expect(await cancelled.json()).toBe(true);
  });

  const refusals: [string, string, [string, string][], RegExp][] = [
    [
      'a code reference outside the app',
      '/builder/save?tmp=true',
      [['greeter/root_agent.yaml', `${ROOT}tools:\n  - name: other_app.tools.secret\n`]],
      /root_agent.yaml:\d+:\d+: at tools\[0\]\.name: expected a module inside the app folder/,
    ],
    [
      'a config_path outside the app',
      '/builder/save',
      [['greeter/root_agent.yaml', `${ROOT}sub_agents:\n  - config_path: ../other_app/root_agent.yaml\n`]],
      /at sub_agents\[0\]\.config_path: expected a path inside the app folder/,
    ],
    [
      'malformed YAML',
      '/builder/save?tmp=true',
      [['greeter/root_agent.yaml', 'name: [']],
      /expected well-formed YAML/,
    ],
    [
      'a schema error',
      '/builder/save?tmp=true',
      [['greeter/root_agent.yaml', 'name: greeter\n']],
      /at instruction: expected the required key/,
    ],
    [
      'a path that leaves the app',
      '/builder/save?tmp=true',
      [['greeter/../other_app/x.yaml', ROOT]],
      /Invalid file path/,
    ],
    [
      'a file that is not YAML',
      '/builder/save',
      [['greeter/agent.ts', 'export {}']],
      /Only \.yaml and \.yml/,
    ],
    [
      'files of two apps',
      '/builder/save',
      [
        ['greeter/root_agent.yaml', ROOT],
        ['other_app/root_agent.yaml', ROOT],
      ],
      /Exactly one app per save/,
    ],
    [
      'an upload for another app than the path',
      '/dev/apps/greeter/builder/save',
      [['other_app/root_agent.yaml', ROOT]],
      /sent to the builder of greeter/,
    ],
    ['a name without an app', '/builder/save', [['root_agent.yaml', ROOT]], /must be \{app\}\/\{path\}/],
  ];
  for (const [title, path, files, detail] of refusals) {
    it(`refuses ${title} with 400 and writes nothing`, async () => {
      const before = readFileSync(join(app, 'root_agent.yaml'), 'utf8');
      const response = await upload(path, files);
      expect(response.status).toBe(400);
      expect(((await response.json()) as { detail: string }).detail).toMatch(detail);
      expect(readFileSync(join(app, 'root_agent.yaml'), 'utf8')).toBe(before);
      expect(existsSync(join(agents, 'other_app', 'root_agent.yaml'))).toBe(false);
      expect(existsSync(join(agents, 'other_app', 'x.yaml'))).toBe(false);
    });
  }

  it('refuses malformed bodies with 400 and the code BUILDER_REQUEST', async () => {
    const text = new FormData();
    text.append('files', 'name: greeter');
    const bodies: [RequestInit, RegExp][] = [
      [{ headers: { 'content-type': 'application/json' }, body: '{"files": []}' }, /^No files/],
      [{ headers: { 'content-type': 'multipart/form-data; boundary=x' }, body: '--x\r\nbroken' }, /./],
      [{ body: new FormData() }, /^No files/],
      [{ body: text }, /`files` must be file uploads/],
    ];
    for (const [init, detail] of bodies) {
      const response = await fetch(`${url}/builder/save?tmp=true`, { method: 'POST', ...init });
      expect(response.status).toBe(400);
      const body = (await response.json()) as { detail: string; code: string };
      expect(body.code).toBe('BUILDER_REQUEST');
      expect(body.detail).toMatch(detail);
    }
    expect(existsSync(join(app, 'tmp'))).toBe(false);
  });
});

describe('a YAML app with an error, served', () => {
  it('answers /run with the config error: file, YAML path, expected and found', async () => {
    const session = await fetch(`${url}/apps/broken/users/u1/sessions`, { method: 'POST' });
    const run = await fetch(`${url}/run`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        appName: 'broken',
        userId: 'u1',
        sessionId: session.ok ? ((await session.json()) as { id: string }).id : 's1',
        newMessage: { role: 'user', parts: [{ text: 'hi' }] },
      }),
    });
    expect(run.status).toBe(500);
    const body = (await run.json()) as { detail: string; code: string };
    expect(body.code).toBe('APP_LOAD');
    expect(body.detail).toBe(
      `${join(agents, 'broken', 'root_agent.yaml')}:3:19: at include_contents: expected one of "default", "none", found the string "all"`,
    );
  });
});
