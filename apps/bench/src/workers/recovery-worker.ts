// Child process: one run-executing worker on Postgres for scenario 12's recovery time. It claims
// runs of the app `recovery` (Runner.startWorker, polling every 200 ms) and executes them; its one
// tool blocks for a minute in a `slow` worker (so the run is mid-tool when the bench kills it with
// SIGKILL) and returns at once in any other. Prints BENCH_READY with its instance id.
import { Runner } from '@adk/core';
import { createSqlStores } from '@adk/session-sql';
import { emitReady, workerArgs } from './protocol.js';
import { recoveryAgent } from './recovery-agent.js';

export interface RecoveryWorkerArgs {
  postgresUrl: string;
  /** The tool blocks (the run stays mid-tool until the process is killed). */
  slow: boolean;
  /** Hold sessions with Postgres run locks (the default); false: heartbeats alone tell a dead owner. */
  runLocks: boolean;
  instanceId: string;
}

const args = workerArgs<RecoveryWorkerArgs>();
const stores = await createSqlStores(args.postgresUrl, { sessions: { runLocks: args.runLocks } });
const runner = new Runner({
  appName: 'recovery',
  agent: recoveryAgent(args.slow),
  sessionService: stores.sessions,
  runStore: stores.runs,
  instanceId: args.instanceId,
});
runner.startWorker({ pollIntervalMs: 200 });
process.on('SIGTERM', () => {
  void runner.close().finally(() => process.exit(0));
});
emitReady({ instanceId: args.instanceId });
