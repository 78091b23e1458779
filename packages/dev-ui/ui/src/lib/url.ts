/** The deep-link part of the page URL: `?app=x&session=y[&user=z]`. */
export interface Location {
  app?: string;
  session?: string;
  user?: string;
}

export function readLocation(): Location {
  const q = new URLSearchParams(window.location.search);
  const out: Location = {};
  for (const key of ['app', 'session', 'user'] as const) {
    const v = q.get(key);
    if (v) out[key] = v;
  }
  return out;
}

export function writeLocation(loc: Location, replace = false): void {
  const q = new URLSearchParams(window.location.search);
  for (const key of ['app', 'session', 'user'] as const) {
    const v = loc[key];
    if (v) q.set(key, v);
    else q.delete(key);
  }
  const search = q.toString();
  const url = `${window.location.pathname}${search ? `?${search}` : ''}`;
  if (url === `${window.location.pathname}${window.location.search}`) return;
  if (replace) window.history.replaceState(null, '', url);
  else window.history.pushState(null, '', url);
}
