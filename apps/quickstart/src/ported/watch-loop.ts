import { FunctionTool, LlmAgent, LoopAgent } from '@adk/core';
import { z } from 'zod';

export const alerts: string[] = [];
let reading = 36;

// No `parameters`: the tool takes no arguments; it returns a bare number.
const readSensor = new FunctionTool({
  name: 'read_sensor',
  description: 'Reads the current temperature.',
  execute: async () => reading++,
});

const raiseAlert = new FunctionTool({
  name: 'raise_alert',
  description: 'Alerts the user that the temperature is above the threshold.',
  parameters: z.object({ temperature: z.number(), threshold: z.number() }),
  execute: ({ temperature, threshold }: { temperature: number; threshold: number }) => {
    alerts.push(`${temperature} > ${threshold}`);
  },
});

const watcher = new LlmAgent({
  name: 'watcher',
  model: 'gemini-2.5-flash',
  instruction: 'Read the temperature; raise an alert when it is above the threshold the user gave.',
  tools: [readSensor, raiseAlert],
});

export const rootAgent = new LoopAgent({ name: 'watch_loop', maxIterations: 2, subAgents: [watcher] });
