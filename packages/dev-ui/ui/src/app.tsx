import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import { setTokenAsker } from './api/auth.js';
import { ApiError, api } from './api/client.js';
import type { AdkEvent, JsonObject, Part } from './api/types.js';
import { builderApi, draftAppName } from './builder/builder-api.js';
import { Composer } from './components/composer.js';
import {
  EarlierMessages,
  firstShownIndex,
  MESSAGE_WINDOW,
  MESSAGE_WINDOW_STEP,
} from './components/earlier-messages.js';
import { EventView } from './components/event-view.js';
import { MoonIcon, SunIcon } from './components/icons.js';
import { Markdown } from './components/markdown.js';
import { SessionList } from './components/session-list.js';
import type { TimeTravelHandlers } from './components/time-travel-actions.js';
import { TokenPrompt } from './components/token-prompt.js';
import { Inspector, type Tab } from './inspector/inspector.js';
import { applyStreamEvent } from './lib/apply-stream-event.js';
import { pendingConfirmations, REQUEST_CONFIRMATION, type StreamingBubble } from './lib/conversation.js';
import { preloadRendererWhenIdle } from './lib/renderer.js';
import { rewoundEventIds, userMessageOf } from './lib/time-travel.js';
import { readLocation, writeLocation } from './lib/url.js';
import { pendingRequestInputs } from './lib/workflow.js';
import { LivePanel } from './live/live-panel.js';
import { ReloadBanner, useAppReload } from './reload/reload-banner.js';
import { type RunRecord, runsApi } from './runs/runs-api.js';
import { LoadMoreSessions, SessionSearch } from './sessions/session-search.js';
import { useSessionPages } from './sessions/use-session-pages.js';
import { TracesView } from './traces/traces-view.js';

type Theme = 'light' | 'dark';
const THEME_KEY = 'adk-dev-ui-theme';

function initialTheme(): Theme {
  const saved = document.documentElement.dataset.theme;
  if (saved === 'dark' || saved === 'light') return saved;
  return window.matchMedia?.('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

let localIds = 0;

export function App() {
  const start = readLocation();
  const [theme, setTheme] = useState<Theme>(initialTheme);
  const [apps, setApps] = useState<string[] | undefined>();
  const [appsError, setAppsError] = useState<string | undefined>();
  // The app picked in the top bar; the chat talks to it, or to its unsaved draft while the Builder
  // tries one (`adk web` serves the draft as an app of its own).
  const [picked, setApp] = useState<string | undefined>(start.app);
  const [trying, setTrying] = useState<string | undefined>();
  const app = trying ?? picked;
  const [user] = useState(start.user ?? 'user');
  const pages = useSessionPages(user);
  const { sessions, setSessions } = pages;
  const [sessionQuery, setSessionQuery] = useState('');
  const [sessionId, setSessionId] = useState<string | undefined>(start.session);
  const [sessionError, setSessionError] = useState<string | undefined>();
  const [events, setEvents] = useState<AdkEvent[]>([]);
  // A long session renders its latest messages first; "Show earlier messages" renders more.
  const [firstShown, setFirstShown] = useState(0);
  const [state, setState] = useState<JsonObject>({});
  const [bubbles, setBubbles] = useState<StreamingBubble[]>([]);
  const [running, setRunning] = useState(false);
  const [notice, setNotice] = useState<{ kind: 'error' | 'info'; text: string } | undefined>();
  const [selectedId, setSelectedId] = useState<string | undefined>();
  const [tab, setTab] = useState<Tab>('event');
  // The Traces view (across sessions) replaces the conversation columns; `?view=traces` opens it.
  const [view, setView] = useState<'chat' | 'traces'>(() =>
    new URLSearchParams(window.location.search).get('view') === 'traces' ? 'traces' : 'chat',
  );
  const [refreshKey, setRefreshKey] = useState(0);
  // `adk web` hot reload: a banner while the app's files fail to load; a new version refreshes its graph.
  const [appVersion, setAppVersion] = useState(0);
  const reload = useAppReload(picked, () => setAppVersion((v) => v + 1));
  const [live, setLive] = useState(false);
  const abort = useRef<AbortController | undefined>(undefined);
  const shownWindowOf = useRef<string | undefined>(undefined);
  // The run the chat shows now: its invocation id (from its first event) or, when reattached, its
  // record. Stop cancels it through the runs routes, wherever it executes.
  const current = useRef<
    { app: string; session: string; invocationId?: string; runId?: string; stopping?: boolean } | undefined
  >(undefined);
  const [attachedRun, setAttachedRun] = useState<string | undefined>();
  const log = useRef<HTMLDivElement>(null);
  const stickToBottom = useRef(true);
  // A session created by the first message of a run: the run fills it, no reload needed.
  const createdByRun = useRef<string | undefined>(undefined);
  // The session on screen, read by a run's stream to drop events once the user has moved on.
  const shown = useRef<string | undefined>(sessionId);
  shown.current = sessionId;

  // A server started with a token answers 401 until the user gives it (see api/auth.ts).
  const [tokenPrompt, setTokenPrompt] = useState<
    { refused: boolean; resolve: (token: string) => void } | undefined
  >();
  // Layout effects (before the first paint), so the app list answer, often here already, enables the
  // composer in the first frame; the token asker is in place before any request can need it.
  useLayoutEffect(() => {
    setTokenAsker((refused) => new Promise((resolve) => setTokenPrompt({ refused, resolve })));
    return () => setTokenAsker(undefined);
  }, []);

  useEffect(() => {
    document.documentElement.dataset.theme = theme;
    try {
      localStorage.setItem(THEME_KEY, theme);
    } catch {}
  }, [theme]);

  const loadApps = useCallback(async () => {
    setAppsError(undefined);
    try {
      const list = await api.listApps();
      setApps(list);
      setApp((current) => current ?? (list.length === 1 ? list[0] : undefined));
    } catch (error) {
      setAppsError(message(error));
    } finally {
      performance.mark('adk:interactive');
      preloadRendererWhenIdle();
    }
  }, []);

  useLayoutEffect(() => {
    void loadApps();
  }, [loadApps]);

  const { refresh: refreshPages, loadMore: loadMorePages, find: findSession } = pages;
  const refreshSessions = useCallback(
    async (appName: string) => {
      try {
        await refreshPages(appName);
      } catch (error) {
        setNotice({ kind: 'error', text: `Could not list sessions: ${message(error)}` });
      }
    },
    [refreshPages],
  );
  const loadMoreSessions = useCallback(async () => {
    try {
      await loadMorePages();
    } catch (error) {
      setNotice({ kind: 'error', text: `Could not list sessions: ${message(error)}` });
    }
  }, [loadMorePages]);

  // Counts session loads, so an answer that arrives after a newer load (or a run) is dropped.
  const loads = useRef(0);
  const loadSession = useCallback(
    async (appName: string, id: string) => {
      setSessionError(undefined);
      const load = ++loads.current;
      const reopened = shownWindowOf.current === id;
      try {
        // A session opened anew shows its latest messages from a small answer first
        // (`numRecentEvents`); the whole log follows for the inspector and "Show earlier messages".
        const s = await api.getSession(
          appName,
          user,
          id,
          reopened ? {} : { numRecentEvents: MESSAGE_WINDOW },
        );
        if (load !== loads.current) return;
        const loaded = (s.events ?? []).filter((e) => !e.partial);
        // The same session again (after a run) keeps what the reader opened up.
        if (!reopened) setFirstShown(firstShownIndex(loaded.length));
        shownWindowOf.current = id;
        setEvents(loaded);
        setState(s.state ?? {});
        setRefreshKey((k) => k + 1);
        // Fewer events: that was all of them; more: the server sent the whole log (it ignores the param).
        if (reopened || (s.events ?? []).length !== MESSAGE_WINDOW) return;
        const whole = await api.getSession(appName, user, id);
        // A run started meanwhile reloads the session itself when it ends.
        if (load !== loads.current || abort.current) return;
        const all = (whole.events ?? []).filter((e) => !e.partial);
        setFirstShown(firstShownIndex(all.length));
        setEvents(all);
        setState(whole.state ?? {});
        setRefreshKey((k) => k + 1);
      } catch (error) {
        if (load !== loads.current) return;
        if (error instanceof ApiError && error.status === 404) {
          setEvents([]);
          setState({});
          setSessionError(`Session ${id} was not found in app ${appName}.`);
        } else {
          // Keep what is on screen; say why it could not be refreshed.
          setNotice({ kind: 'error', text: message(error) });
        }
      }
    },
    [user],
  );

  // App changes: its sessions, and the session from the URL if any.
  useEffect(() => {
    if (!app || !picked || !apps?.includes(picked)) return;
    void refreshSessions(app);
  }, [app, picked, apps, refreshSessions]);

  useEffect(() => {
    if (sessionId && sessionId === createdByRun.current) {
      createdByRun.current = undefined;
      return;
    }
    setBubbles([]);
    setSelectedId(undefined);
    setFirstShown(0);
    shownWindowOf.current = undefined;
    if (!app || !picked || !apps?.includes(picked) || !sessionId) {
      setEvents([]);
      setState({});
      setSessionError(undefined);
      return;
    }
    void loadSession(app, sessionId);
  }, [app, picked, apps, sessionId, loadSession]);

  useEffect(() => {
    // A draft's sessions are not the app's: the link names the app alone meanwhile.
    writeLocation({
      app: picked,
      session: trying ? undefined : sessionId,
      user: user === 'user' ? undefined : user,
    });
  }, [picked, trying, sessionId, user]);

  useEffect(() => {
    const onPop = () => {
      const loc = readLocation();
      setApp(loc.app);
      setTrying(undefined);
      setSessionId(loc.session);
    };
    window.addEventListener('popstate', onPop);
    return () => window.removeEventListener('popstate', onPop);
  }, []);

  // Keep the conversation scrolled to the newest content unless the reader scrolled up. An empty log
  // has nothing to scroll: skip reading its height, which would force a layout (on the first render
  // this effect runs just as the app list arrives, and would delay the composer).
  useEffect(() => {
    const el = log.current;
    if (el && stickToBottom.current && (events.length > 0 || bubbles.length > 0))
      el.scrollTop = el.scrollHeight;
  }, [events, bubbles]);

  const stop = useCallback(() => {
    const controller = abort.current;
    const run = current.current;
    if (!controller) return;
    if (run) run.stopping = true;
    const drop = () => controller.abort();
    if (!run || (!run.runId && !run.invocationId)) {
      // Nothing committed yet: closing /run_sse cancels the run on the server.
      drop();
      return;
    }
    // Cancel the run itself (it may execute on another instance); its stream then ends with the
    // cancelled event. If that cannot be done, or takes too long, the stream is dropped.
    const timer = setTimeout(drop, 3000);
    controller.signal.addEventListener('abort', () => clearTimeout(timer), { once: true });
    void (async () => {
      const runId =
        run.runId ??
        (
          await runsApi
            .findLive(run.app, user, run.session, run.invocationId as string)
            .catch(() => undefined)
        )?.runId;
      if (!runId) return drop();
      await runsApi.cancel(run.app, user, run.session, runId).catch(drop);
    })();
  }, [user]);

  // The Builder (YAML apps only): Try it chats with the saved draft in a new session; Save and
  // Cancel (or Back) return the chat to the app.
  const [yamlApp, setYamlApp] = useState(false);
  useEffect(() => {
    setYamlApp(false);
    if (!picked || !apps?.includes(picked)) return;
    let current = true;
    void builderApi.isYamlApp(picked).then((yes) => {
      if (current) setYamlApp(yes);
    });
    return () => {
      current = false;
    };
  }, [picked, apps]);
  const tryDraft = useCallback(() => {
    if (!picked) return;
    stop();
    setTrying(draftAppName(picked));
    setSessionId(undefined);
    setNotice(undefined);
  }, [picked, stop]);
  const leaveDraft = useCallback(
    (note?: string) => {
      if (trying) {
        stop();
        setTrying(undefined);
        setSessionId(undefined);
      }
      setNotice(note ? { kind: 'info', text: note } : undefined);
    },
    [stop, trying],
  );
  const builder = useMemo(
    () =>
      yamlApp && picked
        ? { app: picked, user, version: appVersion, trying: !!trying, onTry: tryDraft, onLeave: leaveDraft }
        : undefined,
    [yamlApp, picked, user, appVersion, trying, tryDraft, leaveDraft],
  );

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape' && abort.current) {
        e.preventDefault();
        stop();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [stop]);

  const chat = useMemo(() => ({ setBubbles, setEvents, setState }), []);

  const run = useCallback(
    async (parts: Part[]) => {
      if (!app || abort.current) return;
      setNotice(undefined);
      let id = sessionId;
      if (!id) {
        try {
          const created = await api.createSession(app, user);
          id = created.id;
          setSessions((list) => [created, ...list]);
          createdByRun.current = id;
          shown.current = id;
          setSessionId(id);
          setEvents([]);
          setState({});
        } catch (error) {
          setNotice({ kind: 'error', text: `Could not create a session: ${message(error)}` });
          return;
        }
      }
      const localId = `local-${++localIds}`;
      setEvents((list) => [
        ...list,
        { id: localId, author: 'user', timestamp: Date.now(), content: { role: 'user', parts } },
      ]);
      const controller = new AbortController();
      abort.current = controller;
      current.current = { app, session: id };
      setRunning(true);
      stickToBottom.current = true;
      try {
        for await (const event of api.run(
          { appName: app, userId: user, sessionId: id, newMessage: { role: 'user', parts } },
          controller.signal,
        )) {
          if (shown.current !== id) {
            controller.abort();
            break;
          }
          if (event.invocationId && current.current && !current.current.invocationId)
            current.current.invocationId = event.invocationId;
          applyStreamEvent(event, chat, localId);
        }
        if (current.current?.stopping) setNotice({ kind: 'info', text: 'Run stopped.' });
      } catch (error) {
        if (controller.signal.aborted) setNotice({ kind: 'info', text: 'Run stopped.' });
        else setNotice({ kind: 'error', text: message(error) });
      } finally {
        abort.current = undefined;
        current.current = undefined;
        setRunning(false);
        setBubbles([]);
        // The server's copy is the truth (ids of the user event, what was committed before a stop).
        if (shown.current === id) await loadSession(app, id);
        void refreshSessions(app);
      }
    },
    [app, sessionId, user, loadSession, refreshSessions, chat],
  );

  // Follows a run that goes on without this page (a background run, or one from before a reload)
  // into the chat: its events so far, then live ones. Leaving it (Stop cancels it; switching
  // sessions only closes the stream) never stops a background run by accident.
  const reattach = useCallback(
    async (record: RunRecord) => {
      const id = sessionId;
      if (!app || !id || abort.current) return;
      setNotice(undefined);
      const controller = new AbortController();
      abort.current = controller;
      current.current = { app, session: id, runId: record.runId, invocationId: record.invocationId };
      setAttachedRun(record.runId);
      setRunning(true);
      stickToBottom.current = true;
      try {
        for await (const item of runsApi.tail(app, user, id, record.runId, controller.signal)) {
          if (shown.current !== id) {
            controller.abort();
            break;
          }
          if (item.kind === 'event') applyStreamEvent(item.event, chat);
          else if (item.run.status === 'cancelled') setNotice({ kind: 'info', text: 'Run cancelled.' });
          else if (item.run.status === 'failed')
            setNotice({ kind: 'error', text: item.run.error?.message ?? 'The run failed.' });
        }
      } catch (error) {
        if (!controller.signal.aborted) setNotice({ kind: 'error', text: message(error) });
      } finally {
        abort.current = undefined;
        current.current = undefined;
        setAttachedRun(undefined);
        setRunning(false);
        setBubbles([]);
        if (shown.current === id) await loadSession(app, id);
        void refreshSessions(app);
      }
    },
    [app, sessionId, user, loadSession, refreshSessions, chat],
  );

  // A live conversation talks in the open session, or in a new one.
  const ensureLiveSession = useCallback(async (): Promise<string | undefined> => {
    if (!app) return undefined;
    if (sessionId) return sessionId;
    try {
      const created = await api.createSession(app, user);
      setSessions((list) => [created, ...list]);
      createdByRun.current = created.id;
      shown.current = created.id;
      setSessionId(created.id);
      setEvents([]);
      setState({});
      return created.id;
    } catch (error) {
      setNotice({ kind: 'error', text: `Could not create a session: ${message(error)}` });
      return undefined;
    }
  }, [app, sessionId, user]);

  const liveEnded = useCallback(
    (id: string) => {
      if (!app) return;
      if (shown.current === id) void loadSession(app, id);
      void refreshSessions(app);
    },
    [app, loadSession, refreshSessions],
  );

  const confirm = useCallback(
    (callId: string, confirmed: boolean, payload?: JsonObject) => {
      const response: JsonObject = payload === undefined ? { confirmed } : { confirmed, payload };
      void run([{ functionResponse: { id: callId, name: REQUEST_CONFIRMATION, response } }]);
    },
    [run],
  );

  const answer = useCallback(
    (callId: string, name: string, response: JsonObject) => {
      void run([{ functionResponse: { id: callId, name, response } }]);
    },
    [run],
  );

  const createSession = useCallback(async () => {
    if (!app) return;
    try {
      const created = await api.createSession(app, user);
      setSessions((list) => [created, ...list]);
      setSessionId(created.id);
    } catch (error) {
      setNotice({ kind: 'error', text: `Could not create a session: ${message(error)}` });
    }
  }, [app, user]);

  const deleteSession = useCallback(
    async (id: string) => {
      if (!app) return;
      try {
        await api.deleteSession(app, user, id);
        setSessions((list) => list.filter((s) => s.id !== id));
        if (id === sessionId) setSessionId(undefined);
      } catch (error) {
        setNotice({ kind: 'error', text: `Could not delete the session: ${message(error)}` });
      }
    },
    [app, user, sessionId],
  );

  const select = useCallback((id: string) => {
    setSelectedId(id);
    setTab((t) => (t === 'state' || t === 'model' ? t : 'event'));
  }, []);

  const showState = useCallback((id: string) => {
    setSelectedId(id);
    setTab('state');
  }, []);

  // Time travel: Edit and Regenerate rewind before a turn and send; Fork opens a new session.
  const [showRewound, setShowRewound] = useState(false);
  const eventsNow = useRef(events);
  eventsNow.current = events;
  const rewindAndSend = useCallback(
    async (invocationId: string | undefined, parts: Part[]) => {
      if (!app || !sessionId || !invocationId) return;
      try {
        await api.rewind(app, user, sessionId, invocationId);
        await loadSession(app, sessionId);
      } catch (error) {
        setNotice({ kind: 'error', text: `Could not rewind: ${message(error)}` });
        return;
      }
      await run(parts);
    },
    [app, sessionId, user, loadSession, run],
  );
  const timeTravel = useMemo<TimeTravelHandlers>(
    () => ({
      onEdit: (event, text) => void rewindAndSend(event.invocationId, [{ text }]),
      onRegenerate: (event) => {
        const asked = userMessageOf(eventsNow.current, event.invocationId);
        if (asked?.content?.parts) void rewindAndSend(asked.invocationId, asked.content.parts);
      },
      onFork: (event) => {
        if (!app || !sessionId) return;
        void (async () => {
          try {
            const fork = await api.fork(app, user, sessionId, event.id);
            setSessions((list) => [fork, ...list.filter((s) => s.id !== fork.id)]);
            setSessionId(fork.id);
            setNotice({ kind: 'info', text: `Forked into a new session ${fork.id}.` });
          } catch (error) {
            setNotice({ kind: 'error', text: `Could not fork: ${message(error)}` });
          }
        })();
      },
    }),
    [app, sessionId, user, rewindAndSend],
  );
  const rewound = useMemo(() => rewoundEventIds(events), [events]);
  // The last answer of each turn that a user message started can be regenerated.
  const regenerable = useMemo(() => {
    const ids = new Set<string>();
    const lastAnswer = new Map<string, string>();
    for (const e of events)
      if (e.author !== 'user' && e.invocationId && e.content?.parts?.some((p) => p.text && !p.thought))
        lastAnswer.set(e.invocationId, e.id);
    for (const [invocationId, id] of lastAnswer) if (userMessageOf(events, invocationId)) ids.add(id);
    return ids;
  }, [events]);

  const callArgs = useMemo(() => {
    const args = new Map<string, Record<string, unknown>>();
    for (const e of events)
      for (const p of e.content?.parts ?? [])
        if (p.functionCall?.id)
          args.set(p.functionCall.id, (p.functionCall.args ?? {}) as Record<string, unknown>);
    return args;
  }, [events]);
  const artifactTarget = useMemo(
    () => (app && sessionId ? { app, user, session: sessionId } : undefined),
    [app, user, sessionId],
  );
  const pending = useMemo(
    () => new Set([...pendingConfirmations(events), ...pendingRequestInputs(events)]),
    [events],
  );
  const visibleSessions = useMemo(() => {
    const q = sessionQuery.trim().toLowerCase();
    return q ? sessions.filter((s) => s.id.toLowerCase().includes(q)) : sessions;
  }, [sessions, sessionQuery]);
  const onReattach = useCallback((record: RunRecord) => void reattach(record), [reattach]);
  const unknownApp = !!picked && !!apps && !apps.includes(picked);
  const ready = !!app && !!apps && !unknownApp && !sessionError;
  const selected = events.find((e) => e.id === selectedId);
  const lastError = useMemo(() => events.findLast((e) => e.errorCode || e.errorMessage), [events]);

  return (
    <div class="shell">
      <header class="topbar">
        <h1>
          <span class="logo" aria-hidden="true">
            ◆
          </span>{' '}
          ADK Dev UI
        </h1>
        <label class="app-picker">
          <span>App</span>
          <select
            value={picked ?? ''}
            disabled={!apps || running}
            onChange={(e) => {
              const next = (e.target as HTMLSelectElement).value || undefined;
              setApp(next);
              setTrying(undefined);
              setSessionId(undefined);
            }}
          >
            <option value="">{apps ? 'Choose an app…' : 'Loading…'}</option>
            {apps?.map((a) => (
              <option key={a} value={a}>
                {a}
              </option>
            ))}
          </select>
        </label>
        <div class="status" role="status" aria-live="polite">
          {running ? (
            <span class="running">
              <span class="spinner" aria-hidden="true" /> Running… <kbd>Esc</kbd> stops
            </span>
          ) : null}
        </div>
        <button
          type="button"
          class="btn"
          aria-pressed={view === 'traces'}
          disabled={running}
          onClick={() => setView(view === 'traces' ? 'chat' : 'traces')}
        >
          Traces
        </button>
        <button
          type="button"
          class="btn icon"
          aria-label={`Switch to ${theme === 'dark' ? 'light' : 'dark'} theme`}
          onClick={() => setTheme(theme === 'dark' ? 'light' : 'dark')}
        >
          {theme === 'dark' ? <SunIcon /> : <MoonIcon />}
        </button>
      </header>
      {running ? <div class="progress" aria-hidden="true" /> : null}
      {picked && reload.error ? <ReloadBanner app={picked} error={reload.error} /> : null}
      {tokenPrompt ? (
        <TokenPrompt
          refused={tokenPrompt.refused}
          onSubmit={(token) => {
            setTokenPrompt(undefined);
            tokenPrompt.resolve(token);
          }}
        />
      ) : null}
      {appsError ? (
        <main class="empty-state">
          <div role="alert">
            <h2>Cannot reach the ADK server</h2>
            <p>{appsError}</p>
          </div>
          <button type="button" class="btn primary" onClick={() => void loadApps()}>
            Retry
          </button>
        </main>
      ) : view === 'traces' ? (
        <TracesView
          apps={apps ?? []}
          {...(picked ? { app: picked } : {})}
          onOpenSession={(a, u, id) => {
            const q = new URLSearchParams({ app: a, session: id, user: u });
            window.location.assign(`${window.location.pathname}?${q}`);
          }}
        />
      ) : (
        <div class={tab === 'builder' && builder ? 'columns builder-open' : 'columns'}>
          <SessionList
            sessions={visibleSessions}
            current={sessionId}
            loading={pages.loading}
            disabled={!ready && !sessionError}
            toolbar={
              sessions.length > 0 || sessionQuery ? (
                <SessionSearch
                  query={sessionQuery}
                  onQuery={setSessionQuery}
                  matches={visibleSessions.length}
                  disabled={!ready && !sessionError}
                  onFind={async (q) => {
                    const found = await findSession(q).catch(() => undefined);
                    if (found) {
                      if (found.id !== sessionId) stop();
                      setSessionId(found.id);
                    }
                    return !!found;
                  }}
                />
              ) : null
            }
            footer={
              <LoadMoreSessions
                hasMore={pages.hasMore}
                loading={pages.loading}
                onLoadMore={() => void loadMoreSessions()}
              />
            }
            onSelect={(id) => {
              // Leaving a conversation mid-run stops that run (its stream would land in the wrong view).
              if (id !== sessionId) stop();
              setSessionId(id);
            }}
            onCreate={() => {
              stop();
              void createSession();
            }}
            onDelete={(id) => void deleteSession(id)}
          />
          <main class="chat" aria-label="Conversation">
            {trying ? (
              <div class="draft-banner" role="status">
                Trying the unsaved draft of <strong>{picked}</strong>: answers come from the Builder’s draft.{' '}
                <button type="button" class="link" onClick={() => leaveDraft()}>
                  Back to {picked}
                </button>
              </div>
            ) : null}
            {notice ? (
              <div class={`notice ${notice.kind}`} role={notice.kind === 'error' ? 'alert' : 'status'}>
                {notice.text}
                <button type="button" class="link" aria-label="Dismiss" onClick={() => setNotice(undefined)}>
                  ×
                </button>
              </div>
            ) : null}
            <div
              class="log"
              ref={log}
              role="log"
              aria-label="Messages"
              aria-busy={running}
              // biome-ignore lint/a11y/noNoninteractiveTabindex: the log scrolls and must be reachable by keyboard
              tabIndex={0}
              onScroll={(e) => {
                const el = e.currentTarget as HTMLDivElement;
                stickToBottom.current = el.scrollHeight - el.scrollTop - el.clientHeight < 40;
              }}
            >
              {unknownApp ? (
                <div class="empty-state" role="alert">
                  <h2>Unknown app “{picked}”</h2>
                  <p>This server serves: {apps?.length ? apps.join(', ') : 'no apps'}. Pick one above.</p>
                </div>
              ) : !apps ? (
                <div class="empty-state">
                  <p class="muted">Connecting…</p>
                </div>
              ) : apps.length === 0 ? (
                <div class="empty-state">
                  <h2>No apps</h2>
                  <p>The server has no agents to serve. Add an app folder and restart it.</p>
                </div>
              ) : !app ? (
                <div class="empty-state">
                  <h2>Pick an app</h2>
                  <p>Choose an agent app in the top bar to start chatting.</p>
                </div>
              ) : sessionError ? (
                <div class="empty-state" role="alert">
                  <h2>Session not found</h2>
                  <p>{sessionError}</p>
                  <button type="button" class="btn primary" onClick={() => setSessionId(undefined)}>
                    Start a new conversation
                  </button>
                </div>
              ) : events.length === 0 && bubbles.length === 0 ? (
                <div class="empty-state">
                  <h2>{app}</h2>
                  <p class="muted">
                    {sessionId
                      ? 'This session has no messages yet.'
                      : 'Send a message to start a new session.'}
                  </p>
                </div>
              ) : null}
              {ready ? (
                <EarlierMessages
                  hidden={firstShown}
                  onShow={() => setFirstShown((n) => Math.max(0, n - MESSAGE_WINDOW_STEP))}
                />
              ) : null}
              {ready && rewound.size > 0 ? (
                <button
                  type="button"
                  class="btn small rewound-toggle"
                  aria-pressed={showRewound}
                  onClick={() => setShowRewound((v) => !v)}
                >
                  {showRewound ? 'Hide rewound turns' : `Show rewound turns (${rewound.size})`}
                </button>
              ) : null}
              {ready
                ? (firstShown > 0 ? events.slice(firstShown) : events).map((e, i, shown) =>
                    rewound.has(e.id) && !showRewound ? (
                      // One marker per rewound span, collapsed.
                      rewound.has(shown[i - 1]?.id ?? '') ? null : (
                        <p key={e.id} class="rewound-marker muted small" role="note">
                          ↶ rewound turns hidden
                        </p>
                      )
                    ) : (
                      <EventView
                        key={e.id}
                        event={e}
                        selected={e.id === selectedId}
                        onSelect={select}
                        onShowState={showState}
                        pending={pending}
                        running={running}
                        onConfirm={confirm}
                        onAnswer={answer}
                        rewound={rewound.has(e.id)}
                        timeTravel={e.id.startsWith('local-') ? undefined : timeTravel}
                        regenerable={regenerable.has(e.id)}
                        callArgs={callArgs}
                        {...(artifactTarget ? { artifactTarget } : {})}
                      />
                    ),
                  )
                : null}
              {bubbles.map((b) => (
                <article
                  key={b.key}
                  class="event from-agent streaming"
                  aria-label={`${b.author}, streaming`}
                  data-chunks={b.chunks}
                >
                  <header class="event-head">
                    <span class="author">{b.author}</span>
                    <span class="muted small"> typing…</span>
                  </header>
                  <div class="event-body">
                    {b.thought ? (
                      <details class="thought">
                        <summary>Thinking</summary>
                        <p>{b.thought}</p>
                      </details>
                    ) : null}
                    <Markdown text={b.text} />
                  </div>
                </article>
              ))}
              {lastError && !running ? <span class="sr-only">The last run ended with an error.</span> : null}
            </div>
            <LivePanel
              app={ready ? app : undefined}
              user={user}
              disabled={!ready || running}
              ensureSession={ensureLiveSession}
              onActive={setLive}
              onEnded={liveEnded}
            />
            <Composer
              disabled={!ready || live}
              disabledHint={live ? 'A live session is open: speak, or type in the live panel' : undefined}
              running={running}
              onSend={(parts) => void run(parts)}
              onStop={stop}
            />
          </main>
          <Inspector
            tab={tab}
            onTab={setTab}
            app={ready ? app : undefined}
            user={user}
            session={ready ? sessionId : undefined}
            events={events}
            selected={selected}
            finalState={state}
            refreshKey={refreshKey}
            appVersion={appVersion}
            onSelect={select}
            {...(attachedRun ? { attachedRun } : {})}
            onReattach={onReattach}
            {...(builder ? { builder } : {})}
            onSessionChanged={() => {
              if (app && sessionId) void loadSession(app, sessionId);
            }}
          />
        </div>
      )}
    </div>
  );
}
