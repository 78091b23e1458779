import type { InvocationContext } from '../agents/invocation-context.js';
import type { LlmAgent } from '../agents/llm-agent.js';
import { createEvent, type Event, eventFunctionResponses, isFinalResponse } from '../events/event.js';
import { modelCapabilities } from '../models/capabilities.js';
import { resolveModel } from '../models/registry.js';
import { SET_MODEL_RESPONSE_TOOL_NAME, SetModelResponseTool } from '../tools/set-model-response-tool.js';
import { pythonJsonDumps } from './python-json.js';

export { SET_MODEL_RESPONSE_TOOL_NAME, SetModelResponseTool };

// adk-python 2.x's output-schema request processor: its texts, its round limit, its final event.

/** Added to the system instruction with the tool when the schema is an object (its fields are the parameters). */
export const SET_MODEL_RESPONSE_FIELDS_INSTRUCTION =
  'After completing any needed tool calls, you must provide your final response by calling set_model_response with the required fields.';

/** Added instead when the schema is not an object (a list, a primitive: a single parameter). */
export const SET_MODEL_RESPONSE_VALUE_INSTRUCTION =
  'IMPORTANT: After using any needed tools, you MUST call set_model_response to provide your final answer. This is required to complete the task.';

/** Tool rounds in one turn before the model may call only set_model_response (N-1) and the run ends (N). */
export const DEFAULT_MAX_TOOL_ROUNDS = 25;

/** The error code of the event that ends a turn that never called set_model_response. */
export const MAX_TOOL_ROUNDS_EXCEEDED = 'MAX_TOOL_ROUNDS_EXCEEDED';

/** What an agent's output schema does to the next request. */
export type OutputSchemaPlan =
  /** The response schema goes in the config (no tools, or a model that takes both). */
  | { kind: 'config' }
  /** The agent gets the set_model_response tool; `only` restricts the model to it. */
  | { kind: 'tool'; tool: SetModelResponseTool; only: boolean }
  /** The turn made too many tool rounds without an answer: it ends with an error event. */
  | { kind: 'exceeded'; rounds: number };

const tools = new WeakMap<LlmAgent, SetModelResponseTool>();

/** The agent's set_model_response tool (one per agent: its declaration is built once). */
export function setModelResponseTool(agent: LlmAgent): SetModelResponseTool | undefined {
  if (!agent.outputSchema) return undefined;
  let tool = tools.get(agent);
  if (!tool || tool.outputSchema !== agent.outputSchema) {
    tool = new SetModelResponseTool(agent.outputSchema);
    tools.set(agent, tool);
  }
  return tool;
}

/**
 * Whether the agent's model takes a response schema together with tools. A model that cannot be
 * resolved counts as not (the model call reports why it cannot be resolved).
 */
function schemaWithTools(agent: LlmAgent, ctx: InvocationContext): boolean {
  const model = agent.canonicalModel;
  if (model === undefined) return false;
  try {
    return modelCapabilities(resolveModel(model, ctx.models)).responseSchemaWithTools;
  } catch {
    return false;
  }
}

/** Whether the output schema goes in the request's config: the agent has no tools, or its model takes both. */
export function responseSchemaInConfig(agent: LlmAgent, ctx: InvocationContext): boolean {
  return agent.outputSchema !== undefined && (agent.tools.length === 0 || schemaWithTools(agent, ctx));
}

/** `ADK_MAX_TOOL_ROUNDS` where an environment exists (adk-python's setting), else 25; 0 turns the limit off. */
function maxToolRounds(): number {
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env;
  const value = env?.ADK_MAX_TOOL_ROUNDS;
  if (value === undefined || value === '') return DEFAULT_MAX_TOOL_ROUNDS;
  const n = Number(value);
  return Number.isInteger(n) ? n : DEFAULT_MAX_TOOL_ROUNDS;
}

/** The agent's consecutive tool rounds in this turn: its function-response events since its last final response. */
function toolRounds(agent: LlmAgent, ctx: InvocationContext): number {
  let rounds = 0;
  const events = ctx.session.events;
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i] as Event;
    if (event.invocationId !== ctx.invocationId) break;
    if (event.branch !== ctx.branch || event.author !== agent.name) continue;
    if (eventFunctionResponses(event).length > 0) rounds++;
    else if (isFinalResponse(event)) break;
  }
  return rounds;
}

/**
 * How an agent with an output schema asks for it in its next request (adk-python 2.x): without
 * tools, or when its model declares `responseSchemaWithTools`, as the response schema; otherwise
 * with the set_model_response tool, forced on the last round before the limit.
 */
export function outputSchemaPlan(agent: LlmAgent, ctx: InvocationContext): OutputSchemaPlan | undefined {
  const tool = setModelResponseTool(agent);
  if (!tool) return undefined;
  if (responseSchemaInConfig(agent, ctx)) return { kind: 'config' };
  const max = maxToolRounds();
  const rounds = max > 0 ? toolRounds(agent, ctx) : 0;
  if (max > 0 && rounds >= max) return { kind: 'exceeded', rounds };
  return { kind: 'tool', tool, only: max > 0 && rounds >= max - 1 };
}

/** The instruction that goes with the tool (which depends on the schema's shape). */
export function setModelResponseInstruction(tool: SetModelResponseTool): string {
  return tool.shape === 'fields'
    ? SET_MODEL_RESPONSE_FIELDS_INSTRUCTION
    : SET_MODEL_RESPONSE_VALUE_INSTRUCTION;
}

/** The event that ends a turn which reached the tool-round limit (adk-python's code and message). */
export function toolRoundsExceededEvent(agent: LlmAgent, ctx: InvocationContext, rounds: number): Event {
  return createEvent({
    invocationId: ctx.invocationId,
    author: agent.name,
    branch: ctx.branch,
    errorCode: MAX_TOOL_ROUNDS_EXCEEDED,
    errorMessage: `Tool execution reached ${rounds} rounds without producing structured output via set_model_response. Breaking loop to prevent runaway API costs.`,
  });
}

/**
 * After a tool round that answered set_model_response with a validated value: the agent's final
 * answer, a model event whose text is that value as Python's `json.dumps(…, ensure_ascii=False)`
 * prints it. Undefined when the round has no such answer (the call failed validation: the model
 * gets another turn).
 */
export function structuredResponseEvent(
  agent: LlmAgent,
  ctx: InvocationContext,
  responseEvent: Event,
): Event | undefined {
  const value = responseEvent.actions.setModelResponse;
  if (value === undefined) return undefined;
  if (!eventFunctionResponses(responseEvent).some((r) => r.name === SET_MODEL_RESPONSE_TOOL_NAME))
    return undefined;
  return createEvent({
    invocationId: ctx.invocationId,
    author: agent.name,
    branch: ctx.branch,
    content: { role: 'model', parts: [{ text: pythonJsonDumps(value, { ensureAscii: false }) }] },
  });
}
