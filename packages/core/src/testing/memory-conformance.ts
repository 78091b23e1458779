import assert from 'node:assert/strict';
import { contentText } from '../events/content.js';
import { createEvent, type Event } from '../events/event.js';
import type { MemoryEntry, MemoryService } from '../memory/memory-service.js';
import type { Session } from '../sessions/session.js';
import type { ConformanceSuite } from './conformance.js';

function sessionWith(id: string, userId: string, texts: string[]): Session {
  return {
    id,
    appName: 'conf-memory',
    userId,
    state: {},
    lastUpdateTime: 0,
    events: texts.map((t, i) =>
      createEvent({
        invocationId: 'i',
        author: i % 2 ? 'agent' : 'user',
        timestamp: 1000 + i,
        content: { role: i % 2 ? 'model' : 'user', parts: [{ text: t }] },
      }),
    ),
  };
}

const APP = 'conf-memory';

function turns(texts: string[], start = 10_000): Event[] {
  return texts.map((t, i) =>
    createEvent({
      invocationId: 'i',
      author: i % 2 ? 'agent' : 'user',
      timestamp: start + i * 1000,
      content: { role: i % 2 ? 'model' : 'user', parts: [{ text: t }] },
    }),
  );
}

function text(e: MemoryEntry): string {
  return contentText(e.content);
}

function full(m: MemoryService): Required<MemoryService> {
  for (const method of ['addEventsToMemory', 'addMemory', 'deleteMemory', 'deleteMemories'] as const)
    assert.equal(typeof m[method], 'function', `${method} is implemented`);
  return m as Required<MemoryService>;
}

const fact = (t: string, extra: Partial<MemoryEntry> = {}): MemoryEntry => ({
  kind: 'fact',
  content: { role: 'user', parts: [{ text: t }] },
  ...extra,
});

/** The behaviour every MemoryService must have. */
export function memoryServiceConformance(
  factory: () => MemoryService | Promise<MemoryService>,
): ConformanceSuite {
  return [
    {
      name: 'finds entries of the user’s sessions ranked by relevance, up to the limit',
      run: async () => {
        const m = await factory();
        await m.addSessionToMemory(
          sessionWith('s1', 'u1', [
            'I love hiking in the Alps',
            'Noted: hiking, Alps',
            'my cat is called Miso',
          ]),
        );
        await m.addSessionToMemory(sessionWith('s2', 'u2', ['hiking is my passion too']));
        const found = await m.searchMemory({ appName: 'conf-memory', userId: 'u1', query: 'hiking Alps' });
        assert.ok(found.memories.length >= 2);
        for (const e of found.memories) assert.equal(e.sessionId, 's1');
        const scores = found.memories.map((e) => e.score ?? 0);
        assert.deepEqual(
          scores,
          [...scores].sort((a, b) => b - a),
        );
        const limited = await m.searchMemory({
          appName: 'conf-memory',
          userId: 'u1',
          query: 'hiking',
          limit: 1,
        });
        assert.equal(limited.memories.length, 1);
        const none = await m.searchMemory({ appName: 'conf-memory', userId: 'u1', query: 'submarine' });
        assert.deepEqual(none.memories, []);
      },
    },
    {
      name: 'matching is Unicode-aware: case, accents composed or not, and scripts without spaces',
      run: async () => {
        const m = await factory();
        await m.addSessionToMemory(
          sessionWith('s1', 'u1', ['Rendez-vous au CAFÉ à Zürich', '東京で寿司を食べた']),
        );
        const cafe = await m.searchMemory({
          appName: 'conf-memory',
          userId: 'u1',
          query: 'cafe\u0301 zürich',
        });
        assert.equal(cafe.memories.length, 1);
        const tokyo = await m.searchMemory({ appName: 'conf-memory', userId: 'u1', query: '東京' });
        assert.equal(tokyo.memories.length, 1);
      },
    },
    {
      name: 'addEventsToMemory indexes turns with keywords, idempotently by event id',
      run: async () => {
        const m = full(await factory());
        const events = turns(['my favourite mountain is the Matterhorn', 'noted']);
        await m.addEventsToMemory({ appName: APP, userId: 'u1', sessionId: 's1', events });
        await m.addEventsToMemory({ appName: APP, userId: 'u1', sessionId: 's1', events });
        const found = await m.searchMemory({ appName: APP, userId: 'u1', query: 'matterhorn' });
        assert.equal(found.memories.length, 1);
        const [hit] = found.memories;
        assert.equal(hit?.kind ?? 'turn', 'turn');
        assert.deepEqual(hit?.eventIds, [events[0]?.id]);
        assert.equal(hit?.sessionId, 's1');
        assert.ok(hit?.id);
        assert.ok(hit?.keywords?.includes('matterhorn'));
        assert.ok(!hit?.keywords?.includes('the'), 'function words are not keywords');
        assert.ok(hit?.ranks && Object.values(hit.ranks).some((r) => r === 1), 'ranks say who found it');
      },
    },
    {
      name: 'scope, kinds, time range and minScore filter results',
      run: async () => {
        const m = full(await factory());
        await m.addEventsToMemory({
          appName: APP,
          userId: 'u1',
          sessionId: 's1',
          events: turns(['penguins in Antarctica'], 1_000),
        });
        await m.addEventsToMemory({
          appName: APP,
          userId: 'u1',
          sessionId: 's2',
          events: turns(['penguins at the zoo'], 50_000),
        });
        await m.addMemory({
          appName: APP,
          userId: 'u1',
          memories: [fact('the user studies penguins', { timestamp: 90_000 })],
        });
        const session = await m.searchMemory({
          appName: APP,
          userId: 'u1',
          query: 'penguins',
          scope: 'session',
          sessionId: 's2',
        });
        assert.deepEqual(session.memories.map(text), ['penguins at the zoo']);
        const facts = await m.searchMemory({
          appName: APP,
          userId: 'u1',
          query: 'penguins',
          kinds: ['fact'],
        });
        assert.deepEqual(facts.memories.map(text), ['the user studies penguins']);
        const turnsOnly = await m.searchMemory({
          appName: APP,
          userId: 'u1',
          query: 'penguins',
          kinds: ['turn'],
        });
        assert.equal(turnsOnly.memories.length, 2);
        const early = await m.searchMemory({
          appName: APP,
          userId: 'u1',
          query: 'penguins',
          timeRange: { to: 10_000 },
        });
        assert.deepEqual(early.memories.map(text), ['penguins in Antarctica']);
        const late = await m.searchMemory({
          appName: APP,
          userId: 'u1',
          query: 'penguins',
          timeRange: { from: 40_000, to: 60_000 },
        });
        assert.deepEqual(late.memories.map(text), ['penguins at the zoo']);
        const all = await m.searchMemory({ appName: APP, userId: 'u1', query: 'penguins zoo' });
        const top = Math.max(...all.memories.map((e) => e.score ?? 0));
        const strict = await m.searchMemory({
          appName: APP,
          userId: 'u1',
          query: 'penguins zoo',
          minScore: top,
        });
        assert.ok(strict.memories.length >= 1 && strict.memories.length < all.memories.length);
        for (const e of strict.memories) assert.ok((e.score ?? 0) >= top);
      },
    },
    {
      name: 'window returns the neighbouring turns of the same session, oldest first',
      run: async () => {
        const m = full(await factory());
        const events = turns([
          'one apple',
          'two bananas',
          'three cherries',
          'four dates',
          'five elderberries',
        ]);
        await m.addEventsToMemory({ appName: APP, userId: 'u1', sessionId: 's1', events });
        await m.addEventsToMemory({
          appName: APP,
          userId: 'u1',
          sessionId: 's2',
          events: turns(['six figs'], 12_500),
        });
        const found = await m.searchMemory({
          appName: APP,
          userId: 'u1',
          query: 'cherries',
          window: { before: 2, after: 1 },
        });
        assert.equal(found.memories.length, 1);
        assert.deepEqual(found.memories[0]?.neighbours?.map(text), [
          'one apple',
          'two bananas',
          'four dates',
        ]);
        const edge = await m.searchMemory({
          appName: APP,
          userId: 'u1',
          query: 'elderberries',
          window: { before: 1, after: 3 },
        });
        assert.deepEqual(edge.memories[0]?.neighbours?.map(text), ['four dates']);
      },
    },
    {
      name: 'facts come first, identical facts are stored once, a superseded fact is never returned',
      run: async () => {
        const m = full(await factory());
        await m.addEventsToMemory({
          appName: APP,
          userId: 'u1',
          sessionId: 's1',
          events: turns(['I live in Lisbon now, Lisbon is great, Lisbon!']),
        });
        const [old] = await m.addMemory({
          appName: APP,
          userId: 'u1',
          memories: [fact('the user lives in Porto', { validFrom: 1 })],
        });
        assert.ok(old);
        const [again] = await m.addMemory({
          appName: APP,
          userId: 'u1',
          memories: [fact('The user lives in  Porto')],
        });
        assert.equal(again, old, 'an identical fact is not stored twice');
        const before = await m.searchMemory({ appName: APP, userId: 'u1', query: 'user lives Lisbon Porto' });
        assert.equal(before.memories[0]?.kind, 'fact');
        const [current] = await m.addMemory({
          appName: APP,
          userId: 'u1',
          memories: [
            fact('the user lives in Lisbon', { validFrom: 2, supersedes: old, eventIds: ['e-src'] }),
          ],
        });
        const found = await m.searchMemory({ appName: APP, userId: 'u1', query: 'user lives Lisbon Porto' });
        assert.deepEqual(
          found.memories.map((e) => e.kind ?? 'turn'),
          ['fact', 'turn'],
        );
        assert.equal(found.memories[0]?.id, current);
        assert.equal(found.memories[0]?.supersedes, old);
        assert.equal(found.memories[0]?.validFrom, 2);
        assert.deepEqual(found.memories[0]?.eventIds, ['e-src']);
        assert.ok(!found.memories.some((e) => e.id === old));
      },
    },
    {
      name: 'deleteMemory and deleteMemories remove by id, session, kind and age',
      run: async () => {
        const m = full(await factory());
        await m.addEventsToMemory({
          appName: APP,
          userId: 'u1',
          sessionId: 's1',
          events: turns(['quokka one', 'quokka two'], 1_000),
        });
        await m.addEventsToMemory({
          appName: APP,
          userId: 'u1',
          sessionId: 's2',
          events: turns(['quokka three'], 90_000),
        });
        const ids = await m.addMemory({
          appName: APP,
          userId: 'u1',
          memories: [
            fact('quokka fact', { timestamp: 95_000 }),
            {
              kind: 'observation',
              content: { role: 'user', parts: [{ text: 'quokka observation' }] },
              timestamp: 96_000,
            },
          ],
        });
        assert.equal(ids.length, 2);
        const search = async () =>
          (await m.searchMemory({ appName: APP, userId: 'u1', query: 'quokka', limit: 20 })).memories
            .map(text)
            .sort();
        assert.equal(await m.deleteMemory({ appName: APP, userId: 'u1', id: ids[0] ?? '' }), true);
        assert.equal(await m.deleteMemory({ appName: APP, userId: 'u1', id: ids[0] ?? '' }), false);
        assert.equal(await m.deleteMemory({ appName: APP, userId: 'u2', id: ids[1] ?? '' }), false);
        assert.equal(await m.deleteMemories({ appName: APP, userId: 'u1', kinds: ['observation'] }), 1);
        assert.equal(await m.deleteMemories({ appName: APP, userId: 'u1', before: 50_000 }), 2);
        assert.deepEqual(await search(), ['quokka three']);
        assert.equal(await m.deleteMemories({ appName: APP, userId: 'u1', sessionId: 's2' }), 1);
        assert.deepEqual(await search(), []);
      },
    },
    {
      name: 'honours an aborted signal',
      run: async () => {
        const m = full(await factory());
        const signal = AbortSignal.abort(new Error('stop'));
        await assert.rejects(m.searchMemory({ appName: APP, userId: 'u1', query: 'x', signal }));
        await assert.rejects(
          m.addEventsToMemory({ appName: APP, userId: 'u1', events: turns(['x']), signal }),
        );
      },
    },
  ];
}
