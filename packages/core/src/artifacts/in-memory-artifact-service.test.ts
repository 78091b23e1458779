import { describe, it } from 'vitest';
import { InMemoryArtifactService, InMemoryMemoryService } from '../index.js';
import { artifactServiceConformance, memoryServiceConformance } from '../testing/index.js';

describe('InMemoryArtifactService conformance', () => {
  for (const c of artifactServiceConformance(() => new InMemoryArtifactService())) it(c.name, c.run);
});

describe('InMemoryMemoryService conformance', () => {
  for (const c of memoryServiceConformance(() => new InMemoryMemoryService())) it(c.name, c.run);
});
