// Writes AgentConfig.json from the schema definition (run: pnpm --filter @adk/config schema).
import { writeFileSync } from 'node:fs';
import { agentConfigJsonSchema } from '../src/schema/agent-config-schema.ts';

writeFileSync(
  new URL('../AgentConfig.json', import.meta.url),
  `${JSON.stringify(agentConfigJsonSchema, null, 2)}\n`,
);
