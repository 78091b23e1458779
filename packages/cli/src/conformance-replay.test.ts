import { ModelRegistry, modelCapabilities } from '@adk/core';
import { ScriptedModel } from '@adk/core/testing';
import { describe, expect, it } from 'vitest';
import { ConformancePlugin, capabilitiesBeneathReplay, ReplayModel, replayModelProvider } from './index.js';

describe('the replay model in a registry', () => {
  it('stands in front of every provider and reports the capabilities of the model it stands in for', () => {
    const registry = new ModelRegistry();
    const replay = new ReplayModel(new ConformancePlugin());
    registry.register(replayModelProvider(replay, capabilitiesBeneathReplay(registry)), { tier: 'override' });
    // Registered after the replay model, as an app's provider is when the app loads.
    registry.register({
      name: 'acme',
      matches: (m) => m.startsWith('acme-'),
      create: (m) => new ScriptedModel({ model: m, capabilities: { responseSchemaWithTools: true } }),
    });
    const acme = registry.resolve('acme-1');
    expect(acme.model).toBe('adk-conformance-replay');
    expect(acme.capabilities).toEqual({ responseSchemaWithTools: true });
    // A name nothing else serves gets the replay model itself, which declares nothing.
    expect(registry.resolve('other')).toBe(replay);
    expect(modelCapabilities(registry.resolve('other')).responseSchemaWithTools).toBe(false);
  });
});
