import { useEffect, useState } from 'preact/hooks';
import { loadedRenderer, loadRenderer, type Renderer } from '../lib/renderer.js';

/** The Markdown/JSON renderer once its chunk is loaded (asking for it on first use), else `undefined`. */
export function useRenderer(): Renderer | undefined {
  const [renderer, setRenderer] = useState(loadedRenderer);
  useEffect(() => {
    if (renderer) return;
    let live = true;
    loadRenderer().then(
      (next) => {
        if (live) setRenderer(() => next);
      },
      // The chunk could not be fetched (server gone): keep the plain text.
      () => {},
    );
    return () => {
      live = false;
    };
  }, [renderer]);
  return renderer;
}
