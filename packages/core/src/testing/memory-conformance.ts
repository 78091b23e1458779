import assert from 'node:assert/strict';
import { createEvent } from '../events/event.js';
import type { MemoryService } from '../memory/memory-service.js';
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
  ];
}
