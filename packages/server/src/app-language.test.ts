import { InMemorySessionService, LlmAgent } from '@adk/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from './__fixtures__/apps.js';
import type { AdkAppLoader } from './index.js';

// A loader says what each app is written in; /list-apps?detailed=true and app-info report it.
const loader: AdkAppLoader = {
  list: async () => ['from_yaml', 'from_code'],
  load: async (name) => new LlmAgent({ name, description: `the ${name} app`, instruction: 'x' }),
  language: (name) => (name === 'from_yaml' ? 'yaml' : 'typescript'),
};

let listener: TestServer;
beforeAll(async () => {
  listener = await startServer({ apps: loader, sessionService: new InMemorySessionService(), a2a: false });
});
afterAll(async () => {
  await listener?.close();
});

describe('app language', () => {
  it('list-apps?detailed=true says yaml for Agent Config apps and typescript for code', async () => {
    const detailed = (await (await fetch(`${listener.url}/list-apps?detailed=true`)).json()) as {
      apps: { name: string; language: string }[];
    };
    expect(detailed.apps.map((a) => [a.name, a.language])).toEqual([
      ['from_code', 'typescript'],
      ['from_yaml', 'yaml'],
    ]);
    const info = (await (await fetch(`${listener.url}/apps/from_yaml/app-info`)).json()) as {
      language: string;
    };
    expect(info.language).toBe('yaml');
  });

  it('a loader without language() reports typescript', async () => {
    const other = await startServer({
      apps: { list: loader.list, load: loader.load },
      sessionService: new InMemorySessionService(),
      a2a: false,
    });
    try {
      const detailed = (await (await fetch(`${other.url}/list-apps?detailed=true`)).json()) as {
        apps: { language: string }[];
      };
      expect(detailed.apps.map((a) => a.language)).toEqual(['typescript', 'typescript']);
    } finally {
      await other.close();
    }
  });
});
