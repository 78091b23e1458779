import { describeEvalSet } from '../../vitest.js';
import { weatherAgent } from '../weather-agent.js';

const config = { criteria: { tool_trajectory_avg_score: 1.0, response_match_score: 0.75 } };

describeEvalSet(new URL('../passing.evalset.json', import.meta.url).pathname, {
  agent: weatherAgent(),
  config,
});
describeEvalSet(new URL('../failing.evalset.json', import.meta.url).pathname, {
  agent: weatherAgent(),
  config,
});
