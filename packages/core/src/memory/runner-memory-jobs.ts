import type { BaseAgent } from '../agents/base-agent.js';
import type { SessionService } from '../sessions/session.js';
import { agentMemoryJobs } from './agent-jobs.js';
import { createMemoryJobWorker, type MemoryWorkerConfig, startMemoryJobWorker } from './job-host.js';
import type { MemoryJobWorker } from './job-worker.js';
import type { MemoryServiceWithJobs } from './jobs.js';

/**
 * A Runner's memory jobs: one worker made on first use, with the handlers its agent tree's `memory`
 * options need, started in the background on the first enqueued turn (or `startMemoryWorker()`),
 * flushed by `flushMemory()`, stopped for good by `close()`.
 */
export class RunnerMemoryJobs {
  readonly worker: MemoryJobWorker;
  private running: { stop(): Promise<void> } | undefined;
  private stopped = false;

  constructor(
    private readonly memory: MemoryServiceWithJobs,
    sessionService: SessionService,
    config: MemoryWorkerConfig,
    agent?: BaseAgent,
  ) {
    this.worker = createMemoryJobWorker(memory, sessionService, config);
    // The handlers the agent's `memory` options need (profile, observe, facts), unless given.
    if (agent) {
      const { handlers } = agentMemoryJobs(agent, { sessionService });
      for (const [kind, handler] of Object.entries(handlers))
        if (handler && !config.handlers?.[kind]) this.worker.registerHandler(kind, handler);
    }
  }

  start(): void {
    if (this.running || this.stopped) return;
    this.running = startMemoryJobWorker(this.worker, this.memory.jobs);
  }

  flush(appName: string, options?: { signal?: AbortSignal; userId?: string }): Promise<void> {
    return this.worker.flush({
      appName,
      ...(options?.userId !== undefined ? { userId: options.userId } : {}),
      ...(options?.signal ? { signal: options.signal } : {}),
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    const running = this.running;
    this.running = undefined;
    await running?.stop();
  }
}
