import { InMemorySessionService, Runner, runAgent, userContent } from '@adk/core';
import { describe, expect, it } from 'vitest';
import { weatherAgent } from '../__fixtures__/weather-agent.js';
import { evalCaseFromSession, evaluate, toolCallsMatch } from '../index.js';
import { toolCallsOf } from '../metrics/invocation-utils.js';

describe('evalCaseFromSession', () => {
  it('turns a recorded session into an eval case that the same agent then passes', async () => {
    const run = await runAgent(weatherAgent(), 'Weather in Paris?', {
      appName: 'weather_agent',
      userId: 'u',
    });
    const evalCase = evalCaseFromSession(run.session, 'recorded');
    expect(evalCase.sessionInput).toEqual({ appName: 'weather_agent', userId: 'u', state: {} });
    const turn = evalCase.conversation?.[0];
    expect(turn?.userContent.parts[0]?.text).toBe('Weather in Paris?');
    expect(turn?.finalResponse?.parts[0]?.text).toBe('It is sunny and 24 °C in Paris today.');
    expect(
      toolCallsMatch(toolCallsOf(turn?.intermediateData), [
        { id: '', name: 'get_weather', args: { city: 'Paris' } },
      ]),
    ).toBe(true);
    const result = await evaluate({
      agent: weatherAgent(),
      evalSets: { evalSetId: 'rec', evalCases: [evalCase], creationTimestamp: 0 },
      progress: false,
    });
    expect(result.passed).toBe(true);
  });
});

describe('evalCaseFromSession after time travel', () => {
  it('leaves rewound turns out and starts from the state the session was created with', async () => {
    const sessionService = new InMemorySessionService();
    const runner = new Runner({ appName: 'weather_agent', agent: weatherAgent(), sessionService });
    await sessionService.createSession({
      appName: 'weather_agent',
      userId: 'u',
      sessionId: 's',
      state: { units: 'metric' },
    });
    const send = async (text: string) => {
      const events = [];
      for await (const e of runner.run({ userId: 'u', sessionId: 's', newMessage: userContent(text) }))
        events.push(e);
      return events;
    };
    await send('Weather in Paris?');
    const second = await send('Weather in Paris, again?');
    await runner.rewind({
      userId: 'u',
      sessionId: 's',
      rewindBeforeInvocationId: second[0]?.invocationId ?? '',
    });
    const session = await sessionService.getSession({
      appName: 'weather_agent',
      userId: 'u',
      sessionId: 's',
    });
    if (!session) throw new Error('no session');
    const evalCase = evalCaseFromSession(session, 'rewound');
    expect(evalCase.conversation?.map((t) => t.userContent.parts[0]?.text)).toEqual(['Weather in Paris?']);
    expect(evalCase.sessionInput?.state).toEqual({ units: 'metric' });
  });
});
