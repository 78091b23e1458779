import { getEventListeners } from 'node:events';
import { createEvent } from '@adk/core';
import { EventSchemas as EventSchemasV1 } from '@ag-ui/core/schemas';
import { EventSchemas as EventSchemasV0 } from 'ag-ui-core-v0';
import { describe, expect, it } from 'vitest';
import { agUiRunner } from './__fixtures__/ag-ui-app.js';
import { createAgUiHandler, toAgUiEvents } from './index.js';

// How a run ends: only its last event, when an error, fails it; a cancelled run is told as such;
// the request's abort listener does not outlive the run.

type EventInit = Parameters<typeof createEvent>[0];

describe('how a run ends', () => {
  const model = (text: string) =>
    createEvent({ invocationId: 'i', author: 'a', content: { role: 'model', parts: [{ text }] } });
  const error = (errorCode: string) =>
    createEvent({
      invocationId: 'i',
      author: 'a',
      errorCode: errorCode as EventInit['errorCode'],
      errorMessage: `${errorCode} happened`,
    });

  async function collect(events: ReturnType<typeof createEvent>[], protocolVersion?: string) {
    const out: Record<string, unknown>[] = [];
    for await (const e of toAgUiEvents(events, { threadId: 't', runId: 'r', protocolVersion }))
      out.push(e as Record<string, unknown>);
    const schemas = protocolVersion ? EventSchemasV1 : EventSchemasV0;
    for (const e of out) expect(schemas.safeParse(e).success, JSON.stringify(e)).toBe(true);
    return out;
  }

  it('an error event the run goes on after does not end it', async () => {
    const out = await collect([error('BRANCH_FAILED'), model('still here')], '1.0.0');
    expect(out.map((e) => e.type)).not.toContain('RUN_ERROR');
    expect(out.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
    expect(JSON.stringify(out)).toContain('still here');
  });

  it("the run's last error event ends it with RUN_ERROR", async () => {
    const out = await collect([model('hm'), error('MODEL_ERROR')], '1.0.0');
    expect(out.at(-1)).toMatchObject({ type: 'RUN_ERROR', code: 'MODEL_ERROR' });
    expect(out.filter((e) => e.type === 'RUN_FINISHED')).toHaveLength(0);
  });

  it('a cancelled run is told as cancelled, not success', async () => {
    const v1 = await collect([model('hm'), error('CANCELLED')], '1.0.0');
    expect(v1.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'cancelled' } });
    // 0.x clients have no cancelled outcome.
    const v0 = await collect([model('hm'), error('CANCELLED')]);
    expect(v0.at(-1)).toMatchObject({ type: 'RUN_ERROR', code: 'CANCELLED' });
  });

  it("the request's abort listener is removed when the run ends", async () => {
    const handler = createAgUiHandler({ runner: agUiRunner() });
    const request = new Request('http://127.0.0.1/ag-ui', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        threadId: 'kept',
        runId: 'r',
        messages: [{ id: 'u', role: 'user', content: 'hi' }],
      }),
      signal: new AbortController().signal,
    });
    const response = await handler(request);
    expect(getEventListeners(request.signal, 'abort').length).toBeGreaterThan(0);
    expect(await response.text()).toContain('RUN_FINISHED');
    expect(getEventListeners(request.signal, 'abort')).toHaveLength(0);
  });
});
