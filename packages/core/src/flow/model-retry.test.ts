import { describe, expect, it } from 'vitest';
import { ApiCallError, RateLimitError } from '../http/index.js';
import {
  type Event,
  InMemoryRunner,
  LlmAgent,
  type LlmResponse,
  MODEL_RETRY_METADATA_KEY,
  userContent,
} from '../index.js';
import type { GenerateOptions, Llm, LlmRequest } from '../models/llm.js';

/** A model that fails with the given errors first (one per call), then answers. */
class BusyModel implements Llm {
  readonly model = 'busy';
  calls = 0;
  constructor(
    private readonly failures: Error[],
    private readonly midStream = false,
  ) {}
  async *generate(_request: LlmRequest, options?: GenerateOptions): AsyncGenerator<LlmResponse> {
    const failure = this.failures[this.calls++];
    if (failure && this.midStream && options?.stream) {
      yield { content: { role: 'model', parts: [{ text: 'Hal' }] }, partial: true };
    }
    if (failure) throw failure;
    yield { content: { role: 'model', parts: [{ text: 'Hello.' }] }, finishReason: 'STOP' };
  }
}

const busy = (status: 429 | 503, retryAfterMs?: number) =>
  status === 429
    ? new RateLimitError('Too many requests', {
        url: 'http://vendor',
        status,
        ...(retryAfterMs ? { retryAfterMs } : {}),
      })
    : new ApiCallError('Overloaded', {
        url: 'http://vendor',
        failure: 'http',
        status,
        ...(retryAfterMs ? { retryAfterMs } : {}),
      });

async function run(model: BusyModel, runConfig = {}) {
  const runner = new InMemoryRunner({ agent: new LlmAgent({ name: 'agent', model }) });
  const events: Event[] = [];
  for await (const e of runner.run({ userId: 'u', sessionId: 's', newMessage: userContent('hi'), runConfig }))
    events.push(e);
  const session = await runner.sessionService.getSession({ appName: 'agent', userId: 'u', sessionId: 's' });
  return { events, stored: session?.events ?? [], runs: (await runner.listRuns()).runs };
}

describe('model calls the vendor refuses for now', () => {
  it('a 429 with Retry-After is retried after that delay, and the run records it', async () => {
    const model = new BusyModel([busy(429, 40)]);
    const started = Date.now();
    const { stored, runs } = await run(model);
    expect(Date.now() - started).toBeGreaterThanOrEqual(35);
    expect(model.calls).toBe(2);
    const retry = stored.find((e) => e.customMetadata?.[MODEL_RETRY_METADATA_KEY]);
    expect(retry?.customMetadata?.[MODEL_RETRY_METADATA_KEY]).toMatchObject({
      attempt: 1,
      delayMs: 40,
      status: 429,
    });
    expect(stored.at(-1)?.content?.parts[0]?.text).toBe('Hello.');
    expect(runs[0]?.status).toBe('succeeded');
  });

  it('a 503 in the middle of a stream is retried instead of failing the run', async () => {
    const model = new BusyModel([busy(503, 10), busy(503, 10)], true);
    const { events, stored } = await run(model, { streaming: true });
    expect(model.calls).toBe(3);
    expect(events.some((e) => e.partial)).toBe(true);
    expect(stored.filter((e) => e.customMetadata?.[MODEL_RETRY_METADATA_KEY])).toHaveLength(2);
    expect(stored.at(-1)?.content?.parts[0]?.text).toBe('Hello.');
  });

  it('gives up past the attempts or the run budget, with the error event; other errors are not retried', async () => {
    const tooMany = new BusyModel([busy(429, 5), busy(429, 5), busy(429, 5)]);
    const a = await run(tooMany);
    expect(tooMany.calls).toBe(3);
    expect(a.stored.at(-1)?.errorCode).toBe('RATE_LIMIT');
    expect(a.runs[0]?.status).toBe('failed');

    const overBudget = new BusyModel([busy(503, 50)]);
    const b = await run(overBudget, { modelRetry: { maxTotalWaitMs: 20 } });
    expect(overBudget.calls).toBe(1);
    expect(b.stored.at(-1)?.errorMessage).toContain('Overloaded');

    const badRequest = new BusyModel([
      new ApiCallError('Bad request', { url: 'http://vendor', failure: 'http', status: 400 }),
    ]);
    await run(badRequest);
    expect(badRequest.calls).toBe(1);
  });
});
