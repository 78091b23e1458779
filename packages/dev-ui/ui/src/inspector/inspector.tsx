import { useRef } from 'preact/hooks';
import type { AdkEvent, JsonObject } from '../api/types.js';
import { BuilderTab, type BuilderTarget } from '../builder/builder-tab.js';
import { EvalTab } from '../eval/eval-tab.js';
import { pure } from '../lib/pure.js';
import { workflowStatus } from '../lib/workflow.js';
import { MemoryTab } from '../memory/memory-tab.js';
import type { RunRecord } from '../runs/runs-api.js';
import { RunsTab } from '../runs/runs-tab.js';
import { ScoresTab } from '../scores/scores-tab.js';
import { ArtifactsTab } from './artifacts-tab.js';
import { EventTab } from './event-tab.js';
import { GraphTab } from './graph-tab.js';
import { ModelTab } from './model-tab.js';
import { SkillsTab } from './skills-tab.js';
import { StateTab } from './state-tab.js';
import { TraceTab } from './trace-tab.js';
import { UsageTab } from './usage-tab.js';

export const TABS = [
  'event',
  'state',
  'model',
  'usage',
  'artifacts',
  'trace',
  'scores',
  'memory',
  'graph',
  'skills',
  'eval',
  'runs',
  'builder',
] as const;
export type Tab = (typeof TABS)[number];
const LABELS: Record<Tab, string> = {
  event: 'Event',
  state: 'State',
  model: 'Request/Response',
  usage: 'Usage',
  artifacts: 'Artifacts',
  trace: 'Trace',
  scores: 'Scores',
  memory: 'Memory',
  graph: 'Graph',
  skills: 'Skills',
  eval: 'Eval',
  runs: 'Runs',
  builder: 'Builder',
};

function InspectorInner({
  tab,
  onTab,
  app,
  user,
  session,
  events,
  selected,
  finalState,
  refreshKey,
  appVersion = 0,
  onSelect,
  attachedRun,
  onReattach,
  builder,
  onSessionChanged,
}: {
  tab: Tab;
  onTab: (t: Tab) => void;
  app?: string;
  user: string;
  session?: string;
  events: AdkEvent[];
  selected?: AdkEvent;
  finalState: JsonObject;
  refreshKey: number;
  /** Changes when the app was reloaded (`adk web` hot reload): the graph is fetched again. */
  appVersion?: number;
  onSelect: (id: string) => void;
  attachedRun?: string;
  onReattach?: (run: RunRecord) => void;
  /** Set for a YAML app: the Builder tab edits it. */
  builder?: BuilderTarget;
  /** The session changed outside a run (a profile edit in the Memory tab): read it again. */
  onSessionChanged?: () => void;
}) {
  const tabs = useRef<HTMLDivElement>(null);
  const authors = new Set(events.slice(-1).map((e) => e.author));
  const shown: readonly Tab[] = builder ? TABS : TABS.filter((t) => t !== 'builder');
  const move = (delta: number) => {
    const next = shown[(shown.indexOf(tab) + delta + shown.length) % shown.length] as Tab;
    onTab(next);
    tabs.current?.querySelector<HTMLButtonElement>(`#tab-${next}`)?.focus();
  };
  return (
    <aside class="inspector" aria-label="Inspector">
      <div
        class="tabs"
        role="tablist"
        aria-label="Inspector views"
        ref={tabs}
        onKeyDown={(e) => {
          if (e.key === 'ArrowRight') move(1);
          else if (e.key === 'ArrowLeft') move(-1);
        }}
      >
        {shown.map((t) => (
          <button
            key={t}
            id={`tab-${t}`}
            type="button"
            role="tab"
            aria-selected={tab === t}
            aria-controls="inspector-panel"
            tabIndex={tab === t ? 0 : -1}
            onClick={() => onTab(t)}
          >
            {LABELS[t]}
          </button>
        ))}
      </div>
      <div id="inspector-panel" class="panel" role="tabpanel" aria-labelledby={`tab-${tab}`}>
        {tab === 'event' ? <EventTab event={selected} /> : null}
        {tab === 'state' ? <StateTab events={events} selected={selected} finalState={finalState} /> : null}
        {tab === 'model' ? <ModelTab event={selected} /> : null}
        {tab === 'usage' ? (
          <UsageTab
            events={events}
            onSelect={onSelect}
            {...(app && session ? { app, user, session } : {})}
            refreshKey={refreshKey}
          />
        ) : null}
        {tab === 'artifacts' ? (
          <ArtifactsTab
            target={app && session ? { app, user, session } : undefined}
            refreshKey={refreshKey}
          />
        ) : null}
        {tab === 'trace' ? <TraceTab app={app} session={session} refreshKey={refreshKey} /> : null}
        {tab === 'scores' ? (
          <ScoresTab app={app} session={session} selected={selected} refreshKey={refreshKey} />
        ) : null}
        {tab === 'memory' ? (
          <MemoryTab
            app={app}
            user={user}
            session={session}
            refreshKey={refreshKey}
            onSelect={onSelect}
            {...(onSessionChanged ? { onChanged: onSessionChanged } : {})}
          />
        ) : null}
        {tab === 'graph' ? (
          <GraphTab key={appVersion} app={app} active={authors} status={workflowStatus(events)} />
        ) : null}
        {tab === 'skills' ? <SkillsTab app={app} state={finalState} /> : null}
        {tab === 'eval' ? <EvalTab app={app} user={user} session={session} /> : null}
        {tab === 'runs' ? (
          <RunsTab
            target={app && session ? { app, user, session } : undefined}
            refreshKey={refreshKey}
            {...(attachedRun ? { attachedRun } : {})}
            {...(onReattach ? { onReattach } : {})}
          />
        ) : null}
        {tab === 'builder' ? (
          builder ? (
            <BuilderTab {...builder} />
          ) : (
            <p class="muted pad">
              The Builder edits apps written in YAML (a root_agent.yaml); pick one in the top bar.
            </p>
          )
        ) : null}
      </div>
    </aside>
  );
}

/** The inspector; skips re-rendering while a reply streams (its inputs do not change then). */
export const Inspector = pure(InspectorInner);
