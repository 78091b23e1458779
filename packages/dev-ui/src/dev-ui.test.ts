import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildUi } from './__fixtures__/build-ui.js';
import { devUi } from './index.js';

let root: string;
let jsFile: string;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'adk-dev-ui-assets-'));
  await buildUi(root);
  // The entry script (index.html names it; lazily loaded chunks are fetched by it).
  jsFile = readdirSync(join(root, 'assets')).find(
    (f) => f.startsWith('index-') && f.endsWith('.js'),
  ) as string;
}, 60_000);

afterAll(() => rmSync(root, { recursive: true, force: true }));

const get = (url: string, init?: RequestInit) => new Request(`http://127.0.0.1:8000${url}`, init);

describe('devUi', () => {
  it('serves the app shell at its base path with a <base> so relative assets resolve', async () => {
    const ui = devUi({ root });
    expect(ui.basePath).toBe('/dev-ui');
    const res = await ui.fetch(get('/dev-ui/'));
    expect(res?.status).toBe(200);
    expect(res?.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res?.headers.get('cache-control')).toBe('no-cache');
    const html = await res?.text();
    expect(html).toContain('<base href="/dev-ui/">');
    expect(html).toContain(`./assets/${jsFile}`);
    expect(html).not.toMatch(/https?:\/\//);
  });

  it('serves hashed assets with their MIME type and a long cache life, and answers 304 to a known ETag', async () => {
    const ui = devUi({ root });
    const res = await ui.fetch(get(`/dev-ui/assets/${jsFile}`));
    expect(res?.status).toBe(200);
    expect(res?.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(res?.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const body = new Uint8Array(await (res as Response).arrayBuffer());
    expect(Buffer.from(body).equals(readFileSync(join(root, 'assets', jsFile)))).toBe(true);
    const again = await ui.fetch(
      get(`/dev-ui/assets/${jsFile}`, { headers: { 'if-none-match': res?.headers.get('etag') ?? '' } }),
    );
    expect(again?.status).toBe(304);
    const css = readdirSync(join(root, 'assets')).find((f) => f.endsWith('.css')) as string;
    expect((await ui.fetch(get(`/dev-ui/assets/${css}`)))?.headers.get('content-type')).toBe(
      'text/css; charset=utf-8',
    );
  });

  it('answers deep links with the app shell, keeps the query when adding the slash, and HEAD has no body', async () => {
    const ui = devUi({ root });
    const deep = await ui.fetch(get('/dev-ui/sessions/abc'));
    expect(deep?.status).toBe(200);
    expect(await deep?.text()).toContain('<div id="app">');
    const redirect = await ui.fetch(get('/dev-ui?app=x&session=y'));
    expect(redirect?.status).toBe(308);
    expect(redirect?.headers.get('location')).toBe('/dev-ui/?app=x&session=y');
    const head = await ui.fetch(get('/dev-ui/', { method: 'HEAD' }));
    expect(head?.status).toBe(200);
    expect(head?.body).toBeNull();
  });

  it('leaves other paths, missing files, other methods and path traversal to the server (undefined)', async () => {
    const ui = devUi({ root });
    expect(await ui.fetch(get('/list-apps'))).toBeUndefined();
    expect(await ui.fetch(get('/dev-uix/'))).toBeUndefined();
    expect(await ui.fetch(get('/dev-ui/assets/missing-abcdef12.js'))).toBeUndefined();
    expect(await ui.fetch(get('/dev-ui/', { method: 'POST', body: '{}' }))).toBeUndefined();
    expect(await ui.fetch(get('/dev-ui/%2e%2e/%2e%2e/package.json'))).toBeUndefined();
    expect(await ui.fetch(get('/dev-ui/..%2f..%2fpackage.json'))).toBeUndefined();
  });

  it('mounts under another base path', async () => {
    const ui = devUi({ root, basePath: 'tools/ui/' });
    expect(ui.basePath).toBe('/tools/ui');
    const res = await ui.fetch(get('/tools/ui/'));
    expect(await res?.text()).toContain('<base href="/tools/ui/">');
    expect(await ui.fetch(get('/dev-ui/'))).toBeUndefined();
  });
});
