// A profiling driver, not a benchmark: scenario 2's work (sessions × turns at once, in memory) on
// ADK for TypeScript only, repeated in rounds, for `node --cpu-prof`, `valgrind --tool=callgrind`
// or an allocation count. Nothing is compared and nothing is written.
//
//   ROUNDS=5 node --import tsx src/tools/profile-turns.ts            # turns/s per round
//   ROUNDS=5 node --import tsx src/tools/profile-turns.ts --alloc    # + bytes allocated per turn
//
// Environment: SESSIONS (50), TURNS (20), ROUNDS (5), WARMUP (20 turns in one session, as the bench).
import { Session } from 'node:inspector/promises';
import { createAdkDriver } from '../frameworks/adk.js';

const count = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const sessions = count('SESSIONS', 50);
const turns = count('TURNS', 20);
const rounds = count('ROUNDS', 5);
const warmup = count('WARMUP', 20);
const alloc = process.argv.includes('--alloc');

const driver = await createAdkDriver({ store: 'memory' });
const warm = await driver.openSession('warmup');
for (let i = 0; i < warmup; i++) await warm(`What is the weather in Paris? (${i})`);

let inspector: Session | undefined;
if (alloc) {
  inspector = new Session();
  inspector.connect();
  // Objects already collected are counted too: the total is what the turns allocated.
  await inspector.post('HeapProfiler.startSampling', {
    samplingInterval: 512,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
}
for (let round = 0; round < rounds; round++) {
  const start = performance.now();
  await Promise.all(
    Array.from({ length: sessions }, async (_, index) => {
      const turn = await driver.openSession(`r${round}-s${index}`);
      for (let i = 0; i < turns; i++) await turn(`What is the weather in Paris? (${i})`);
    }),
  );
  const ms = performance.now() - start;
  console.log(`round ${round}: ${Math.round((sessions * turns * 1000) / ms)} turns/s`);
}
if (inspector) {
  const { profile } = await inspector.post('HeapProfiler.stopSampling');
  type Node = { selfSize: number; children: Node[] };
  const total = (node: Node): number =>
    node.children.reduce((sum, child) => sum + total(child), node.selfSize);
  const perTurn = total(profile.head as Node) / (rounds * sessions * turns);
  console.log(`~${Math.round(perTurn).toLocaleString('en-US')} bytes allocated per turn`);
}
await driver.close();
