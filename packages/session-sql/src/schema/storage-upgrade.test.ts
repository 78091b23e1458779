import { createEvent } from '@adk/core';
import { sql } from 'kysely';
import { Migrator } from 'kysely/migration';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { suiteTitle, tableIndexes, testDatabases } from '../__fixtures__/databases.js';
import { flavorOf } from '../dialects/flavor.js';
import {
  type AnyKysely,
  detectFamily,
  migrateToLatest,
  SqlArtifactService,
  SqlMemoryService,
  SqlSessionService,
  sessionMigrations,
  tablesFor,
} from '../index.js';
import { eventInvocationIndex } from './event-index-migrations.js';

/** The migrations @adk/session-sql 0.1.0 shipped: sessions only. */
const RELEASED = ['0001_initial'];

for (const target of testDatabases()) {
  describe.skipIf(target.skipReason !== undefined)(
    suiteTitle(target, 'upgrade from the previous release'),
    () => {
      let db: AnyKysely;
      beforeAll(async () => {
        db = await target.open();
      });
      afterAll(async () => {
        await db?.destroy();
      });

      it('a database made by the previous release gains the artifact and memory tables in place; its sessions are intact', async () => {
        const tablePrefix = `up_${process.pid}_`;
        const tables = tablesFor(tablePrefix);
        const all = sessionMigrations(detectFamily(db), tables);
        const released = Object.fromEntries(RELEASED.map((name) => [name, all[name]!]));
        // The previous release's schema, made by its own migration list.
        const old = await new Migrator({
          db,
          provider: { getMigrations: async () => released },
          migrationTableName: tables.migrations,
          migrationLockTableName: tables.migrationsLock,
        }).migrateToLatest();
        expect(old.error).toBeUndefined();
        const invocationIndex = eventInvocationIndex(tables);
        const eventIndexes = async () => (await tableIndexes(db, tables.events)).map((i) => i.name);
        expect(await eventIndexes()).toContain(invocationIndex);
        // Rows as that release wrote them (its columns only), not through today's service.
        const f = flavorOf(detectFamily(db));
        const now = f.time(Date.now() * 1000);
        await sql`insert into ${sql.table(tables.sessions)} (app_name, user_id, id, state, created_at, updated_at)
          values ('app', 'u', 'old', ${f.json({})}, ${now}, ${now})`.execute(db);
        await sql`insert into ${sql.table(tables.userStates)} (app_name, user_id, state, updated_at)
          values ('app', 'u', ${f.json({ x: 1 })}, ${now})`.execute(db);
        const event = createEvent({
          invocationId: 'i',
          author: 'user',
          content: { role: 'user', parts: [{ text: 'remember the harbour' }] },
        });
        await sql`insert into ${sql.table(tables.events)}
          (id, app_name, user_id, session_id, seq, invocation_id, author, "timestamp", content, actions)
          values (${event.id}, 'app', 'u', 'old', 1, 'i', 'user', ${f.time(Math.round(event.timestamp * 1000))},
            ${f.json(event.content)}, ${f.json(event.actions)})`.execute(db);

        const upgrade = await migrateToLatest(db, { tablePrefix });
        expect(upgrade.results?.map((r) => [r.migrationName, r.status])).toEqual(
          Object.keys(all)
            .filter((name) => !RELEASED.includes(name))
            .map((name) => [name, 'Success']),
        );
        // Nothing reads events by invocation id: its index is gone (0014).
        expect(await eventIndexes()).not.toContain(invocationIndex);

        const after = new SqlSessionService({ db, tablePrefix, migrate: false });
        const reloaded = await after.getSession({ appName: 'app', userId: 'u', sessionId: 'old' });
        expect(reloaded?.state).toEqual({ 'user:x': 1 });
        expect(reloaded?.events.map((e) => e.content?.parts[0]?.text)).toEqual(['remember the harbour']);
        // Sessions from before time travel have no recorded initial state and no fork origin.
        expect(reloaded?.initialState).toBeUndefined();
        expect(reloaded?.forkedFrom).toBeUndefined();
        const artifacts = new SqlArtifactService({ db, tablePrefix, migrate: false });
        expect(
          await artifacts.saveArtifact({
            appName: 'app',
            userId: 'u',
            sessionId: 'old',
            filename: 'a',
            artifact: { text: 'x' },
          }),
        ).toBe(0);
        const memory = new SqlMemoryService({ db, tablePrefix, migrate: false });
        await memory.addSessionToMemory(reloaded!);
        expect(
          (await memory.searchMemory({ appName: 'app', userId: 'u', query: 'harbour' })).memories,
        ).toHaveLength(1);
      });
    },
  );
}
