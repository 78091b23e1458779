import { createEvent, InMemorySessionService, type Session, type SessionService } from '@adk/core';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { suiteTitle, testDatabases } from './__fixtures__/databases.js';
import { type AnyKysely, SqlSessionService } from './index.js';

const baseKeys = ['a', 'b', 'we"ird', 'back\\slash', 'dot.ted', 'br[0]', 'ünï', '$'];
const keyArb = fc
  .tuple(fc.constantFrom('', 'app:', 'user:', 'temp:'), fc.constantFrom(...baseKeys))
  .map(([prefix, k]) => prefix + k);
const deltaArb = fc.dictionary(keyArb, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 5 });
type Plan = { initial: Record<string, unknown>; steps: [number, Record<string, unknown>][] };
const planArb: fc.Arbitrary<Plan> = fc.record({
  initial: deltaArb,
  // Each step: which of two sessions (same user) or a third (other user) appends which delta.
  steps: fc.array(fc.tuple(fc.constantFrom(0, 1, 2), deltaArb), { maxLength: 8 }),
});

/** What a JSON store can hold: JSON's view of the value (-0 is 0, undefined keys vanish). */
const asJson = <T>(value: T): T => JSON.parse(JSON.stringify(value));

async function play(service: SessionService, appName: string, plan: Plan) {
  const sessions: Session[] = [
    await service.createSession({ appName, userId: 'u1', sessionId: 's0', state: plan.initial }),
    await service.createSession({ appName, userId: 'u1', sessionId: 's1' }),
    await service.createSession({ appName, userId: 'u2', sessionId: 's2' }),
  ];
  for (const [who, delta] of plan.steps) {
    await service.appendEvent(
      sessions[who] as Session,
      createEvent({ invocationId: 'i', author: 'a', actions: { stateDelta: delta } }),
    );
  }
  return Promise.all(sessions.map((s) => service.getSession({ appName, userId: s.userId, sessionId: s.id })));
}

for (const target of testDatabases()) {
  describe.skipIf(target.skipReason !== undefined)(suiteTitle(target, 'state merging (property)'), () => {
    let db: AnyKysely;
    beforeAll(async () => {
      db = await target.open();
    });
    afterAll(async () => {
      await db?.destroy();
    });

    it('routes and merges state exactly like the in-memory reference', async () => {
      const service = new SqlSessionService({ db });
      let run = 0;
      await fc.assert(
        fc.asyncProperty(planArb, async (plan) => {
          const appName = `prop-${process.pid}-${++run}`;
          const expected = await play(new InMemorySessionService(), appName, plan);
          const actual = await play(service, appName, plan);
          expect(actual.map((s) => s?.state)).toEqual(asJson(expected.map((s) => s?.state)));
          expect(actual.map((s) => s?.events.map((e) => e.actions.stateDelta))).toEqual(
            asJson(expected.map((s) => s?.events.map((e) => e.actions.stateDelta))),
          );
        }),
        { numRuns: 30 },
      );
    });
  });
}
