import { useEffect, useState } from 'preact/hooks';
import {
  editProfile,
  type MemoryItem,
  type MemorySnapshot,
  memorySnapshot,
  type ObservationsView,
  type ProfileView,
  type SearchRankings,
  searchRankings,
} from './memory-api.js';

const text = (m: MemoryItem) => m.content.parts.map((p) => p.text ?? '').join('');
const time = (ms: number | undefined) => (ms === undefined ? '' : new Date(ms).toLocaleString());

/** A bar of `value` against the threshold `max` (a `<meter>`, red once the threshold is reached). */
function TokenBar({ label, value, max }: { label: string; value: number; max: number }) {
  return (
    <div class="memory-bar">
      <span class="small">
        {label}: {value.toLocaleString()} / {max.toLocaleString()} tokens
      </span>
      <meter aria-label={label} min={0} max={max} high={max * 0.999} value={Math.min(value, max)} />
    </div>
  );
}

function ProfilePane({
  profile,
  onSave,
}: {
  profile: ProfileView | null;
  onSave: (value: unknown) => Promise<void>;
}) {
  const shown = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v ?? {}, null, 2));
  const [draft, setDraft] = useState<string>(profile ? shown(profile.value) : '');
  const [error, setError] = useState<string | undefined>();
  const [saving, setSaving] = useState(false);
  const current = profile ? shown(profile.value) : '';
  useEffect(() => setDraft(current), [current]);
  if (!profile) return <p class="muted small">No agent of this app keeps a profile (memory.profile).</p>;
  const save = async () => {
    setError(undefined);
    let value: unknown = draft;
    if (profile.format === 'json') {
      try {
        value = JSON.parse(draft);
      } catch {
        setError('The profile is not valid JSON.');
        return;
      }
    }
    setSaving(true);
    try {
      await onSave(value);
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setSaving(false);
    }
  };
  return (
    <div>
      <p class="muted small">
        {profile.agent} · <code>{profile.stateKey}</code> · {profile.scope} scope · updated by{' '}
        {profile.update === 'tool' ? 'the update_profile tool' : 'a background job'}
      </p>
      <textarea
        class="memory-profile"
        aria-label="Profile"
        rows={Math.min(14, draft.split('\n').length + 1)}
        value={draft}
        onInput={(e) => setDraft((e.target as HTMLTextAreaElement).value)}
      />
      <div>
        <button type="button" onClick={() => void save()} disabled={saving || draft === current}>
          Save profile
        </button>
        {error ? (
          <span class="error-text small" role="alert">
            {' '}
            {error}
          </span>
        ) : null}
      </div>
      <h4>History</h4>
      {profile.history.length === 0 ? (
        <p class="muted small">No change in this session yet.</p>
      ) : (
        <ol class="memory-list" aria-label="Profile history">
          {profile.history.map((h) => (
            <li key={h.eventId} aria-label={`Profile change ${h.eventId}`}>
              <span class="small muted">
                {time(h.timestamp)} · {h.author} · event {h.eventId}
              </span>
              <pre class="small">{shown(h.value)}</pre>
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}

function ObservationsPane({ observations }: { observations: ObservationsView | null }) {
  if (!observations) return <p class="muted small">No agent of this app observes (memory.observe).</p>;
  const t = observations.thresholds;
  return (
    <div>
      <TokenBar label="Not yet observed" value={observations.unobservedTokens} max={t.observeAtTokens} />
      <TokenBar label="Observation log" value={observations.logTokens} max={t.reflectAtTokens} />
      <p class="muted small">
        Observes at {t.observeAtTokens.toLocaleString()} tokens, keeps the newest{' '}
        {t.keepRecentTokens.toLocaleString()}, reflects at {t.reflectAtTokens.toLocaleString()}.
      </p>
      {observations.failures.map((f) => (
        <p key={f.eventId} class="error-text small">
          {f.stage ?? 'observe'} refused ({f.reason ?? 'unknown'}) at {time(f.timestamp)}
        </p>
      ))}
      {observations.log.length === 0 ? (
        <p class="muted small">No observation in this session yet.</p>
      ) : (
        <ol class="memory-list" aria-label="Observation log">
          {observations.log.map((o) => (
            <li key={o.eventId}>
              <span class="small muted">
                {o.kind} · {time(o.timestamp)} · {o.tokens} tokens · stands for {o.eventIds.length} events
              </span>
              <pre class="small">{o.text}</pre>
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}

function Ranking({ title, items }: { title: string; items: MemoryItem[] | null }) {
  return (
    <section class="memory-ranking" aria-label={`${title} ranking`}>
      <h5>{title}</h5>
      {items === null ? (
        <p class="muted small">Not available on this store.</p>
      ) : items.length === 0 ? (
        <p class="muted small">Nothing found.</p>
      ) : (
        <ol>
          {items.map((m) => (
            <li key={m.id} class="small">
              <span class="badge">{m.kind ?? 'turn'}</span> {text(m)}{' '}
              <span class="muted">
                {m.score !== undefined ? `score ${m.score.toFixed(3)}` : ''}
                {m.ranks?.fullText ? ` · text #${m.ranks.fullText}` : ''}
                {m.ranks?.vector ? ` · vector #${m.ranks.vector}` : ''}
              </span>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

function Playground({ app, user }: { app: string; user: string }) {
  const [query, setQuery] = useState('');
  const [result, setResult] = useState<SearchRankings | undefined>();
  const [error, setError] = useState<string | undefined>();
  const run = async () => {
    setError(undefined);
    try {
      setResult(await searchRankings(app, user, query));
    } catch (e) {
      setError((e as Error).message);
    }
  };
  return (
    <div>
      <form
        class="memory-search"
        onSubmit={(e) => {
          e.preventDefault();
          void run();
        }}
      >
        <input
          type="search"
          aria-label="Memory query"
          placeholder="Search this user's memory"
          value={query}
          onInput={(e) => setQuery((e.target as HTMLInputElement).value)}
        />
        <button type="submit" disabled={!query.trim()}>
          Search
        </button>
      </form>
      {error ? (
        <p class="error-text small" role="alert">
          {error}
        </p>
      ) : null}
      {result ? (
        <div class="memory-rankings">
          <Ranking title="Full-text" items={result.fullText} />
          <Ranking title="Vector" items={result.vector} />
          <Ranking title="Fused" items={result.fused} />
        </div>
      ) : null}
    </div>
  );
}

/**
 * The user's memory as this session sees it: the profile (editable, with its history), the
 * observation log against its thresholds, what each turn recalled, facts with their sources, the
 * job queue, and a search playground with each ranking apart.
 */
export function MemoryTab({
  app,
  user,
  session,
  refreshKey,
  onSelect,
  onChanged,
}: {
  app?: string;
  user: string;
  session?: string;
  refreshKey: number;
  onSelect: (id: string) => void;
  onChanged?: () => void;
}) {
  const [snapshot, setSnapshot] = useState<MemorySnapshot | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [own, setOwn] = useState(0);
  useEffect(() => {
    if (!app || !session) return;
    let live = true;
    setError(undefined);
    memorySnapshot(app, user, session).then(
      (s) => live && setSnapshot(s),
      (e: Error) => live && setError(e.message),
    );
    return () => {
      live = false;
    };
  }, [app, user, session, refreshKey, own]);
  if (!app || !session) return <p class="muted pad">Pick or start a session to see its memory.</p>;
  if (error)
    return (
      <p class="error-text pad" role="alert">
        {error}
      </p>
    );
  if (!snapshot) return <p class="muted pad">Loading memory…</p>;
  const facts = snapshot.facts;
  const superseded = new Set((facts ?? []).map((f) => f.supersedes).filter(Boolean));
  const link = (id: string) => (
    <button key={id} type="button" class="link small" onClick={() => onSelect(id)}>
      {id}
    </button>
  );
  return (
    <div class="pad memory-tab">
      <section aria-label="Profile">
        <h4>Profile</h4>
        <ProfilePane
          profile={snapshot.profile}
          onSave={async (value) => {
            await editProfile(app, user, session, value);
            setOwn((n) => n + 1);
            onChanged?.();
          }}
        />
      </section>
      <section aria-label="Observations">
        <h4>Observations</h4>
        <ObservationsPane observations={snapshot.observations} />
      </section>
      <section aria-label="Recall per turn">
        <h4>Recall per turn</h4>
        {snapshot.recalls.length === 0 ? (
          <p class="muted small">No turn of this session recalled anything.</p>
        ) : (
          <ol class="memory-list">
            {snapshot.recalls.map((r) => (
              <li key={r.eventId} aria-label={`Recall of ${r.eventId}`}>
                <span class="small muted">
                  {time(r.timestamp)} · {r.author} · {link(r.eventId)}
                </span>
                <div class="small">
                  Query: <q>{r.query}</q>
                </div>
                {r.error ? (
                  <div class="error-text small">
                    {r.error.code}: {r.error.message}
                  </div>
                ) : null}
                <ul>
                  {r.memories.map((m, i) => (
                    <li key={m.id ?? i} class="small">
                      <span class="badge">{m.kind}</span> {m.id}{' '}
                      <span class="muted">
                        found by {m.ranker}
                        {m.score !== undefined ? `, score ${m.score.toFixed(3)}` : ''}
                        {m.neighbours ? `, with ${m.neighbours} neighbouring turns` : ''}
                        {m.sessionId ? `, from session ${m.sessionId}` : ''}
                      </span>
                    </li>
                  ))}
                </ul>
              </li>
            ))}
          </ol>
        )}
      </section>
      <section aria-label="Facts">
        <h4>Facts</h4>
        {facts === null ? (
          <p class="muted small">This memory store cannot list its facts.</p>
        ) : facts.length === 0 ? (
          <p class="muted small">No fact about this user yet.</p>
        ) : (
          <ul class="memory-list">
            {facts.map((f) => (
              <li key={f.id} class={superseded.has(f.id) ? 'muted' : ''}>
                <span class="small">{text(f)}</span>
                {superseded.has(f.id) ? <span class="badge">superseded</span> : null}
                <div class="small muted">
                  {time(f.validFrom ?? f.timestamp)}
                  {f.supersedes ? ` · replaces ${f.supersedes}` : ''} · sources:{' '}
                  {(f.eventIds ?? []).map((id) =>
                    f.sessionId === session ? link(id) : <code key={id}>{id} </code>,
                  )}
                </div>
              </li>
            ))}
          </ul>
        )}
      </section>
      <section aria-label="Memory jobs">
        <h4>Jobs</h4>
        {snapshot.jobs === null ? (
          <p class="muted small">This memory store has no job queue.</p>
        ) : (
          <div class="small">
            <p>
              {snapshot.jobs.stats.pending} pending · {snapshot.jobs.stats.running} running ·{' '}
              {snapshot.jobs.stats.done} done · {snapshot.jobs.stats.failed} failed
            </p>
            <table class="usage">
              <thead>
                <tr>
                  <th>kind</th>
                  <th>pending</th>
                  <th>running</th>
                  <th>done</th>
                  <th>failed</th>
                </tr>
              </thead>
              <tbody>
                {Object.entries(snapshot.jobs.byKind).map(([kind, c]) => (
                  <tr key={kind}>
                    <td>{kind}</td>
                    <td>{c.pending ?? 0}</td>
                    <td>{c.running ?? 0}</td>
                    <td>{c.done ?? 0}</td>
                    <td>{c.failed ?? 0}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            {snapshot.jobs.failures.map((j) => (
              <p key={j.id} class="error-text">
                {j.kind} ({j.status}, {j.attempts} attempts): {j.lastError}
              </p>
            ))}
          </div>
        )}
      </section>
      <section aria-label="Search playground">
        <h4>Search playground</h4>
        <Playground app={app} user={user} />
      </section>
    </div>
  );
}
