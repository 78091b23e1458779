import { describe, expect, it } from 'vitest';
import { ModelNotFoundError } from '../errors/errors.js';
import { ScriptedModel } from '../testing/index.js';
import { type ModelProvider, ModelRegistry } from './registry.js';

function provider(name: string, pattern: RegExp): ModelProvider & { created: string[] } {
  const created: string[] = [];
  return {
    name,
    created,
    matches: (model) => pattern.test(model),
    create: (model) => {
      created.push(model);
      return new ScriptedModel({ model: `${name}:${model}` });
    },
  };
}

describe('ModelRegistry tiers', () => {
  it('asks a fallback only for names no other provider matches, whenever either registered', () => {
    const registry = new ModelRegistry();
    registry.register(provider('demo', /.*/), { tier: 'fallback' });
    registry.register(provider('acme', /^acme-/));
    registry.register(provider('keyed', /^gemini-/), { tier: 'fallback' });
    expect(registry.resolve('acme-1').model).toBe('acme:acme-1');
    expect(registry.resolve('gemini-2.5-flash').model).toBe('keyed:gemini-2.5-flash');
    expect(registry.resolve('anything').model).toBe('demo:anything');
    expect(registry.providerNames()).toEqual(['acme', 'keyed', 'demo']);
  });

  it('puts an override in front of providers registered after it', () => {
    const registry = new ModelRegistry();
    registry.register(provider('replay', /.*/), { tier: 'override' });
    registry.register(provider('acme', /^acme-/));
    expect(registry.resolve('acme-1').model).toBe('replay:acme-1');
    // What the override stands in front of stays reachable, uncached.
    expect(registry.resolve('acme-1', { except: ['replay'] }).model).toBe('acme:acme-1');
    expect(() => registry.resolve('other', { except: ['replay'] })).toThrow(ModelNotFoundError);
    registry.unregister('replay');
    expect(registry.resolve('acme-1').model).toBe('acme:acme-1');
  });

  it('replaces a provider registered again under its name, moving it to the new tier', () => {
    const registry = new ModelRegistry();
    registry.register(provider('x', /^m$/), { tier: 'fallback' });
    registry.register(provider('y', /^m$/));
    expect(registry.resolve('m').model).toBe('y:m');
    registry.register(provider('x', /^m$/), { tier: 'override' });
    expect(registry.resolve('m').model).toBe('x:m');
    expect(registry.providerNames()).toEqual(['x', 'y']);
  });
});
