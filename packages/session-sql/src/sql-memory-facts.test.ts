import { contentText, createEvent, extractFacts, FactsExtractionError, userContent } from '@adk/core';
import { ScriptedModel } from '@adk/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { suiteTitle, testDatabases } from './__fixtures__/databases.js';
import { type AnyKysely, SqlMemoryService } from './index.js';

const tablePrefix = `memfacts_${process.pid}_`;

/** Answers the facts the test queues, replacing "<old>" by the id of the current fact shown first. */
function extractor(answers: string[]) {
  return new ScriptedModel({
    respond: (request) => {
      const shown = /^- \[(\S+)\]/m.exec(contentText(request.contents.at(-1)))?.[1] ?? 'none';
      return (answers.shift() ?? '{"facts":[]}').replace('<old>', shown);
    },
  });
}

const turn = (text: string) => [
  createEvent({ invocationId: 'i', author: 'user', content: userContent(text) }),
];

for (const target of testDatabases()) {
  describe.skipIf(target.skipReason !== undefined)(suiteTitle(target, 'facts on SqlMemoryService'), () => {
    let db: AnyKysely;
    let memory: SqlMemoryService;
    beforeAll(async () => {
      db = await target.open();
      memory = new SqlMemoryService({ db, tablePrefix });
      await memory.migrate();
    });
    afterAll(async () => {
      await db?.destroy();
    });

    it('identical facts are stored once; a superseded fact is never returned as current', async () => {
      const userId = `u-${target.name}`;
      const scope = { memory, appName: 'app', userId };
      const model = extractor([
        '{"facts":[{"text":"The user\'s boat is a sloop named Ariel."}]}',
        '{"facts":[{"text":"The user\'s boat is a sloop named Ariel."}]}',
        '{"facts":[{"text":"The user\'s boat is a ketch named Brisa.","supersedes":"<old>","validFrom":"2026-03-01"}]}',
      ]);
      const [first] = await extractFacts(
        { model },
        { ...scope, events: turn('my boat is a sloop named Ariel') },
      );
      const [again] = await extractFacts({ model }, { ...scope, events: turn('yes, the sloop Ariel') });
      expect(again).toBe(first);
      await extractFacts({ model }, { ...scope, events: turn('I sold Ariel; now a ketch named Brisa') });
      const { memories } = await memory.searchMemory({
        appName: 'app',
        userId,
        query: 'boat sloop Ariel ketch',
        limit: 20,
      });
      const facts = memories.filter((m) => m.kind === 'fact');
      expect(facts.map((f) => contentText(f.content))).toEqual(["The user's boat is a ketch named Brisa."]);
      expect(facts[0]?.supersedes).toBe(first);
      expect(facts[0]?.validFrom).toBe(Date.parse('2026-03-01'));
      expect(memories.some((m) => m.id === first)).toBe(false);
    });

    it('a malformed answer writes nothing', async () => {
      const userId = `m-${target.name}`;
      const model = extractor(['{"facts":[{"text":"The user has a dinghy."},{"txt":"oops"}]}']);
      await expect(
        extractFacts({ model }, { memory, appName: 'app', userId, events: turn('I have a dinghy') }),
      ).rejects.toBeInstanceOf(FactsExtractionError);
      const { memories } = await memory.searchMemory({ appName: 'app', userId, query: 'dinghy' });
      expect(memories).toEqual([]);
    });
  });
}
