import './sessions.css';
import { useState } from 'preact/hooks';

/** Filters the loaded sessions by id; an id not among them can be looked up on the server. */
export function SessionSearch({
  query,
  onQuery,
  matches,
  onFind,
  disabled,
}: {
  query: string;
  onQuery: (q: string) => void;
  /** How many loaded sessions match the query. */
  matches: number;
  /** Looks the exact id up on the server; resolves false when there is no such session. */
  onFind: (id: string) => Promise<boolean>;
  disabled: boolean;
}) {
  const [missing, setMissing] = useState<string | undefined>();
  const q = query.trim();
  return (
    <div class="session-search">
      <input
        type="search"
        aria-label="Search sessions"
        placeholder="Search by id…"
        value={query}
        disabled={disabled}
        onInput={(e) => {
          setMissing(undefined);
          onQuery((e.target as HTMLInputElement).value);
        }}
        onKeyDown={(e) => {
          if (e.key === 'Enter' && q && matches === 0)
            void onFind(q).then((found) => setMissing(found ? undefined : q));
        }}
      />
      {q && matches === 0 ? (
        missing === q ? (
          <p class="muted small">No session “{q}”.</p>
        ) : (
          <button
            type="button"
            class="link small"
            onClick={() => void onFind(q).then((found) => setMissing(found ? undefined : q))}
          >
            Look up “{q}” on the server
          </button>
        )
      ) : null}
    </div>
  );
}

/** The "Load more" button under a paged session list. */
export function LoadMoreSessions({
  hasMore,
  loading,
  onLoadMore,
}: {
  hasMore: boolean;
  loading: boolean;
  onLoadMore: () => void;
}) {
  if (!hasMore) return null;
  return (
    <div class="session-more">
      <button type="button" class="btn small" disabled={loading} onClick={onLoadMore}>
        {loading ? 'Loading…' : 'Load more'}
      </button>
    </div>
  );
}
