import type { AdkEvent, JsonObject } from '../api/types.js';
import { JsonView } from '../components/json-view.js';
import { previewJson } from '../lib/format.js';
import { initialState, stateAfter, stateChanges } from '../lib/state.js';

export function StateTab({
  events,
  selected,
  finalState,
}: {
  events: AdkEvent[];
  selected?: AdkEvent;
  finalState: JsonObject;
}) {
  const index = selected ? events.findIndex((e) => e.id === selected.id) : -1;
  const initial = initialState(events, finalState);
  const changes = index >= 0 ? stateChanges(events, index, initial) : [];
  return (
    <div class="pad">
      {selected ? (
        <section aria-label="State delta of the selected event">
          <h3>Delta of this event</h3>
          {changes.length === 0 ? (
            <p class="muted">This event did not change the state.</p>
          ) : (
            <table class="delta">
              <thead>
                <tr>
                  <th scope="col">key</th>
                  <th scope="col">before</th>
                  <th scope="col">after</th>
                </tr>
              </thead>
              <tbody>
                {changes.map((c) => (
                  <tr key={c.key}>
                    <th scope="row">
                      <code>{c.key}</code>
                    </th>
                    <td class="before">
                      {c.beforeKnown ? <code>{previewJson(c.before, 60)}</code> : <em>unset</em>}
                    </td>
                    <td class="after">
                      {c.after === null ? <em>removed</em> : <code>{previewJson(c.after, 60)}</code>}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          <h3>State after this event</h3>
          <JsonView value={stateAfter(events, index, initial)} label="State after the selected event" />
        </section>
      ) : (
        <p class="muted">Select an event to see the change it made.</p>
      )}
      <h3>Current session state</h3>
      <JsonView value={finalState} label="Current session state" />
    </div>
  );
}
