/**
 * The guardrail checks as the agent loop calls them: a synchronous look-up first, and the checks
 * (`run-guardrails.ts`) imported on the first turn that has a guardrail to run, so an app without
 * guardrails never loads them. Same arguments and results as the functions they stand for.
 */
import type { BaseAgent } from '../agents/base-agent.js';
import type { CallbackContext } from '../agents/callback-context.js';
import type { InvocationContext } from '../agents/invocation-context.js';
import type { Content } from '../events/content.js';
import type { LlmRequest, LlmResponse } from '../models/llm.js';
import type { GuardrailRecord } from './guardrail.js';
import { guardrailsAt, hasInputGuardrails } from './guardrails-of.js';
import type { CheckedInput, StructuredAnswerTool } from './run-guardrails.js';

let checks: Promise<typeof import('./run-guardrails.js')> | undefined;
/** The guardrail checks, imported once on first use. */
export const loadGuardrailChecks = () => (checks ??= import('./run-guardrails.js'));

/** See `run-guardrails.ts` `checkInput`: undefined at once when no input guardrail applies. */
export async function checkInput(
  ctx: InvocationContext,
  root: BaseAgent,
  message: Content,
): Promise<CheckedInput | undefined> {
  if (!hasInputGuardrails(ctx.pluginManager, root)) return undefined;
  return (await loadGuardrailChecks()).checkInput(ctx, root, message);
}

/** See `run-guardrails.ts` `checkModelResponse`: the response itself when no guardrail applies. */
export async function checkModelResponse(
  ctx: InvocationContext,
  agent: BaseAgent,
  context: CallbackContext,
  request: LlmRequest,
  response: LlmResponse,
  structured?: StructuredAnswerTool,
): Promise<LlmResponse> {
  if (!response.content || response.content.parts.length === 0) return response;
  if (guardrailsAt(ctx, agent, 'output').length === 0 && guardrailsAt(ctx, agent, 'toolInput').length === 0)
    return response;
  return (await loadGuardrailChecks()).checkModelResponse(ctx, agent, context, request, response, structured);
}

/** See `run-guardrails.ts` `checkToolResult`: the result itself when no guardrail applies. */
export async function checkToolResult(
  ctx: InvocationContext,
  context: CallbackContext,
  toolName: string,
  callId: string,
  args: Record<string, unknown>,
  result: Record<string, unknown>,
  records: GuardrailRecord[],
): Promise<Record<string, unknown>> {
  if (guardrailsAt(ctx, ctx.agent, 'toolOutput').length === 0) return result;
  return (await loadGuardrailChecks()).checkToolResult(ctx, context, toolName, callId, args, result, records);
}
