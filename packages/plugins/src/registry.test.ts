import { type Content, isAdkError, LlmAgent, type Plugin } from '@adk/core';
import { ScriptedModel } from '@adk/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { harness, texts } from './__fixtures__/harness.js';
import { definePlugin, globalPlugins, PluginRegistry } from './registry.js';

const reply = (text: string): Content => ({ role: 'model', parts: [{ text }] });

/** The "ADK Elixir" style: init turns config into state; beforeRun continues or halts. */
const quota = definePlugin({
  name: 'quota',
  init: (config: { perUser: number }) => ({
    limit: config.perUser,
    used: new Map<string, number>(),
    closed: false,
  }),
  beforeRun: (state, { context }) => {
    const used = (state.used.get(context.userId) ?? 0) + 1;
    state.used.set(context.userId, used);
    return used > state.limit ? { halt: reply(`Quota of ${state.limit} runs reached.`) } : { continue: true };
  },
  close: (state) => {
    state.closed = true;
  },
});

describe('PluginRegistry', () => {
  afterEach(async () => {
    await globalPlugins.clear();
  });

  it('a stateful definition registered with its config continues, then halts with a reply', async () => {
    const registry = new PluginRegistry();
    const plugin = registry.register(quota, { perUser: 2 });
    const model = new ScriptedModel({ respond: () => 'answer' });
    const h = harness(new LlmAgent({ name: 'a', model }), registry.createPluginManager());

    expect(texts(await h.send('one'))).toEqual(['answer']);
    expect(texts(await h.send('two'))).toEqual(['answer']);
    expect(texts(await h.send('three'))).toEqual(['Quota of 2 runs reached.']);
    expect(texts(await h.send('again', { userId: 'other' }))).toEqual(['answer']);
    expect(model.requests).toHaveLength(3);
    expect(plugin.state.used.get('u')).toBe(3);
    const session = await h.session();
    expect(session?.events.at(-1)?.content).toEqual(reply('Quota of 2 runs reached.'));
  });

  it('global plugins run first, are shared by runners, start once and close only with closeAll', async () => {
    const log: string[] = [];
    // The adk_ex style: a stateless struct of hooks.
    const audit: Plugin = {
      name: 'audit',
      beforeModel: ({ context }) => {
        log.push(`audit ${context.agentName}`);
      },
    };
    globalPlugins.register(audit);
    const shared = globalPlugins.register(quota, { perUser: 10 });
    const local: Plugin = {
      name: 'local',
      beforeModel: () => {
        log.push('local');
      },
    };
    const first = harness(
      new LlmAgent({ name: 'first', model: new ScriptedModel({ respond: () => 'ok' }) }),
      globalPlugins.pluginsFor([local]),
    );
    const second = harness(
      new LlmAgent({ name: 'second', model: new ScriptedModel({ respond: () => 'ok' }) }),
      globalPlugins.createPluginManager(),
    );
    await first.send('hi');
    await second.send('hi');
    expect(log).toEqual(['audit first', 'local', 'audit second']);
    // One state for both runners: two runs counted.
    expect(shared.state.used.get('u')).toBe(2);

    await first.runner.close();
    expect(shared.initialized).toBe(true);
    await second.send('hi');
    expect(shared.state.used.get('u')).toBe(3);

    const state = shared.state;
    await globalPlugins.closeAll();
    expect(state.closed).toBe(true);
    expect(shared.initialized).toBe(false);
    expect(() => shared.state).toThrow(/not initialized/);
  });

  it('a per-runner stateful plugin is created from its definition and closed with the runner', async () => {
    const plugin = quota.create({ perUser: 1 }, { name: 'tight_quota' });
    const h = harness(new LlmAgent({ name: 'a', model: new ScriptedModel({ respond: () => 'ok' }) }), [
      plugin,
    ]);
    expect(texts(await h.send('one'))).toEqual(['ok']);
    expect(texts(await h.send('two'))).toEqual(['Quota of 1 runs reached.']);
    const state = plugin.state;
    await h.runner.close();
    expect(state.closed).toBe(true);
  });

  it('rejects duplicate names, globally and between global and runner plugins', () => {
    const registry = new PluginRegistry();
    registry.register({ name: 'x' });
    const duplicate = () => registry.register({ name: 'x' });
    expect(duplicate).toThrow(/already registered/);
    try {
      duplicate();
    } catch (error) {
      expect(isAdkError(error, 'ALREADY_EXISTS')).toBe(true);
    }
    expect(() => registry.register(quota, { perUser: 1 })).not.toThrow();
    expect(() => registry.register(quota, { perUser: 2 })).toThrow(/"quota" is already registered/);
    expect(() => registry.pluginsFor([{ name: 'x' }])).toThrow(/name of a global plugin/);
    expect(() => registry.createPluginManager([{ name: 'y' }, { name: 'y' }])).toThrow(
      /Two runner plugins are named "y"/,
    );
    expect(registry.list().map((p) => p.name)).toEqual(['x', 'quota']);
  });

  it('unregister closes a started plugin; a failed init is retried on the next run', async () => {
    const registry = new PluginRegistry();
    let attempts = 0;
    const flaky = definePlugin({
      name: 'flaky',
      init: () => {
        attempts++;
        if (attempts === 1) throw new Error('database not ready');
        return { closed: false };
      },
      close: (state) => {
        state.closed = true;
      },
    });
    const plugin = registry.register(flaky, undefined);
    const h = harness(
      new LlmAgent({ name: 'a', model: new ScriptedModel({ respond: () => 'ok' }) }),
      registry.createPluginManager(),
    );
    await expect(h.send('one')).rejects.toThrow(/database not ready/);
    // The manager memoizes its own init; a new runner (or a restarted one) tries again.
    const h2 = harness(
      new LlmAgent({ name: 'a', model: new ScriptedModel({ respond: () => 'ok' }) }),
      registry.createPluginManager(),
    );
    expect(texts(await h2.send('two'))).toEqual(['ok']);
    const state = plugin.state;
    await registry.unregister('flaky');
    expect(state.closed).toBe(true);
    expect(registry.has('flaky')).toBe(false);
    await expect(registry.unregister('flaky')).rejects.toThrow(/No global plugin/);
  });
});
