import type { AdkEvent } from '../api/types.js';
import { usageTotals } from '../lib/conversation.js';

export function UsageTab({ events, onSelect }: { events: AdkEvent[]; onSelect: (id: string) => void }) {
  const steps = events.filter((e) => e.usageMetadata && !e.partial);
  const totals = usageTotals(events);
  return (
    <div class="pad">
      <h3>Session</h3>
      <dl class="totals">
        <div>
          <dt>model steps</dt>
          <dd>{totals.steps}</dd>
        </div>
        <div>
          <dt>prompt tokens</dt>
          <dd>{totals.prompt}</dd>
        </div>
        <div>
          <dt>response tokens</dt>
          <dd>{totals.candidates}</dd>
        </div>
        <div>
          <dt>total tokens</dt>
          <dd>{totals.total}</dd>
        </div>
      </dl>
      <h3>Per step</h3>
      {steps.length === 0 ? (
        <p class="muted">No event of this session reports token usage.</p>
      ) : (
        <table class="usage">
          <thead>
            <tr>
              <th scope="col">step</th>
              <th scope="col">prompt</th>
              <th scope="col">response</th>
              <th scope="col">total</th>
            </tr>
          </thead>
          <tbody>
            {steps.map((e, i) => (
              <tr key={e.id}>
                <th scope="row">
                  <button type="button" class="link" onClick={() => onSelect(e.id)}>
                    {i + 1}. {e.author}
                  </button>
                </th>
                <td>{e.usageMetadata?.promptTokenCount ?? 0}</td>
                <td>{e.usageMetadata?.candidatesTokenCount ?? 0}</td>
                <td>{e.usageMetadata?.totalTokenCount ?? 0}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
