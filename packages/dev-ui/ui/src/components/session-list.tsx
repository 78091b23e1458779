import type { ComponentChildren } from 'preact';
import type { Session } from '../api/types.js';
import { formatTime, shortId } from '../lib/format.js';
import { TrashIcon } from './icons.js';

export function SessionList({
  sessions,
  current,
  loading,
  onSelect,
  onCreate,
  onDelete,
  disabled,
  toolbar,
  footer,
}: {
  sessions: Session[];
  current?: string;
  loading: boolean;
  onSelect: (id: string) => void;
  onCreate: () => void;
  onDelete: (id: string) => void;
  disabled: boolean;
  /** Above the list (the search box). */
  toolbar?: ComponentChildren;
  /** Below the list (the pager). */
  footer?: ComponentChildren;
}) {
  const sorted = [...sessions].sort((a, b) => (b.lastUpdateTime ?? 0) - (a.lastUpdateTime ?? 0));
  return (
    <nav class="sessions" aria-label="Sessions">
      <div class="sessions-head">
        <h2>Sessions</h2>
        <button type="button" class="btn small" onClick={onCreate} disabled={disabled}>
          + New
        </button>
      </div>
      {toolbar}
      {loading && sorted.length === 0 ? <p class="muted pad">Loading…</p> : null}
      {!loading && sorted.length === 0 && !toolbar ? (
        <p class="muted pad">
          {disabled ? 'No app selected.' : 'No sessions yet. Send a message to start one.'}
        </p>
      ) : null}
      <ul>
        {sorted.map((s) => (
          <li key={s.id} class={s.id === current ? 'current' : ''}>
            <button
              type="button"
              class="session-item"
              aria-current={s.id === current ? 'page' : undefined}
              onClick={() => onSelect(s.id)}
              title={s.id}
            >
              <span class="session-id">{shortId(s.id)}</span>
              <span class="muted small">{formatTime(s.lastUpdateTime)}</span>
              {s.forkedFrom ? (
                <span class="muted small fork-origin" title={`Forked from ${s.forkedFrom.sessionId}`}>
                  ↳ fork of {shortId(s.forkedFrom.sessionId)}
                </span>
              ) : null}
            </button>
            <button
              type="button"
              class="link delete"
              aria-label={`Delete session ${s.id}`}
              onClick={() => {
                if (window.confirm(`Delete session ${s.id}?`)) onDelete(s.id);
              }}
            >
              <TrashIcon />
            </button>
          </li>
        ))}
      </ul>
      {footer}
    </nav>
  );
}
