import { InMemorySessionService } from '@adk/core';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from './__fixtures__/apps.js';

// Hundreds of malformed requests: every one gets a 4xx JSON answer (or a well-formed stream), never a 500.

let t: TestServer;
beforeAll(async () => {
  t = await startServer({ sessionService: new InMemorySessionService(), bodyLimit: 64 * 1024 });
  await fetch(`${t.url}/apps/assistant/users/u1/sessions`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ sessionId: 's1' }),
  });
});
afterAll(async () => {
  await t?.close();
});

const ROUTES: [string, string][] = [
  ['POST', '/run'],
  ['POST', '/run_sse'],
  ['POST', '/apps/assistant/users/u1/sessions'],
  ['POST', '/apps/assistant/users/u1/sessions/new-id'],
  ['PATCH', '/apps/assistant/users/u1/sessions/s1'],
  ['POST', '/apps/assistant/users/u1/sessions/s1/artifacts'],
  ['PATCH', '/apps/assistant/users/u1/memory'],
];

/** Values that look almost like a RunAgentRequest: right keys, wrong or odd values. */
const anyValue = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.double(),
  fc.string(),
  fc.constant(''),
  fc.constant('\u0000'),
  fc.array(fc.string(), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
);
const part = fc.oneof(
  fc.record({ text: anyValue }),
  fc.record({
    functionResponse: fc.record({ id: anyValue, name: anyValue, response: anyValue }, { requiredKeys: [] }),
  }),
  fc.record({ inline_data: fc.record({ mime_type: anyValue, data: anyValue }, { requiredKeys: [] }) }),
  anyValue,
);
const content = fc.oneof(
  fc.record(
    {
      role: fc.oneof(fc.constant('user'), fc.constant('model'), anyValue),
      parts: fc.oneof(fc.array(part, { maxLength: 3 }), anyValue),
    },
    { requiredKeys: [] },
  ),
  anyValue,
);
const nearlyValid = fc.record(
  {
    appName: fc.oneof(fc.constant('assistant'), fc.constant('ghost'), anyValue),
    userId: fc.oneof(fc.constant('u1'), anyValue),
    sessionId: fc.oneof(fc.constant('s1'), fc.constant('missing'), anyValue),
    newMessage: content,
    streaming: anyValue,
    stateDelta: anyValue,
    state: anyValue,
    events: fc.oneof(
      fc.array(fc.dictionary(fc.string({ maxLength: 10 }), anyValue, { maxKeys: 4 }), { maxLength: 2 }),
      anyValue,
    ),
    filename: anyValue,
    artifact: part,
    invocationId: anyValue,
  },
  { requiredKeys: [] },
);
const body = fc.oneof(
  nearlyValid.map((v) => JSON.stringify(v)),
  fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
  fc.string({ maxLength: 200 }),
  fc.constant('{"appName": "assistant", '),
  fc.constant('{"__proto__": {"polluted": true}, "userId": "u1", "sessionId": "s1", "appName": "assistant"}'),
);

async function expectNo500(method: string, path: string, text: string, contentType = 'application/json') {
  const response = await fetch(`${t.url}${path}`, {
    method,
    headers: { 'Content-Type': contentType },
    body: text,
  });
  const received = await response.text();
  expect(response.status, `${method} ${path} ${text.slice(0, 200)} → ${received.slice(0, 300)}`).toBeLessThan(
    500,
  );
  if (response.status >= 400) {
    expect(JSON.parse(received)).toMatchObject({ code: expect.any(String), detail: expect.any(String) });
  } else if (response.headers.get('content-type')?.startsWith('text/event-stream')) {
    for (const frame of received.split('\n\n').filter(Boolean)) expect(frame.startsWith('data: ')).toBe(true);
  }
}

describe('malformed bodies', () => {
  it('never make a route answer 500', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...ROUTES), body, async ([method, path], text) => {
        await expectNo500(method, path, text);
      }),
      { numRuns: 350 },
    );
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('odd path segments are 4xx too', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ minLength: 1, maxLength: 300 }), async (segment) => {
        const s = encodeURIComponent(segment);
        for (const path of [
          `/apps/${s}/users/u1/sessions`,
          `/apps/assistant/users/${s}/sessions/${s}`,
          `/apps/assistant/users/u1/sessions/s1/artifacts/${s}`,
          `/apps/assistant/users/u1/sessions/s1/artifacts/${s}/versions/${s}`,
          `/debug/trace/${s}`,
          `/dev/apps/${s}/build_graph`,
        ]) {
          const response = await fetch(`${t.url}${path}`);
          expect(response.status, path).toBeLessThan(500);
        }
      }),
      { numRuns: 60 },
    );
  });
});

describe('malformed requests below the JSON level', () => {
  it('deeply nested JSON is refused before validation (no stack overflow)', async () => {
    for (const depth of [150, 20_000]) {
      const deep = `${'['.repeat(depth)}${']'.repeat(depth)}`;
      for (const [path, body] of [
        ['/run', `{"appName":"assistant","userId":"u1","sessionId":"s1","stateDelta":{"a":${deep}}}`],
        ['/apps/assistant/users/u1/sessions', `{"state":{"a":${deep}}}`],
      ] as const) {
        const r = await fetch(`${t.url}${path}`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body,
        });
        expect(r.status, `${path} depth ${depth}`).toBe(400);
      }
    }
  });

  it('bad percent-encoding, odd methods and huge ids are 4xx', async () => {
    const { rawRequest } = await import('./__fixtures__/raw-http.js');
    for (const [method, path] of [
      ['GET', '/apps/%E0%A4%A/users/u1/sessions'],
      ['GET', '/apps/assistant/users/%ZZ/sessions/s1'],
      ['GET', `/apps/assistant/users/${'u'.repeat(5000)}/sessions`],
      ['PUT', '/run'],
      ['DELETE', '/list-apps'],
      ['POST', '/apps/assistant/users/u1/sessions/s1/artifacts/%00'],
      ['GET', '/debug/trace/%C0%AF'],
    ] as const) {
      const r = await rawRequest(`${t.url}${path}`, { method });
      expect(r.status, `${method} ${path}`).toBeGreaterThanOrEqual(400);
      expect(r.status, `${method} ${path}`).toBeLessThan(500);
    }
  });
});
