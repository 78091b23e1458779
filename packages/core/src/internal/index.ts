/**
 * `@adk/core/internal`: helpers our own packages share (ids, JSON and zod helpers, event and state
 * plumbing, prompt texts). Not part of the documented API: names here may change in any minor
 * version. The root still re-exports them for one minor version; they leave it after that
 * (docs/decisions/0049-internal-subpath.md). Import them from here.
 */
export { asArray, firstResult } from '../agents/base-agent.js';
export { artifactMimeType, assertSafeArtifactName } from '../artifacts/artifact-service.js';
export { describeError, errorCodeOf } from '../errors/errors.js';
export { eventFunctionCalls, eventFunctionResponses, eventTimestamp } from '../events/event.js';
export { eventSchemas } from '../events/schemas.js';
export {
  fewShotInstruction,
  isDynamicInstructionContent,
  OTHER_AGENT_CONTEXT_PREAMBLE,
  presentOtherAgentTurn,
  withLongRunningNote,
} from '../flow/adk-prompts.js';
export { safeCut } from '../flow/compression.js';
export { pendingConfirmations } from '../flow/confirmation.js';
export { resolveInstruction } from '../flow/instructions.js';
export { originalCallOf } from '../flow/original-call.js';
export { transferTargets } from '../flow/transfer.js';
export { GUARDRAILS_METADATA_KEY } from '../guardrails/guardrail.js';
export { supportsLive } from '../models/llm-connection.js';
export { providerOptionsFor } from '../models/provider-options.js';
export { resolveModel } from '../models/registry.js';
export { DEFAULT_ORPHAN_AFTER_MS } from '../runs/run-manager.js';
export { isRunFinished } from '../runs/run-store.js';
export { applyEventToSession, persistableEvent } from '../sessions/apply-event.js';
export { mergeState, splitStateDelta } from '../sessions/state.js';
export { sessionStateAt } from '../sessions/time-travel.js';
export { rewoundEventIds } from '../sessions/visible-events.js';
export { isToolset } from '../tools/toolset.js';
export { delay, delayUnlessAborted } from '../utils/abort.js';
export { evictOldest } from '../utils/bounded.js';
export { newId } from '../utils/ids.js';
export { isPlainObject, parseJson, tryParseJson } from '../utils/json.js';
export { deferredSchema, formatIssues, lazyZod } from '../utils/zod.js';
export { agentOfNode } from '../workflow/workflow.js';
