import { AgentTool, LlmAgent } from '@adk/core';

// An agent used as a tool whose answer is returned as is (skipSummarization).
const condenser = new LlmAgent({
  name: 'condenser',
  model: 'gemini-2.0-flash',
  description: 'Condenses a text to a few sentences',
  instruction: 'Condense the text you are given into two sentences.',
});

export const rootAgent = new LlmAgent({
  name: 'desk',
  model: 'gemini-2.5-flash',
  instruction: 'Pass any text the user sends, unchanged, to the condenser tool and report what it returns.',
  tools: [new AgentTool({ agent: condenser, skipSummarization: true })],
});
