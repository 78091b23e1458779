// The @google/adk samples of ./ported, run as @google/adk users run them (InMemoryRunner, runAsync),
// with a scripted model behind the Gemini names they use.
import {
  defaultModelRegistry,
  type Event,
  InMemoryRunner,
  InMemorySessionService,
  LLMRegistry,
  type LlmRequest,
  ModelRegistry,
  type Part,
  userContent,
} from '@adk/core';
import { ScriptedModel } from '@adk/core/testing';
import { describe, expect, it } from 'vitest';
import { CountingPlugin, rootAgent as diceThenPrimes } from './ported/dice-then-primes.js';
import { rootAgent as fanOut } from './ported/fan-out.js';
import { rootAgent as searcher } from './ported/search-agent.js';
import { rootAgent as summarizeAsTool } from './ported/summarize-as-tool.js';
import { alerts, rootAgent as watchLoop } from './ported/watch-loop.js';
import { rootAgent as weatherAndClock } from './ported/weather-and-clock.js';

/** Calls the first tool it is offered that has scripted arguments, then answers with the result. */
function scripted(args: Record<string, Record<string, unknown>>, requests: LlmRequest[]): ModelRegistry {
  const respond = (request: LlmRequest): string | Part[] => {
    requests.push(request);
    const last = request.contents.at(-1)?.parts ?? [];
    const answered = last.find((p) => p.functionResponse);
    if (answered?.functionResponse)
      return `${answered.functionResponse.name} said ${JSON.stringify(answered.functionResponse.response)}`;
    const tool = request.tools?.find((t) => t.name in args);
    if (tool) return [{ functionCall: { id: '', name: tool.name, args: args[tool.name] ?? {} } }];
    return request.builtInTools?.length ? 'found on the web' : 'short version';
  };
  return new ModelRegistry().register({
    name: 'gemini',
    matches: (m) => m.startsWith('gemini-'),
    create: (model) => new ScriptedModel({ model, respond }),
  });
}

async function run(runner: InMemoryRunner, text: string): Promise<Event[]> {
  const session = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u' });
  const events: Event[] = [];
  for await (const e of runner.runAsync({
    userId: 'u',
    sessionId: session.id,
    newMessage: userContent(text),
  }))
    events.push(e);
  return events;
}

const texts = (events: Event[]) =>
  events
    .filter((e) => e.author !== 'user')
    .flatMap((e) => (e.content?.parts ?? []).filter((p) => p.text).map((p) => `${e.author}: ${p.text}`));

describe('@google/adk samples after the import change', () => {
  it('agent as tool (skipSummarization): the inner agent answers, the outer model is called once', async () => {
    const requests: LlmRequest[] = [];
    const runner = new InMemoryRunner({
      agent: summarizeAsTool,
      models: scripted({ condenser: { request: 'a long text' } }, requests),
    });
    const events = await run(runner, 'a long text');
    const response = events.flatMap((e) => e.content?.parts ?? []).find((p) => p.functionResponse);
    expect(response?.functionResponse?.response).toEqual({ result: 'short version' });
    expect(requests.filter((r) => r.config.labels?.adk_agent_name === 'desk')).toHaveLength(1);
  });

  it('function tools named after their functions, zod 3 parameters, generateContentConfig', async () => {
    const requests: LlmRequest[] = [];
    const runner = new InMemoryRunner({
      agent: weatherAndClock,
      models: scripted({ lookup_weather: { city: 'Lisbon' } }, requests),
    });
    const events = await run(runner, 'Weather in Lisbon?');
    expect(requests[0]?.tools?.map((t) => t.name)).toEqual(['lookup_weather', 'lookup_time']);
    expect(requests[0]?.tools?.[0]?.parameters).toEqual({
      type: 'object',
      properties: { city: { type: 'string', description: 'City name' } },
      required: ['city'],
    });
    expect(requests[0]?.config.temperature).toBe(0);
    expect(texts(events).at(-1)).toBe(
      'city_helper: lookup_weather said {"status":"success","report":"Lisbon: clear sky, 22 °C."}',
    );
  });

  it('GOOGLE_SEARCH reaches the model as its built-in tool', async () => {
    const requests: LlmRequest[] = [];
    const runner = new InMemoryRunner({ agent: searcher, models: scripted({}, requests) });
    expect(texts(await run(runner, 'news?'))).toEqual(['searcher: found on the web']);
    expect(requests[0]?.builtInTools?.map((t) => t.type)).toEqual(['googleSearch']);
  });

  it('a loop with a tool without parameters that returns a number, and one that returns nothing', async () => {
    const requests: LlmRequest[] = [];
    const runner = new InMemoryRunner({
      agent: watchLoop,
      models: scripted({ read_sensor: {} }, requests),
    });
    const events = await run(runner, 'Alert me above 35');
    const declared = requests[0]?.tools?.find((t) => t.name === 'read_sensor');
    expect(declared).toBeDefined();
    expect(declared?.parameters).toBeUndefined();
    expect(texts(events)).toEqual([
      'watcher: read_sensor said {"result":36}',
      'watcher: read_sensor said {"result":37}',
    ]);
    expect(alerts).toEqual([]);
  });

  it('a parallel agent: a raw JSON Schema tool beside GOOGLE_SEARCH', async () => {
    const requests: LlmRequest[] = [];
    const runner = new InMemoryRunner({
      agent: fanOut,
      models: scripted({ city_temperature: { city: 'Porto' } }, requests),
    });
    const events = await run(runner, 'Porto');
    expect(requests.find((r) => r.tools?.length)?.tools?.[0]?.parameters).toEqual({
      type: 'object',
      properties: { city: { type: 'string' } },
      required: ['city'],
    });
    expect(texts(events).sort()).toEqual([
      'thermo: city_temperature said {"result":"Porto: 19 °C"}',
      'web: found on the web',
    ]);
  });

  it('a sequence with a BasePlugin (beforeModelCallback), zod 3 validation, appendEvent({ session, event })', async () => {
    const requests: LlmRequest[] = [];
    const plugin = new CountingPlugin();
    const runner = new InMemoryRunner({
      agent: diceThenPrimes,
      plugins: [plugin],
      models: scripted({ roll: { sides: 'six' }, primes: { numbers: [7, 8] } }, requests),
    });
    const events = await run(runner, 'Roll a d6 and check for primes');
    const responses = events
      .flatMap((e) => e.content?.parts ?? [])
      .flatMap((p) => (p.functionResponse ? [p.functionResponse] : []));
    // zod 3 rejected the roll's arguments (a string): the model is told, the run goes on.
    expect(JSON.stringify(responses[0]?.response)).toContain('sides');
    expect(responses[1]?.response).toEqual({ result: '7 prime' });
    expect(plugin.calls).toEqual([
      'roller:gemini-2.5-flash',
      'roller:gemini-2.5-flash',
      'checker:gemini-2.5-flash',
      'checker:gemini-2.5-flash',
    ]);

    const sessions = new InMemorySessionService();
    const session = await sessions.createSession({ appName: 'dice', userId: 'v' });
    const appended = await sessions.appendEvent({
      session,
      event: { ...events[0]!, id: 'copied', invocationId: 'inv-2', timestamp: Date.now() + 10_000 },
    });
    expect(appended.id).toBe('copied');
  });

  it('LLMRegistry.newLlm resolves through the process-wide registry', () => {
    defaultModelRegistry.register({
      name: 'scripted-port',
      matches: (m) => m === 'port-1',
      create: (m) => new ScriptedModel({ model: m }),
    });
    expect(LLMRegistry.newLlm('port-1').model).toBe('port-1');
    defaultModelRegistry.unregister('scripted-port');
  });
});
