import { runAgent } from '@adk/core';
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
