// Child process: artifact save/load of a 1 MiB binary and memory search over many stored events,
// through @adk/session-sql's createSqlStores on one store.
import { randomBytes } from 'node:crypto';
import { createEvent, type Session } from '@adk/core';
import { peakRssBytes } from '../harness/stats.js';
import { emitResult, emitSkip, workerArgs } from './protocol.js';

export interface StorageOpsArgs {
  /** Database URL given to createSqlStores. */
  url: string;
  /** Bytes of the artifact saved and loaded. */
  artifactBytes: number;
  saves: number;
  loads: number;
  /** Events stored in memory before the searches. */
  events: number;
  searches: number;
}

export interface StorageOpsResult {
  saveMs: number[];
  loadMs: number[];
  /** addSessionToMemory of all events, in batches of one session per 1,000 events. */
  indexMs: number;
  searchMs: number[];
  /** Searches that found the event they looked for. */
  searchHits: number;
  peakRssBytes: number;
}

interface Stores {
  artifacts: {
    saveArtifact(p: Record<string, unknown>): Promise<number>;
    loadArtifact(p: Record<string, unknown>): Promise<{ inlineData?: { data: string } } | undefined>;
  };
  memory: {
    addSessionToMemory(s: Session): Promise<void>;
    searchMemory(
      p: Record<string, unknown>,
    ): Promise<{ memories: { content: { parts: { text?: string }[] } }[] }>;
  };
  close(): Promise<void>;
}

const WORDS = [
  'harbour',
  'lantern',
  'granite',
  'meadow',
  'copper',
  'violet',
  'thunder',
  'orchard',
  'saffron',
  'glacier',
];

/** A sentence unique to event i (its serial word) on a shared vocabulary, like a real chat log. */
function text(i: number): string {
  const a = WORDS[i % WORDS.length];
  const b = WORDS[Math.floor(i / WORDS.length) % WORDS.length];
  return `Note ${i}: the ${a} near the ${b} is marked as item serial${i} for later.`;
}

async function main(): Promise<void> {
  const args = workerArgs<StorageOpsArgs>();
  const sql: Record<string, unknown> = await import('@adk/session-sql');
  if (typeof sql.createSqlStores !== 'function')
    return emitSkip('@adk/session-sql does not export createSqlStores');
  const stores = (await (sql.createSqlStores as (url: string) => Promise<Stores>)(args.url)) as Stores;
  const scope = { appName: 'bench', userId: 'u', sessionId: `storage-${process.pid}` };
  const bytes = randomBytes(args.artifactBytes);
  const artifact = { inlineData: { mimeType: 'application/octet-stream', data: bytes.toString('base64') } };

  const saveMs: number[] = [];
  for (let i = 0; i < args.saves; i++) {
    const start = performance.now();
    await stores.artifacts.saveArtifact({ ...scope, filename: 'blob.bin', artifact });
    saveMs.push(performance.now() - start);
  }
  const loadMs: number[] = [];
  for (let i = 0; i < args.loads; i++) {
    const start = performance.now();
    const loaded = await stores.artifacts.loadArtifact({ ...scope, filename: 'blob.bin' });
    loadMs.push(performance.now() - start);
    if (loaded?.inlineData?.data.length !== artifact.inlineData.data.length)
      throw new Error('loaded artifact differs');
  }

  const perSession = 1000;
  const indexStart = performance.now();
  for (let first = 0; first < args.events; first += perSession) {
    const count = Math.min(perSession, args.events - first);
    const session: Session = {
      ...scope,
      id: `mem-${first}`,
      state: {},
      lastUpdateTime: 0,
      events: Array.from({ length: count }, (_, k) =>
        createEvent({
          invocationId: 'i',
          author: k % 2 ? 'agent' : 'user',
          timestamp: 1_000_000 + first + k,
          content: { role: k % 2 ? 'model' : 'user', parts: [{ text: text(first + k) }] },
        }),
      ),
    };
    await stores.memory.addSessionToMemory(session);
  }
  const indexMs = performance.now() - indexStart;

  const searchMs: number[] = [];
  let searchHits = 0;
  for (let i = 0; i < args.searches; i++) {
    const target = Math.floor((i * 7919) % args.events);
    const query = `which ${WORDS[target % WORDS.length]} was serial${target}?`;
    const start = performance.now();
    const { memories } = await stores.memory.searchMemory({
      appName: scope.appName,
      userId: scope.userId,
      query,
      limit: 10,
    });
    searchMs.push(performance.now() - start);
    if (memories[0]?.content.parts[0]?.text === text(target)) searchHits++;
  }
  await stores.close();
  const result: StorageOpsResult = {
    saveMs,
    loadMs,
    indexMs,
    searchMs,
    searchHits,
    peakRssBytes: peakRssBytes(),
  };
  emitResult(result);
}

await main();
