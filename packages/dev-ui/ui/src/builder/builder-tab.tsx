import { useEffect, useState } from 'preact/hooks';

/** What the Builder edits, and how it hands the chat to the draft and back. */
export interface BuilderTarget {
  /** The YAML app. */
  app: string;
  /** The chat's user (the draft's sessions are deleted with the draft). */
  user: string;
  /** Changes when `adk web` reloaded the app: files changed on disk are read again (unless edited here). */
  version: number;
  /** True while the chat talks to the app's draft. */
  trying: boolean;
  /** The draft was saved: chat with it. */
  onTry: () => void;
  /** The draft is gone (saved into the app, or cancelled): chat with the app again. */
  onLeave: (note?: string) => void;
}

type Panel = typeof import('./builder-panel.js');
let loading: Promise<Panel> | undefined;

/**
 * The Builder tab. Its editor (the YAML parser and the schema validators) is a chunk of its own,
 * fetched when the tab is first opened, so the chat never waits for it.
 */
export function BuilderTab(props: BuilderTarget) {
  const [panel, setPanel] = useState<Panel | undefined>();
  const [error, setError] = useState<string | undefined>();
  useEffect(() => {
    loading ??= import('./builder-panel.js');
    loading.then(setPanel, (e: unknown) => {
      loading = undefined;
      setError(e instanceof Error ? e.message : String(e));
    });
  }, []);
  if (error)
    return (
      <p class="pad" role="alert">
        Could not load the Builder: {error}
      </p>
    );
  if (!panel) return <p class="muted pad">Loading the Builder…</p>;
  return <panel.BuilderPanel key={props.app} {...props} />;
}
