import type { BaseAgent } from '../agents/base-agent.js';
import { InMemoryArtifactService } from '../artifacts/in-memory-artifact-service.js';
import { InMemoryMemoryService } from '../memory/in-memory-memory-service.js';
import { InMemorySessionService } from '../sessions/in-memory-session-service.js';
import { Runner, type RunnerOptions } from './runner.js';

export interface InMemoryRunnerOptions
  extends Omit<RunnerOptions, 'agent' | 'appName' | 'sessionService' | 'artifactService' | 'memoryService'> {
  agent: BaseAgent;
  /** Default: the agent's name. */
  appName?: string;
}

/**
 * A Runner with in-memory sessions, artifacts and memory, for scripts, tests and local tries.
 * Sessions are created on first use unless `autoCreateSession: false`. Nothing survives the process.
 */
export class InMemoryRunner extends Runner {
  declare readonly sessionService: InMemorySessionService;
  declare readonly artifactService: InMemoryArtifactService;
  declare readonly memoryService: InMemoryMemoryService;

  constructor(options: InMemoryRunnerOptions) {
    super({
      autoCreateSession: true,
      ...options,
      appName: options.appName ?? options.agent.name,
      sessionService: new InMemorySessionService(),
      artifactService: new InMemoryArtifactService(),
      memoryService: new InMemoryMemoryService(),
    });
  }
}
