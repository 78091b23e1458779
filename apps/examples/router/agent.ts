import { LlmAgent } from '@adk/core';
import { model } from '../_shared/model.js';
import { calculator, weather } from '../_shared/tools.js';

const mathTutor = new LlmAgent({
  name: 'math_tutor',
  description: 'Solves math and arithmetic problems, showing the calculation.',
  model,
  instruction: 'Solve the problem with the calculate tool and explain the steps briefly.',
  tools: [calculator],
});

const travelGuide = new LlmAgent({
  name: 'travel_guide',
  description: 'Plans a trip or visit to a city and checks the weather there.',
  model,
  instruction: 'Suggest what to do in the city the user names; check its weather with get_weather.',
  tools: [weather],
});

/**
 * A router: it answers small talk itself and hands math questions and travel plans to the
 * sub-agent that fits (transfer_to_agent). Sub-agents may hand back to the router or to each other.
 */
export const rootAgent = new LlmAgent({
  name: 'router',
  description: 'Routes each request to the best specialist.',
  model,
  instruction:
    'Greet the user and find out what they need. Transfer math questions to math_tutor and travel questions to travel_guide.',
  subAgents: [mathTutor, travelGuide],
});
