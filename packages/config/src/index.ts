export { type CheckAgentConfigOptions, checkAgentConfig } from './check-config.js';
export {
  AgentConfigError,
  type AgentConfigErrorInit,
  AgentConfigNotSupportedError,
} from './errors.js';
export {
  type AgentConfigOptions,
  type CustomAgentConfigContext,
  isConfigApp,
  loadAgentFromConfig,
  parseAgentConfig,
  ROOT_AGENT_FILE,
  readAgentConfig,
} from './load-agent.js';
export { clearConfigReferences, registerConfigReferences } from './references.js';
export type { ModuleImporter } from './resolve-code.js';
export { AGENT_CONFIG_SCHEMA_ID, agentConfigJsonSchema } from './schema/agent-config-schema.js';
export { type Example, ExampleTool, formatExamples } from './tools/example-tool.js';
export { LongRunningFunctionTool } from './tools/long-running-function-tool.js';
export type * from './types.js';
