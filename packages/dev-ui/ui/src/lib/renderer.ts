/**
 * The Markdown and JSON renderer (marked + highlight.js, over half of the page's script) is a chunk of
 * its own, fetched after the first paint: the page becomes usable without it, and until it is here
 * messages and JSON show as plain text (the same text, without formatting and colours).
 */
export type Renderer = typeof import('./render-html.js');

let loaded: Renderer | undefined;
let loading: Promise<Renderer> | undefined;

/** The renderer if its chunk has arrived, else `undefined`. */
export function loadedRenderer(): Renderer | undefined {
  return loaded;
}

/** Fetches the renderer's chunk once; a failed fetch is retried by the next call. */
export function loadRenderer(): Promise<Renderer> {
  loading ??= import('./render-html.js').then(
    (module) => {
      loaded = module;
      return module;
    },
    (error: unknown) => {
      loading = undefined;
      throw error;
    },
  );
  return loading;
}

/** Starts fetching the renderer when the page is idle, so the first message rarely waits for it. */
export function preloadRendererWhenIdle(): void {
  if (loading) return;
  const start = () => void loadRenderer().catch(() => {});
  if (typeof requestIdleCallback === 'function') requestIdleCallback(start, { timeout: 1000 });
  else setTimeout(start, 50);
}
