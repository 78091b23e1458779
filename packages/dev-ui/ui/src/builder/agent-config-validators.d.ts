// The validators compiled from @adk/config's AgentConfig.json at build time (see ui/agent-config-validators.ts).
declare module 'virtual:agent-config-validators' {
  export interface SchemaError {
    instancePath: string;
    keyword: string;
    params: Record<string, unknown>;
    message?: string;
  }
  export type Validate = ((data: unknown) => boolean) & { errors?: SchemaError[] | null };
  export const BaseAgentConfig: Validate;
  export const LlmAgentConfig: Validate;
  export const LoopAgentConfig: Validate;
  export const ParallelAgentConfig: Validate;
  export const SequentialAgentConfig: Validate;
  export const WorkflowConfig: Validate;
  export const definitions: string[];
}

// Text of a YAML file, as Vite's `?raw` imports it (the Builder's tests read the example app so).
declare module '*.yaml?raw' {
  const text: string;
  export default text;
}
