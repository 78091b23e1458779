import type { AdkEvent } from '../api/types.js';
import { JsonView } from '../components/json-view.js';

export function EventTab({ event }: { event?: AdkEvent }) {
  if (!event) return <p class="muted pad">Click {'{ }'} on an event to see its full JSON.</p>;
  return (
    <div class="pad">
      <h3>
        Event <code>{event.id}</code>
      </h3>
      <p class="muted small">
        author <strong>{event.author}</strong>
        {event.invocationId ? (
          <>
            {' '}
            · invocation <code>{event.invocationId}</code>
          </>
        ) : null}
      </p>
      <JsonView value={event} label="Event JSON" />
    </div>
  );
}
