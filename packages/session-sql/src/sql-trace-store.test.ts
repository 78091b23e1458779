import { type StoredSpan, TraceSummarizer, type TraceSummary } from '@adk/core';
import { type KyselyPlugin, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { suiteTitle, tableIndexes, testDatabases } from './__fixtures__/databases.js';
import { type AnyKysely, SqlTraceStore } from './index.js';
import { sessionMigrator } from './schema/migrations.js';

// Spans and trace summaries in the sessions' database: written, queried by every filter, paged,
// linked to events, and pruned by age and count.

const MS = 1e6;

/**
 * Records each trace write statement a store sends (before it runs, so a failed one is listed too):
 * `insert` for a plain insert, `upsert` for one with conflict handling.
 */
function recordTraceWrites(): { plugin: KyselyPlugin; kinds: string[] } {
  const kinds: string[] = [];
  const plugin: KyselyPlugin = {
    transformQuery({ node }) {
      // The statement's text is in its raw nodes' fragments (values may be bigints).
      const text = JSON.stringify(node, (_key, value) => (typeof value === 'bigint' ? String(value) : value));
      if (text.includes('jsonb_to_recordset')) kinds.push(text.includes('on conflict') ? 'upsert' : 'insert');
      return node;
    },
    transformResult: async ({ result }) => result,
  };
  return { plugin, kinds };
}

function trace(
  id: string,
  startMs: number,
  options: {
    app?: string;
    user?: string;
    session?: string;
    fail?: boolean;
    tool?: string;
    durationMs?: number;
  } = {},
): { spans: StoredSpan[]; summary: TraceSummary } {
  const start = startMs * MS;
  const end = start + (options.durationMs ?? 10) * MS;
  const session = options.session ?? `s-${id}`;
  const root: StoredSpan = {
    name: 'invocation',
    trace_id: id,
    span_id: `${id}-root`,
    parent_span_id: null,
    start_time: start,
    end_time: end,
    attributes: {
      'adk.app_name': options.app ?? 'app',
      'adk.user_id': options.user ?? 'u1',
      'adk.invocation_id': `e-${id}`,
      'gen_ai.conversation.id': session,
    },
    status: 'unset',
  };
  const chat: StoredSpan = {
    name: 'call_llm',
    trace_id: id,
    span_id: `${id}-chat`,
    parent_span_id: root.span_id,
    start_time: start + MS,
    end_time: start + 2 * MS,
    attributes: {
      'gen_ai.operation.name': 'chat',
      'gen_ai.conversation.id': session,
      'gen_ai.usage.input_tokens': 7,
      'gen_ai.usage.output_tokens': 3,
      'gcp.vertex.agent.event_id': `ev-${id}`,
    },
    status: 'unset',
  };
  const tool: StoredSpan = {
    name: `execute_tool ${options.tool ?? 'lookup'}`,
    trace_id: id,
    span_id: `${id}-tool`,
    parent_span_id: root.span_id,
    start_time: start + 3 * MS,
    end_time: start + 4 * MS,
    attributes: { 'gen_ai.tool.name': options.tool ?? 'lookup', 'gen_ai.conversation.id': session },
    status: options.fail ? 'error' : 'unset',
    ...(options.fail ? { status_message: 'boom' } : {}),
  };
  const summarizer = new TraceSummarizer();
  summarizer.add(chat);
  summarizer.add(tool);
  const summary = summarizer.add(root);
  if (!summary) throw new Error('no summary');
  return { spans: [chat, tool, root], summary };
}

for (const target of testDatabases()) {
  describe.skipIf(target.skipReason !== undefined)(suiteTitle(target, 'trace store'), () => {
    let db: AnyKysely;
    const prefix = (name: string) => `tr_${name}_${process.pid}_`;
    beforeAll(async () => {
      db = await target.open();
    });
    afterAll(async () => {
      await db?.destroy();
    });

    it('stores spans and summaries and answers every filter, newest first', async () => {
      const store = new SqlTraceStore({ db, tablePrefix: prefix('query') });
      const base = Date.now() - 60_000;
      const all = [
        trace('t1', base, { app: 'a', user: 'u1', session: 's1' }),
        trace('t2', base + 1000, { app: 'a', user: 'u2', session: 's2', fail: true }),
        trace('t3', base + 2000, { app: 'b', user: 'u1', session: 's1', tool: 'weather', durationMs: 500 }),
      ];
      await store.writeSpans(
        all.flatMap((t) => t.spans),
        all.map((t) => t.summary),
      );
      const ids = async (q: Parameters<SqlTraceStore['listTraces']>[0]) =>
        (await store.listTraces(q)).traces.map((t) => t.trace_id);
      expect(await ids({})).toEqual(['t3', 't2', 't1']);
      expect(await ids({ appName: 'a' })).toEqual(['t2', 't1']);
      expect(await ids({ userId: 'u1' })).toEqual(['t3', 't1']);
      expect(await ids({ sessionId: 's1' })).toEqual(['t3', 't1']);
      expect(await ids({ invocationId: 'e-t2' })).toEqual(['t2']);
      expect(await ids({ from: base + 500, to: base + 1500 })).toEqual(['t2']);
      expect(await ids({ status: 'error' })).toEqual(['t2']);
      expect(await ids({ minDurationMs: 100 })).toEqual(['t3']);
      expect(await ids({ maxDurationMs: 100 })).toEqual(['t2', 't1']);
      expect(await ids({ attribute: { key: 'gen_ai.tool.name', value: 'weather' } })).toEqual(['t3']);
      expect(await ids({ attribute: { key: 'gen_ai.usage.input_tokens', value: '7' } })).toEqual([
        't3',
        't2',
        't1',
      ]);

      const [t2] = (await store.listTraces({ status: 'error' })).traces;
      expect(t2).toMatchObject({
        app_name: 'a',
        user_id: 'u2',
        session_id: 's2',
        status: 'error',
        span_count: 3,
        error_count: 1,
        input_tokens: 7,
        output_tokens: 3,
      });

      const first = await store.listTraces({ limit: 2 });
      expect(first.traces.map((t) => t.trace_id)).toEqual(['t3', 't2']);
      const second = await store.listTraces({ limit: 2, cursor: first.nextCursor as string });
      expect(second.traces.map((t) => t.trace_id)).toEqual(['t1']);
      expect(second.nextCursor).toBeUndefined();
      await expect(store.listTraces({ cursor: 'garbage' })).rejects.toMatchObject({ code: 'VALIDATION' });

      const spans = await store.traceSpans('t2');
      expect(spans.map((s) => s.name)).toEqual(['invocation', 'call_llm', 'execute_tool lookup']);
      expect(spans[2]).toMatchObject({ status: 'error', status_message: 'boom', parent_span_id: 't2-root' });
      expect((await store.sessionSpans('s1')).map((s) => s.trace_id).sort()).toEqual([
        't1',
        't1',
        't1',
        't3',
        't3',
        't3',
      ]);
      expect(await store.eventSpan('ev-t3')).toMatchObject({ name: 'call_llm', trace_id: 't3' });
      expect(await store.eventSpan('missing')).toBeUndefined();
    });

    it('replaces a span written again (payload or event link added later) and keeps NUL-free JSON', async () => {
      const store = new SqlTraceStore({ db, tablePrefix: prefix('upsert') });
      const { spans, summary } = trace('u1', Date.now());
      await store.writeSpans(spans, [summary]);
      const chat = { ...spans[0], attributes: { ...spans[0]?.attributes, note: 'a\u0000b' } } as StoredSpan;
      await store.writeSpans([chat], []);
      const stored = await store.traceSpans('u1');
      expect(stored).toHaveLength(3);
      expect(stored.find((s) => s.name === 'call_llm')?.attributes.note).toBe('ab');
    });

    it('writes the same span record again, annotated after its write, as an upsert at once', async () => {
      const writes = recordTraceWrites();
      const store = new SqlTraceStore({ db: db.withPlugin(writes.plugin), tablePrefix: prefix('again') });
      const { spans, summary } = trace('a1', Date.now());
      await store.writeSpans(spans, [summary]);
      const chat = spans[0] as StoredSpan;
      chat.attributes['gcp.vertex.agent.event_id'] = 'ev-late';
      await store.writeSpans([chat], []);
      expect(await store.traceSpans('a1')).toHaveLength(3);
      expect(await store.eventSpan('ev-late')).toMatchObject({ span_id: 'a1-chat' });
      // Postgres: a plain insert for the new rows, then one upsert (no failed plain insert first).
      if (target.name !== 'sqlite') expect(writes.kinds).toEqual(['insert', 'upsert']);
    });

    it('writes a batch sent again after a write that had committed (a retry) as upserts', async () => {
      const writes = recordTraceWrites();
      const store = new SqlTraceStore({ db: db.withPlugin(writes.plugin), tablePrefix: prefix('retry') });
      const { spans, summary } = trace('r1', Date.now());
      await store.writeSpans(spans, [summary]);
      // The same rows as new objects, as a retry after an ambiguous failure would send them.
      const copies = spans.map((span) => ({ ...span, attributes: { ...span.attributes, retried: true } }));
      await store.writeSpans(copies, [{ ...summary, span_count: 4 }]);
      expect((await store.listTraces()).traces).toMatchObject([{ trace_id: 'r1', span_count: 4 }]);
      expect((await store.traceSpans('r1')).map((span) => span.attributes.retried)).toEqual([
        true,
        true,
        true,
      ]);
      // Only summaries sent again: the same.
      await store.writeSpans([], [{ ...summary, span_count: 5 }]);
      expect((await store.listTraces()).traces).toMatchObject([{ trace_id: 'r1', span_count: 5 }]);
      // Postgres: each batch sent again was tried as a plain insert, which met its rows, then upserted.
      if (target.name !== 'sqlite')
        expect(writes.kinds).toEqual(['insert', 'insert', 'upsert', 'insert', 'upsert']);
    });

    it('writes a batch of several statements again, whole, as upserts when its last statement meets a row', async () => {
      const writes = recordTraceWrites();
      const store = new SqlTraceStore({ db: db.withPlugin(writes.plugin), tablePrefix: prefix('large') });
      const first = trace('big', Date.now());
      await store.writeSpans(first.spans, [first.summary]);
      // More spans than one statement carries (5,000 on Postgres): one transaction of two statements,
      // the first all new, the second with the three rows written above (as a retry would send them).
      const many: StoredSpan[] = Array.from({ length: 5200 }, (_, i) => ({
        ...(first.spans[2] as StoredSpan),
        span_id: `big-${i}`,
        parent_span_id: 'big-root',
        name: 'execute_tool lookup',
      }));
      const copies = first.spans.map((span) => ({ ...span, attributes: { ...span.attributes, again: 1 } }));
      await store.writeSpans([...many, ...copies], []);
      const stored = await store.traceSpans('big');
      expect(stored).toHaveLength(5203);
      expect(stored.filter((span) => span.attributes.again === 1)).toHaveLength(3);
      // Postgres: the plain transaction's second statement failed; the whole batch went again as upserts.
      if (target.name !== 'sqlite')
        expect(writes.kinds).toEqual(['insert', 'insert', 'insert', 'upsert', 'upsert']);
    }, 60_000);

    it('keeps the last version of a span or summary given twice in one batch, and strips NUL from every text', async () => {
      const store = new SqlTraceStore({ db, tablePrefix: prefix('twice') });
      const { spans, summary } = trace('d1', Date.now());
      const [chat, tool, root] = spans as [StoredSpan, StoredSpan, StoredSpan];
      const linked = { ...chat, attributes: { ...chat.attributes, 'gcp.vertex.agent.event_id': 'ev-later' } };
      const failed = {
        ...tool,
        name: 'execute_tool lo\u0000okup',
        status: 'error',
        status_message: 'bo\u0000om',
      };
      await store.writeSpans(
        [chat, tool, root, linked, failed as StoredSpan],
        [{ ...summary, span_count: 1 }, summary],
      );
      const stored = await store.traceSpans('d1');
      expect(stored).toHaveLength(3);
      expect(stored.find((s) => s.span_id === 'd1-chat')?.attributes['gcp.vertex.agent.event_id']).toBe(
        'ev-later',
      );
      // Postgres refuses NUL in text and jsonb alike; SQLite keeps strings as given.
      if (target.name !== 'sqlite')
        expect(stored.find((s) => s.span_id === 'd1-tool')).toMatchObject({
          name: 'execute_tool lookup',
          status: 'error',
          status_message: 'boom',
        });
      else expect(stored.find((s) => s.span_id === 'd1-tool')?.status).toBe('error');
      expect((await store.eventSpan('ev-later'))?.span_id).toBe('d1-chat');
      const { traces } = await store.listTraces({ sessionId: summary.session_id ?? '' });
      expect(traces.map((t) => [t.trace_id, t.span_count])).toEqual([['d1', 3]]);
    });

    it('stores none of a batch that fails part-way (no span is left without its summary)', async () => {
      const store = new SqlTraceStore({ db, tablePrefix: prefix('atomic') });
      // 250 traces: several statements on SQLite, summaries first, the bad span in the last one.
      const all = Array.from({ length: 250 }, (_, i) => trace(`a${i}`, Date.now() - 1000 + i));
      const spans = all.flatMap((t) => t.spans);
      // A bigint is no JSON: the last statement's rows cannot be built.
      spans.push({ ...(spans.at(-1) as StoredSpan), span_id: 'bad', attributes: { n: 1n } as never });
      await expect(
        store.writeSpans(
          spans,
          all.map((t) => t.summary),
        ),
      ).rejects.toThrow(/not JSON-serializable/);
      expect((await store.listTraces({ limit: 10 })).traces).toEqual([]);
      expect(await store.traceSpans('a0')).toEqual([]);
      expect(await store.sessionSpans('s-a0')).toEqual([]);
    });

    it('indexes only the spans that carry an event id, and no span start', async () => {
      const tablePrefix = prefix('indexes');
      const store = new SqlTraceStore({ db, tablePrefix });
      const { spans, summary } = trace('ix', Date.now());
      await store.writeSpans(spans, [summary]);
      expect((await store.eventSpan('ev-ix'))?.span_id).toBe('ix-chat');
      const rows = await tableIndexes(db, `${tablePrefix}spans`);
      const names = rows.map((r) => r.name);
      expect(names).not.toContain(`${tablePrefix}spans_start_idx`);
      const event = rows.find((r) => r.name === `${tablePrefix}spans_event_idx`);
      expect(event?.definition.toLowerCase()).toMatch(/where \(?"?event_id"? is not null/);
    });

    it('finds the spans of a session through the summaries, and indexes by session only spans written before theirs', async () => {
      const tablePrefix = prefix('sessions');
      const store = new SqlTraceStore({ db, tablePrefix });
      const now = Date.now();
      // Written with its summary; one span of it runs in another session (an agent tool's own).
      const done = trace('sd', now, { session: 'ses-a' });
      const [chat] = done.spans as [StoredSpan];
      const elsewhere = { ...chat, attributes: { ...chat.attributes, 'gen_ai.conversation.id': 'ses-b' } };
      await store.writeSpans([elsewhere, ...done.spans.slice(1)], [done.summary]);
      // Still running: its spans go out before its summary, which comes in a later batch.
      const running = trace('sr', now + 1000, { session: 'ses-a' });
      await store.writeSpans(running.spans.slice(0, 2), []);
      const names = async (session: string) =>
        (await store.sessionSpans(session)).map((s) => `${s.trace_id}:${s.span_id}`).sort();
      expect(await names('ses-a')).toEqual([
        'sd:sd-chat',
        'sd:sd-root',
        'sd:sd-tool',
        'sr:sr-chat',
        'sr:sr-tool',
      ]);
      expect(await names('ses-b')).toEqual(['sd:sd-chat', 'sd:sd-root', 'sd:sd-tool']);
      await store.writeSpans(running.spans.slice(2), [running.summary]);
      expect(await names('ses-a')).toHaveLength(6);

      const { rows } = await sql<{ span_id: string; session_id: string | null }>`select span_id, session_id
        from ${sql.table(`${tablePrefix}spans`)} order by span_id`.execute(db);
      expect(rows.map((r) => [r.span_id, r.session_id])).toEqual([
        ['sd-chat', 'ses-b'],
        ['sd-root', null],
        ['sd-tool', null],
        ['sr-chat', 'ses-a'],
        ['sr-root', null],
        ['sr-tool', 'ses-a'],
      ]);
      const index = (await tableIndexes(db, `${tablePrefix}spans`)).find(
        (r) => r.name === `${tablePrefix}spans_session_idx`,
      );
      expect(index?.definition.toLowerCase()).toMatch(/where \(?"?session_id"? is not null/);
    });

    it('gives every span its session back when 0015 is undone', async () => {
      const tablePrefix = prefix('undo');
      const store = new SqlTraceStore({ db, tablePrefix });
      const { spans, summary } = trace('ud', Date.now(), { session: 'ses-u' });
      await store.writeSpans(spans, [summary]);
      const sessions = async () =>
        (
          await sql<{
            session_id: string | null;
          }>`select session_id from ${sql.table(`${tablePrefix}spans`)}`.execute(db)
        ).rows.map((r) => r.session_id);
      expect(await sessions()).toEqual([null, null, null]);
      const migrator = sessionMigrator(db, { tablePrefix });
      const undone = await migrator.migrateDown();
      expect(undone.results?.map((r) => [r.migrationName, r.direction, r.status])).toEqual([
        ['0015_span_session_index', 'Down', 'Success'],
      ]);
      expect(await sessions()).toEqual(['ses-u', 'ses-u', 'ses-u']);
      const index = (await tableIndexes(db, `${tablePrefix}spans`)).find(
        (r) => r.name === `${tablePrefix}spans_session_idx`,
      );
      expect(index?.definition.toLowerCase()).not.toContain('where');
      expect((await migrator.migrateToLatest()).error).toBeUndefined();
      expect((await store.sessionSpans('ses-u')).map((s) => s.span_id).sort()).toEqual([
        'ud-chat',
        'ud-root',
        'ud-tool',
      ]);
    });

    it('prunes by age and by count', async () => {
      const store = new SqlTraceStore({
        db,
        tablePrefix: prefix('prune'),
        retention: { maxAgeMs: 3600_000, maxTraces: 3 },
      });
      const now = Date.now();
      const all = [
        trace('old', now - 2 * 3600_000),
        ...[1, 2, 3, 4].map((i) => trace(`n${i}`, now - 10_000 + i * 1000)),
      ];
      // Spans whose trace got no summary (its root never ended): the old one goes by age.
      const orphan = (id: string, startMs: number) => trace(id, startMs).spans.slice(0, 1);
      await store.writeSpans(
        [
          ...all.flatMap((t) => t.spans),
          ...orphan('lost', now - 2 * 3600_000),
          ...orphan('open', now - 5000),
        ],
        all.map((t) => t.summary),
      );
      expect(await store.prune(now)).toBe(2);
      expect(await store.traceSpans('lost')).toEqual([]);
      expect(await store.traceSpans('open')).toHaveLength(1);
      expect((await store.listTraces()).traces.map((t) => t.trace_id)).toEqual(['n4', 'n3', 'n2']);
      expect(await store.traceSpans('old')).toEqual([]);
      expect(await store.traceSpans('n1')).toEqual([]);
      expect(await store.traceSpans('n2')).toHaveLength(3);
    });
  });
}
