import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { extname, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { mimeTypeOf } from './mime-types.js';

/**
 * What `@adk/server` accepts as its `ui` option. Declared here structurally so this package has no
 * run-time dependency on the server or its HTTP framework.
 */
export interface AdkServerUi {
  /** Where the UI lives, without a trailing slash (e.g. `/dev-ui`). */
  basePath: string;
  /** Answers a request under `basePath`; `undefined` means "not mine" (the server answers 404). */
  fetch(request: Request): Promise<Response | undefined>;
}

export interface DevUiOptions {
  /** Path the UI is served under (default `/dev-ui`). */
  basePath?: string;
  /** Folder of the built assets (default: the `ui/` folder this package ships in `dist/`). */
  root?: string | URL;
}

interface Asset {
  body: Uint8Array;
  type: string;
  etag: string;
}

/** Files whose names carry a content hash (Vite's `assets/name-hash.ext`) never change. */
const HASHED = /^assets\/.+-[A-Za-z0-9_-]{6,}\.[a-z0-9]+$/;

function normalizeBasePath(path: string): string {
  const trimmed = `/${path}`.replace(/\/+/g, '/').replace(/\/$/, '');
  return trimmed === '' ? '' : trimmed;
}

/**
 * The ADK dev UI as a mountable Fetch handler: serves the prebuilt single-page app from this
 * package's `dist/ui`, with correct content types, long-lived caching for hashed assets,
 * revalidation for `index.html`, and `index.html` for any extension-less path (deep links).
 */
export function devUi(options: DevUiOptions = {}): AdkServerUi {
  const basePath = normalizeBasePath(options.basePath ?? '/dev-ui');
  const rootOption = options.root ?? new URL('./ui/', import.meta.url);
  const root = resolve(typeof rootOption === 'string' ? rootOption : fileURLToPath(rootOption));
  const cache = new Map<string, Promise<Asset | undefined>>();

  async function load(relative: string): Promise<Asset | undefined> {
    const file = resolve(root, relative);
    if (file !== root && !file.startsWith(root + sep)) return undefined;
    try {
      let body: Uint8Array = await readFile(file);
      if (relative === 'index.html') {
        // A <base> makes the relative asset URLs resolve from basePath whatever the page URL.
        const html = new TextDecoder().decode(body).replace('<head>', `<head><base href="${basePath}/">`);
        body = new TextEncoder().encode(html);
      }
      const etag = `"${createHash('sha1').update(body).digest('base64url').slice(0, 20)}"`;
      return { body, type: mimeTypeOf(file), etag };
    } catch {
      return undefined;
    }
  }

  function asset(relative: string): Promise<Asset | undefined> {
    let pending = cache.get(relative);
    if (!pending) {
      pending = load(relative);
      cache.set(relative, pending);
    }
    return pending;
  }

  return {
    basePath,
    async fetch(request: Request): Promise<Response | undefined> {
      if (request.method !== 'GET' && request.method !== 'HEAD') return undefined;
      const url = new URL(request.url);
      let path: string;
      try {
        path = decodeURIComponent(url.pathname);
      } catch {
        return undefined;
      }
      if (path === basePath) {
        return new Response(null, { status: 308, headers: { location: `${basePath}/${url.search}` } });
      }
      if (!path.startsWith(`${basePath}/`)) return undefined;
      let relative = path.slice(basePath.length + 1);
      if (relative.split('/').some((segment) => segment === '..') || relative.includes('\0'))
        return undefined;
      if (relative === '' || relative.endsWith('/')) relative = `${relative}index.html`;
      let found = await asset(relative);
      // Deep links (`/dev-ui/anything` without an extension) get the app shell.
      if (!found && extname(relative) === '') {
        relative = 'index.html';
        found = await asset(relative);
      }
      if (!found) return undefined;
      const headers = new Headers({
        'content-type': found.type,
        etag: found.etag,
        'cache-control': HASHED.test(relative) ? 'public, max-age=31536000, immutable' : 'no-cache',
        'x-content-type-options': 'nosniff',
      });
      if (request.headers.get('if-none-match') === found.etag) {
        return new Response(null, { status: 304, headers });
      }
      headers.set('content-length', String(found.body.byteLength));
      return new Response(request.method === 'HEAD' ? null : (found.body as Uint8Array<ArrayBuffer>), {
        status: 200,
        headers,
      });
    },
  };
}
