import { describe, it } from 'vitest';
import { InMemoryArtifactService, InMemorySessionService } from '../index.js';
import { timeTravelRunnerConformance } from '../testing/index.js';

describe('time travel on the in-memory stores', () => {
  for (const c of timeTravelRunnerConformance(() => ({
    sessionService: new InMemorySessionService(),
    artifactService: new InMemoryArtifactService(),
  })))
    it(c.name, c.run);
});
