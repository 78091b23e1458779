/**
 * The server's bearer token (`adk web --token` / `ADK_SERVER_TOKEN`). The page loads without it;
 * the first API answer 401 asks the user for it (through the asker the app registers), it is kept
 * in sessionStorage (this tab only) and sent as `Authorization: Bearer` on every API call.
 */

const KEY = 'adk-dev-ui-token';

/** Asks the user for the token; `refused` when the one sent was wrong. */
export type TokenAsker = (refused: boolean) => Promise<string>;

let asker: TokenAsker | undefined;
let asking: Promise<string> | undefined;

export function setTokenAsker(next: TokenAsker | undefined): void {
  asker = next;
}

export function storedToken(): string | undefined {
  try {
    return sessionStorage.getItem(KEY) ?? undefined;
  } catch {
    return undefined;
  }
}

function storeToken(token: string): void {
  try {
    sessionStorage.setItem(KEY, token);
  } catch {}
}

function withToken(init: RequestInit | undefined, token: string | undefined): RequestInit | undefined {
  if (!token) return init;
  const headers = new Headers(init?.headers);
  headers.set('authorization', `Bearer ${token}`);
  return { ...init, headers };
}

/** One `fetch` for the ADK API with the token kept so far, if any; a 401 is the caller's to handle. */
export function fetchWithStoredToken(path: string, init?: RequestInit): Promise<Response> {
  return fetch(path, withToken(init, storedToken()));
}

/** `fetch` for the ADK API: sends the token, and on a 401 asks for one and tries again. */
export async function apiFetch(path: string, init?: RequestInit): Promise<Response> {
  for (;;) {
    const sent = storedToken();
    const res = await fetch(path, withToken(init, sent));
    if (res.status !== 401 || !asker) return res;
    // Another request may have got a new token meanwhile: use it without asking again.
    if (storedToken() !== sent) continue;
    asking ??= asker(sent !== undefined).finally(() => {
      asking = undefined;
    });
    const token = await asking;
    if (storedToken() === sent) storeToken(token);
    init?.signal?.throwIfAborted();
  }
}
