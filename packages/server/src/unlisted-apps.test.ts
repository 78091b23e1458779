import { InMemorySessionService, LlmAgent } from '@adk/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from './__fixtures__/apps.js';
import type { AdkAppLoader } from './index.js';

// A loader may serve apps its list leaves out (the CLI serves the builder's drafts that way).
let draftExists = true;
const loader: AdkAppLoader = {
  list: async () => ['listed'],
  has: (name) => name === 'listed' || (name === '__draft__listed' && draftExists),
  load: async (name) => new LlmAgent({ name: name.replace(/\W/g, '_'), instruction: 'x' }),
};

let listener: TestServer;
beforeAll(async () => {
  listener = await startServer({ apps: loader, sessionService: new InMemorySessionService(), a2a: false });
});
afterAll(async () => {
  await listener?.close();
});

describe('apps a loader serves without listing them', () => {
  it('are served (sessions, app-info) but not listed', async () => {
    expect(await (await fetch(`${listener.url}/list-apps`)).json()).toEqual(['listed']);
    const created = await fetch(`${listener.url}/apps/__draft__listed/users/u/sessions`, { method: 'POST' });
    expect(created.status).toBe(200);
    const info = (await (await fetch(`${listener.url}/apps/__draft__listed/app-info`)).json()) as {
      name: string;
    };
    expect(info.name).toBe('__draft__listed');
  });

  it('a name the loader does not have is unknown, even after it was loaded', async () => {
    const response = await fetch(`${listener.url}/apps/__draft__other/users/u/sessions`, { method: 'POST' });
    expect(response.status).toBe(404);
    draftExists = false;
    const gone = await fetch(`${listener.url}/apps/__draft__listed/users/u/sessions`, { method: 'POST' });
    expect(gone.status).toBe(404);
    // Its runner was built while it existed; what describes the app answers 404 all the same.
    for (const path of ['app-info', 'build_graph', 'skills', 'build_graph_image']) {
      const url = path === 'app-info' ? `apps/__draft__listed/${path}` : `dev/apps/__draft__listed/${path}`;
      expect((await fetch(`${listener.url}/${url}`)).status, path).toBe(404);
    }
  });
});
