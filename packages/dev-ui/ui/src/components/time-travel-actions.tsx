import { useState } from 'preact/hooks';
import type { AdkEvent } from '../api/types.js';

export interface TimeTravelHandlers {
  /** Rewind before the message's invocation and send the edited text instead. */
  onEdit: (event: AdkEvent, text: string) => void;
  /** Rewind before the answer's invocation and send the same message again. */
  onRegenerate: (event: AdkEvent) => void;
  /** A new session with the history up to and including this event. */
  onFork: (event: AdkEvent) => void;
}

/** Edit (user messages), Regenerate (answers) and Fork from here (any event) under one event. */
export function TimeTravelActions({
  event,
  editable,
  regenerable,
  disabled,
  handlers,
}: {
  event: AdkEvent;
  editable: boolean;
  regenerable: boolean;
  disabled: boolean;
  handlers: TimeTravelHandlers;
}) {
  const original = (event.content?.parts ?? []).map((p) => p.text ?? '').join('');
  const [draft, setDraft] = useState<string | undefined>();
  if (draft !== undefined)
    return (
      <form
        class="edit-box"
        aria-label="Edit message"
        onSubmit={(e) => {
          e.preventDefault();
          const text = draft.trim();
          if (!text) return;
          setDraft(undefined);
          handlers.onEdit(event, text);
        }}
      >
        <textarea
          aria-label="Edited message"
          value={draft}
          rows={2}
          onInput={(e) => setDraft((e.target as HTMLTextAreaElement).value)}
        />
        <div class="edit-actions">
          <button type="submit" class="btn primary small" disabled={disabled || !draft.trim()}>
            Save &amp; send
          </button>
          <button type="button" class="btn small" onClick={() => setDraft(undefined)}>
            Cancel
          </button>
        </div>
      </form>
    );
  return (
    <div class="time-travel-actions">
      {editable ? (
        <button type="button" class="link small" disabled={disabled} onClick={() => setDraft(original)}>
          Edit
        </button>
      ) : null}
      {regenerable ? (
        <button
          type="button"
          class="link small"
          disabled={disabled}
          onClick={() => handlers.onRegenerate(event)}
        >
          Regenerate
        </button>
      ) : null}
      <button type="button" class="link small" disabled={disabled} onClick={() => handlers.onFork(event)}>
        Fork from here
      </button>
    </div>
  );
}
