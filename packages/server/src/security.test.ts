import { InMemorySessionService } from '@adk/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from './__fixtures__/apps.js';
import { rawRequest } from './__fixtures__/raw-http.js';
import { createAdkServer, listenAdkServer } from './index.js';

// The guards against DNS rebinding and cross-site use, the bearer token, CORS and the body limit.

const TOKEN = 's3cret-token';
let t: TestServer;
beforeAll(async () => {
  t = await startServer({
    sessionService: new InMemorySessionService(),
    token: TOKEN,
    allowedOrigins: ['http://ui.example.com:3000'],
    allowedHosts: ['adk.internal', '.example.com'],
    bodyLimit: 2048,
    ui: {
      basePath: '/dev-ui',
      fetch: async (request) =>
        new URL(request.url).pathname === '/dev-ui/'
          ? new Response('<html>ui</html>', { headers: { 'Content-Type': 'text/html' } })
          : undefined,
    },
  });
});
afterAll(async () => {
  await t?.close();
});

const auth = { Authorization: `Bearer ${TOKEN}` };

describe('Host check (DNS rebinding)', () => {
  it('answers loopback names and allowed hosts', async () => {
    for (const host of [
      'localhost:1234',
      '127.0.0.1',
      '[::1]:80',
      'adk.internal',
      'api.example.com',
      'example.com',
    ]) {
      const r = await rawRequest(`${t.url}/health`, { headers: { Host: host, ...auth } });
      expect(r.status, host).toBe(200);
    }
  });

  it('refuses other names with 403, token or not', async () => {
    for (const host of ['evil.com', 'localhost.evil.com', 'example.com.evil.net', '10.0.0.8']) {
      const r = await rawRequest(`${t.url}/list-apps`, { headers: { Host: host, ...auth } });
      expect(r.status, host).toBe(403);
      expect(JSON.parse(r.body)).toMatchObject({ code: 'FORBIDDEN' });
    }
  });
});

describe('Origin check and CORS', () => {
  it('refuses a cross-site page, even with a simple text/plain POST', async () => {
    const r = await rawRequest(`${t.url}/run_sse`, {
      method: 'POST',
      headers: { Origin: 'http://evil.com', 'Content-Type': 'text/plain', ...auth },
      body: '{}',
    });
    expect(r.status).toBe(403);
  });

  it('allows same-origin requests and the listed origin, with CORS headers only for the latter', async () => {
    const same = await rawRequest(`${t.url}/list-apps`, { headers: { Origin: t.url, ...auth } });
    expect(same.status).toBe(200);
    expect(same.headers['access-control-allow-origin']).toBeUndefined();
    const listed = await rawRequest(`${t.url}/list-apps`, {
      headers: { Origin: 'http://ui.example.com:3000', ...auth },
    });
    expect(listed.status).toBe(200);
    expect(listed.headers['access-control-allow-origin']).toBe('http://ui.example.com:3000');
  });

  it('answers CORS preflights for the listed origin without a token', async () => {
    const r = await rawRequest(`${t.url}/run_sse`, {
      method: 'OPTIONS',
      headers: {
        Origin: 'http://ui.example.com:3000',
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'authorization,content-type',
      },
    });
    expect(r.status).toBe(204);
    expect(r.headers['access-control-allow-origin']).toBe('http://ui.example.com:3000');
    expect(String(r.headers['access-control-allow-headers']).toLowerCase()).toContain('authorization');
  });
});

describe('bearer token', () => {
  it('is required on every route but the probes, A2A included', async () => {
    for (const path of [
      '/version',
      '/list-apps',
      '/apps/assistant/users/u/sessions',
      '/a2a/assistant/.well-known/agent-card.json',
    ]) {
      const none = await rawRequest(`${t.url}${path}`);
      expect(none.status, path).toBe(401);
      const wrong = await rawRequest(`${t.url}${path}`, { headers: { Authorization: 'Bearer nope' } });
      expect(wrong.status, path).toBe(401);
      const right = await rawRequest(`${t.url}${path}`, { headers: auth });
      expect(right.status, path).toBe(200);
    }
  });
});

describe('UI files and the token', () => {
  it('serves the UI page without the token, and nothing else under it but GET/HEAD', async () => {
    expect((await rawRequest(`${t.url}/`)).status).toBe(302);
    expect((await rawRequest(`${t.url}/dev-ui`)).status).toBe(302);
    const page = await rawRequest(`${t.url}/dev-ui/`);
    expect(page.status).toBe(200);
    expect(page.body).toBe('<html>ui</html>');
    expect((await rawRequest(`${t.url}/dev-ui/`, { method: 'HEAD' })).status).toBe(200);
    expect((await rawRequest(`${t.url}/dev-ui/missing.js`)).status).toBe(404);
    expect((await rawRequest(`${t.url}/dev-ui/`, { method: 'POST' })).status).toBe(401);
    // The API the page calls still needs the token, also when reached through dot segments.
    expect((await rawRequest(`${t.url}/list-apps`)).status).toBe(401);
    for (const path of ['/dev-ui/../list-apps', '/dev-ui/%2e%2e/list-apps', '/dev-ui/%2E%2E/version'])
      expect((await rawRequest(t.url, { path })).status, path).toBe(401);
    expect((await rawRequest(`${t.url}/dev-uix/list-apps`)).status).toBe(401);
  });
});

describe('load balancer probes', () => {
  it('/health and /ready answer without the token, whatever the Host (an instance address)', async () => {
    for (const path of ['/health', '/ready']) {
      const r = await rawRequest(`${t.url}${path}`, { headers: { Host: '10.0.0.8:8000' } });
      expect(r.status, path).toBe(200);
    }
    // Only the probes: the same request elsewhere is refused.
    expect((await rawRequest(`${t.url}/version`, { headers: { Host: '10.0.0.8:8000' } })).status).toBe(403);
  });
});

describe('body limit and content type', () => {
  it('refuses bodies over the limit with 413 (declared or streamed)', async () => {
    const big = JSON.stringify({ state: { blob: 'x'.repeat(4096) } });
    const r = await rawRequest(`${t.url}/apps/assistant/users/u/sessions`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...auth },
      body: big,
    });
    expect(r.status).toBe(413);
    const chunked = await fetch(`${t.url}/apps/assistant/users/u/sessions`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...auth },
      body: new ReadableStream({
        start(c) {
          c.enqueue(new TextEncoder().encode(big));
          c.close();
        },
      }),
      duplex: 'half',
    } as RequestInit);
    expect(chunked.status).toBe(413);
  });

  it('refuses non-JSON bodies with 415', async () => {
    const r = await rawRequest(`${t.url}/apps/assistant/users/u/sessions`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...auth },
      body: 'a=1',
    });
    expect(r.status).toBe(415);
  });
});

describe('listening', () => {
  it('binds 127.0.0.1 by default', async () => {
    const server = await createAdkServer({
      apps: {},
      sessionService: new InMemorySessionService(),
      a2a: false,
    });
    const listener = await listenAdkServer(server, { port: 0 });
    try {
      expect(listener.url).toBe(`http://127.0.0.1:${listener.port}`);
      expect(await (await fetch(`${listener.url}/list-apps`)).json()).toEqual([]);
    } finally {
      await listener.close();
    }
  });
});
