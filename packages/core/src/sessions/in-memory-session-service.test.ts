import { describe, it } from 'vitest';
import { InMemorySessionService } from '../index.js';
import { sessionServiceConformance } from '../testing/index.js';

describe('InMemorySessionService conformance', () => {
  for (const c of sessionServiceConformance(() => new InMemorySessionService())) it(c.name, c.run);
});
