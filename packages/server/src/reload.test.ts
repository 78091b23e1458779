import { type BaseAgent, InMemorySessionService, LlmAgent } from '@adk/core';
import { ScriptedModel } from '@adk/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from './__fixtures__/apps.js';
import type { AdkAppLoader } from './index.js';

// An app loader that reloads (what `adk web --reload` does): when its `revision(name)` changes, the
// next run gets the new agent while a run in progress keeps the one it started with.

function version(label: string, delayMs = 5): BaseAgent {
  return new LlmAgent({
    name: 'app',
    description: `version ${label}`,
    model: new ScriptedModel({
      respond: async (request) => {
        const text =
          request.contents
            .at(-1)
            ?.parts.map((p) => p.text ?? '')
            .join('') ?? '';
        await new Promise((resolve) => setTimeout(resolve, text.startsWith('slow') ? 800 : delayMs));
        return `${label}: ${text}`;
      },
    }),
  });
}

let current = version('v1');
let revision = 0;
const loader: AdkAppLoader = {
  list: async () => ['app'],
  load: async () => current,
  revision: () => revision,
};
function swap(label: string) {
  current = version(label);
  revision += 1;
}

let t: TestServer;
beforeAll(async () => {
  t = await startServer({ apps: loader, sessionService: new InMemorySessionService() });
});
afterAll(async () => {
  await t?.close();
});

async function ask(text: string): Promise<string> {
  const post = (path: string, body: unknown) =>
    fetch(`${t.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const session = (await (await post('/apps/app/users/u/sessions', {})).json()) as { id: string };
  const res = await post('/run', {
    appName: 'app',
    userId: 'u',
    sessionId: session.id,
    newMessage: { role: 'user', parts: [{ text }] },
  });
  const events = (await res.json()) as { author: string; content?: { parts: { text?: string }[] } }[];
  return events
    .flatMap((e) => (e.author === 'app' ? (e.content?.parts.map((p) => p.text ?? '') ?? []) : []))
    .join('');
}

describe('a reloading app loader', () => {
  it('serves the new agent from the next run on; a run in progress finishes on the old one', async () => {
    expect(await ask('hi')).toBe('v1: hi');
    const slow = ask('slow');
    await new Promise((resolve) => setTimeout(resolve, 200));
    swap('v2');
    expect(await ask('hi')).toBe('v2: hi');
    expect(await slow).toBe('v1: slow');
  });

  it('answers the graph and info of the new agent', async () => {
    swap('v3');
    const info = (await (await fetch(`${t.url}/dev/apps/app/build_graph`)).json()) as unknown;
    expect(JSON.stringify(info)).toContain('version v3');
  });

  it('serves the new agent over A2A too', async () => {
    const card = async () =>
      (await (await fetch(`${t.url}/a2a/app/.well-known/agent-card.json`)).json()) as { description: string };
    expect((await card()).description).toBe('version v3');
    swap('v4');
    expect((await card()).description).toBe('version v4');
  });

  it('keeps the runner while the revision is unchanged', async () => {
    const before = current;
    current = version('not announced');
    expect(await ask('hi')).toBe('v4: hi');
    current = before;
  });
});
