import {
  type AgentMemoryOptions,
  applyMergePatch,
  type BaseAgent,
  createEvent,
  type Event,
  hasMemoryJobs,
  isInspectableMemory,
  LlmAgent,
  type MemoryEntry,
  type MemoryKind,
  NotFoundError,
  newId,
  OBSERVATION_ERROR_METADATA_KEY,
  observationOf,
  profileStateKey,
  RECALL_METADATA_KEY,
  type RecallRecord,
  transcriptLines,
  ValidationError,
  visibleEvents,
} from '@adk/core';
import type { Hono } from 'hono';
import { z } from 'zod';
import { readJson, validate } from '../http/body.js';
import { idParam, type RouteContext, sessionKey } from './context.js';

/** The first agent of the tree (depth first) whose `memory` option has `key`. */
function memoryAgent(root: BaseAgent, key: keyof AgentMemoryOptions): LlmAgent | undefined {
  if (root instanceof LlmAgent && root.memory?.[key]) return root;
  for (const child of root.subAgents) {
    const found = memoryAgent(child, key);
    if (found) return found;
  }
  return undefined;
}

function estimate(countTokens: ((text: string) => number) | undefined, text: string): number {
  return countTokens ? countTokens(text) : Math.ceil(text.length / 4);
}

const KINDS = ['turn', 'observation', 'fact'] as const;
const searchQuery = z.object({
  q: z.string().trim().min(1, 'q must not be empty').max(2000),
  limit: z.coerce.number().int().min(1).max(100).default(10),
  kinds: z
    .string()
    .optional()
    .transform((s, ctx) => {
      if (s === undefined || s === '') return undefined;
      const kinds = s.split(',');
      for (const k of kinds)
        if (!(KINDS as readonly string[]).includes(k)) {
          ctx.addIssue({ code: 'custom', message: `unknown kind ${k}` });
          return z.NEVER;
        }
      return kinds as MemoryKind[];
    }),
});

const profileEdit = z.object({
  /** The whole new profile (a JSON object, or Markdown text for a template profile)… */
  value: z.union([z.record(z.string(), z.unknown()), z.string()]).optional(),
  /** …or an RFC 7386 merge-patch of a JSON profile. */
  patch: z.record(z.string(), z.unknown()).optional(),
});

function wire(m: MemoryEntry): Record<string, unknown> {
  const { neighbours: _n, ...rest } = m;
  return rest;
}

/**
 * The dev UI's Memory tab (docs/decisions/0070-memory-inspection.md), under `/dev` like the other
 * development routes:
 * - `GET  /dev/apps/{app}/users/{user}/sessions/{session}/memory` → `{ profile, observations,
 *   recalls, facts, jobs }` (each `null` when the app or store has no such feature);
 * - `POST /dev/apps/{app}/users/{user}/sessions/{session}/memory/profile` `{ value }` or `{ patch }`
 *   → appends an ordinary state-change event (author `user`), answers `{ eventId, value }`;
 * - `GET  /dev/apps/{app}/users/{user}/memory/search?q=&limit=&kinds=` → `{ fullText, vector, fused }`.
 * A malformed query or body is a 422 `VALIDATION`.
 */
export function memoryRoutes(app: Hono, ctx: RouteContext): void {
  const memory = () => ctx.stores.memoryService;
  const sessions = () => ctx.stores.sessionService;

  app.get('/dev/apps/:app/users/:user/sessions/:session/memory', async (c) => {
    const key = await sessionKey(ctx, c);
    const session = await sessions().getSession(key);
    if (!session) throw new NotFoundError('Session not found');
    const root = await ctx.apps.agent(key.appName);
    const events = visibleEvents(session.events);

    // The profile and its history: the state deltas of its key.
    const profileAgent = memoryAgent(root, 'profile');
    const profileOptions = profileAgent?.memory?.profile;
    let profile: Record<string, unknown> | null = null;
    if (profileAgent && profileOptions) {
      const stateKey = profileStateKey(profileOptions);
      const template = profileOptions.template !== undefined;
      profile = {
        agent: profileAgent.name,
        stateKey,
        scope: profileOptions.scope ?? 'user',
        format: template ? 'markdown' : 'json',
        update: profileOptions.update ?? 'tool',
        value: session.state[stateKey] ?? (template ? profileOptions.template : {}),
        history: session.events
          .filter((e) => Object.hasOwn(e.actions.stateDelta ?? {}, stateKey))
          .map((e) => ({
            eventId: e.id,
            invocationId: e.invocationId,
            author: e.author,
            timestamp: e.timestamp,
            value: e.actions.stateDelta[stateKey],
          })),
      };
    }

    // Observations: the compaction events the observer wrote, with token estimates.
    const observeAgent = memoryAgent(root, 'observe');
    const observe = observeAgent?.memory?.observe;
    let observations: Record<string, unknown> | null = null;
    if (observe) {
      const count = observe.countTokens;
      const observeAt = Math.max(1, observe.observeAtTokens ?? 30_000);
      const log: Record<string, unknown>[] = [];
      let end = Number.NEGATIVE_INFINITY;
      for (const e of events) {
        const record = observationOf(e);
        if (!record || !e.actions.compaction) continue;
        const text = e.actions.compaction.compactedContent.parts[1]?.text ?? '';
        end = e.actions.compaction.endTimestamp;
        log.push({
          eventId: e.id,
          kind: record.kind,
          timestamp: e.timestamp,
          eventIds: record.eventIds,
          blocks: record.blocks,
          ...(record.merged ? { merged: record.merged } : {}),
          text,
          tokens: estimate(count, text),
        });
      }
      const uncovered = events.filter(
        (e) => !e.partial && !e.actions.compaction && e.timestamp > end && !e.author.startsWith('memory:'),
      );
      const latest = log.at(-1);
      observations = {
        agent: observeAgent.name,
        thresholds: {
          observeAtTokens: observeAt,
          keepRecentTokens: observe.keepRecentTokens ?? Math.floor(observeAt / 5),
          reflectAtTokens: observe.reflectAtTokens ?? 40_000,
        },
        unobservedTokens: estimate(count, uncovered.flatMap(transcriptLines).join('\n')),
        logTokens: latest ? (latest.tokens as number) : 0,
        failures: events
          .filter((e) => e.customMetadata?.[OBSERVATION_ERROR_METADATA_KEY])
          .map((e) => ({
            eventId: e.id,
            timestamp: e.timestamp,
            ...(e.customMetadata?.[OBSERVATION_ERROR_METADATA_KEY] as object),
          })),
        log,
      };
    }

    // Per-turn recall, as recorded on the model responses.
    const recalls = session.events
      .filter((e: Event) => e.customMetadata?.[RECALL_METADATA_KEY])
      .map((e) => ({
        eventId: e.id,
        invocationId: e.invocationId,
        author: e.author,
        timestamp: e.timestamp,
        ...(e.customMetadata?.[RECALL_METADATA_KEY] as RecallRecord),
      }));

    const store = memory();
    const facts = isInspectableMemory(store)
      ? (
          await store.listMemories({ appName: key.appName, userId: key.userId, kinds: ['fact'], limit: 200 })
        ).map(wire)
      : null;

    let jobs: Record<string, unknown> | null = null;
    if (hasMemoryJobs(store)) {
      const scope = { appName: key.appName, userId: key.userId };
      const recent = await store.jobs.list({ ...scope, limit: 200 });
      const byKind: Record<string, Record<string, number>> = {};
      for (const job of recent) {
        const counts = byKind[job.kind] ?? { pending: 0, running: 0, done: 0, failed: 0 };
        counts[job.status] = (counts[job.status] ?? 0) + 1;
        byKind[job.kind] = counts;
      }
      jobs = {
        stats: await store.jobs.stats(scope),
        byKind,
        failures: (await store.jobs.list({ ...scope, status: 'failed', limit: 20 })).concat(
          recent.filter((j) => j.status !== 'failed' && j.lastError).slice(0, 20),
        ),
        recent: recent.slice(0, 20),
      };
    }
    return c.json({ profile, observations, recalls, facts, jobs });
  });

  app.post('/dev/apps/:app/users/:user/sessions/:session/memory/profile', async (c) => {
    const key = await sessionKey(ctx, c);
    const body = validate(profileEdit, await readJson(c.req.raw, ctx.bodyLimit), 'profile edit');
    if ((body.value === undefined) === (body.patch === undefined))
      throw new ValidationError('Invalid profile edit: give exactly one of value or patch');
    const root = await ctx.apps.agent(key.appName);
    const options = memoryAgent(root, 'profile')?.memory?.profile;
    if (!options) throw new NotFoundError(`App ${key.appName} keeps no profile (memory.profile)`);
    const session = await sessions().getSession(key);
    if (!session) throw new NotFoundError('Session not found');
    const stateKey = profileStateKey(options);
    const template = options.template !== undefined;
    if (template && typeof body.value !== 'string')
      throw new ValidationError(
        'Invalid profile edit: this profile is Markdown text; give value as a string',
      );
    if (!template && typeof body.value === 'string')
      throw new ValidationError('Invalid profile edit: this profile is a JSON object');
    let value: unknown = body.value ?? applyMergePatch(session.state[stateKey] ?? {}, body.patch);
    if (!template && options.schema) {
      const parsed = options.schema.safeParse(value);
      if (!parsed.success)
        throw new ValidationError(
          `Invalid profile edit: ${parsed.error.issues.map((i) => i.message).join('; ')}`,
        );
      value = parsed.data;
    }
    const event = createEvent({
      invocationId: `p-${newId()}`,
      author: 'user',
      actions: { stateDelta: { [stateKey]: value } },
      customMetadata: { adkProfileEdit: true },
    });
    await sessions().appendEvent(session, event);
    return c.json({ eventId: event.id, value });
  });

  app.get('/dev/apps/:app/users/:user/memory/search', async (c) => {
    const appName = idParam(c, 'app');
    const userId = idParam(c, 'user');
    const query = validate(searchQuery, c.req.query(), 'search query');
    await ctx.apps.assertApp(appName);
    const store = memory();
    const params = {
      appName,
      userId,
      query: query.q,
      limit: query.limit,
      ...(query.kinds ? { kinds: query.kinds } : {}),
    };
    if (isInspectableMemory(store)) {
      const r = await store.explainSearch(params);
      return c.json({
        fullText: r.fullText.map(wire),
        vector: r.vector ? r.vector.map(wire) : null,
        fused: r.fused.map(wire),
      });
    }
    const { memories } = await store.searchMemory(params);
    return c.json({ fullText: null, vector: null, fused: memories.map(wire) });
  });
}
