import type { LlmResponse, ModelErrorCode, Part, UsageMetadata } from '@adk/core';
import { tryParseJson } from '@adk/core';
import type { InteractionEvent, InteractionObject, InteractionStep, InteractionUsage } from './wire.js';

interface StepState {
  step: Record<string, unknown>;
  text: string;
  summary: string;
  signature?: string;
  /** Streamed function-call arguments (JSON text), when the call's arguments arrive as deltas. */
  args?: string;
}

/** Folds an interaction, or the events of a streamed one, into one aggregated LlmResponse. */
export class InteractionAccumulator {
  private readonly steps = new Map<number, StepState>();
  private interaction: InteractionObject | undefined;
  private usage: InteractionUsage | undefined;
  private error: { code: string; message: string } | undefined;
  finished = false;

  get interactionId(): string | undefined {
    return this.interaction?.id;
  }

  addInteraction(interaction: InteractionObject): void {
    this.interaction = interaction;
    if (interaction.usage) this.usage = interaction.usage;
    // Output steps only: the input steps come back when the interaction echoes them.
    const output = (interaction.steps ?? []).filter(
      (s) => s.type !== 'user_input' && s.type !== 'function_result',
    );
    output.forEach((step, index) => {
      this.steps.set(index, stateOf(step));
    });
    if (!['in_progress', 'queued'].includes(interaction.status)) this.finished = true;
  }

  /** Adds a stream event; returns the text or thought delta it carried, if any. */
  addEvent(event: InteractionEvent): Part | undefined {
    switch (event.event_type) {
      case 'interaction.created':
        if (event.interaction) this.interaction = event.interaction;
        return undefined;
      case 'step.start':
        if (event.index !== undefined && event.step) this.steps.set(event.index, stateOf(event.step));
        return undefined;
      case 'step.delta': {
        const state = event.index === undefined ? undefined : this.steps.get(event.index);
        const delta = event.delta as Record<string, unknown> | undefined;
        if (!state || !delta) return undefined;
        switch (delta.type) {
          case 'text':
            if (typeof delta.text !== 'string' || delta.text === '') return undefined;
            state.text += delta.text;
            return { text: delta.text };
          case 'thought_summary': {
            const content = delta.content as { text?: unknown } | undefined;
            if (typeof content?.text !== 'string' || content.text === '') return undefined;
            state.summary += content.text;
            return { text: content.text, thought: true };
          }
          case 'thought_signature':
            if (typeof delta.signature === 'string')
              state.signature = (state.signature ?? '') + delta.signature;
            return undefined;
          case 'arguments_delta':
            if (typeof delta.arguments === 'string') state.args = (state.args ?? '') + delta.arguments;
            return undefined;
          default: {
            // A built-in tool's step filled in by deltas: its fields join the step.
            const { type: _t, ...fields } = delta;
            Object.assign(state.step, fields);
            return undefined;
          }
        }
      }
      case 'step.stop':
        if (event.usage) this.usage = event.usage;
        return undefined;
      case 'interaction.completed':
        if (event.interaction) {
          this.interaction = { ...event.interaction, steps: this.interaction?.steps ?? [] };
          if (event.interaction.usage) this.usage = event.interaction.usage;
        }
        this.finished = true;
        return undefined;
      case 'interaction.status_update':
        if (this.interaction && event.status)
          this.interaction = { ...this.interaction, status: event.status };
        return undefined;
      case 'error':
        this.error = {
          code: event.error?.code ?? 'INTERNAL',
          message: event.error?.message ?? 'The interaction failed.',
        };
        this.finished = true;
        return undefined;
      default:
        return undefined;
    }
  }

  result(): LlmResponse {
    const parts: Part[] = [];
    for (const index of [...this.steps.keys()].sort((a, b) => a - b))
      parts.push(...partsOf(this.steps.get(index) as StepState));
    const response: LlmResponse = { turnComplete: true };
    if (parts.length > 0) response.content = { role: 'model', parts };
    const status = this.interaction?.status;
    if (this.error) {
      // The vendor's own code, carried as it came.
      response.errorCode = this.error.code as ModelErrorCode;
      response.errorMessage = `Gemini Interactions API: ${this.error.message}`;
      response.finishReason = 'OTHER';
    } else if (status === 'failed' || status === 'cancelled') {
      response.errorCode = status === 'failed' ? 'INTERACTION_FAILED' : 'INTERACTION_CANCELLED';
      response.errorMessage = `The interaction ended with status ${status}.`;
      response.finishReason = 'OTHER';
    } else if (status === 'incomplete' || status === 'budget_exceeded') response.finishReason = 'MAX_TOKENS';
    else if (status) response.finishReason = 'STOP';
    const usage = this.usage ? usageOf(this.usage) : undefined;
    if (usage) response.usageMetadata = usage;
    if (this.interaction?.model) response.modelVersion = this.interaction.model;
    response.customMetadata = {
      ...(this.interaction?.id ? { interactionId: this.interaction.id } : {}),
      ...(status ? { status } : {}),
    };
    return response;
  }
}

function stateOf(step: InteractionStep): StepState {
  const state: StepState = { step: { ...step }, text: '', summary: '' };
  if (step.type === 'model_output' && Array.isArray(step.content))
    for (const c of step.content as Record<string, unknown>[])
      if (c.type === 'text' && typeof c.text === 'string') state.text += c.text;
  if (step.type === 'thought') {
    if (typeof step.signature === 'string') state.signature = step.signature;
    if (Array.isArray(step.summary))
      for (const c of step.summary as Record<string, unknown>[])
        if (c.type === 'text' && typeof c.text === 'string') state.summary += c.text;
  }
  return state;
}

function partsOf(state: StepState): Part[] {
  const step = state.step;
  switch (step.type) {
    case 'model_output':
      return state.text ? [{ text: state.text }] : [];
    case 'thought':
      return [
        {
          text: state.summary,
          thought: true,
          ...(state.signature ? { thoughtSignature: state.signature } : {}),
        },
      ];
    case 'function_call': {
      let args: unknown = step.arguments ?? {};
      let invalid: string | undefined;
      if (state.args !== undefined && state.args.trim() !== '') {
        args = tryParseJson(state.args);
        if (args === undefined) invalid = state.args;
      }
      const valid =
        invalid === undefined && typeof args === 'object' && args !== null && !Array.isArray(args);
      return [
        {
          functionCall: {
            id: typeof step.id === 'string' ? step.id : '',
            name: typeof step.name === 'string' ? step.name : '',
            args: valid ? (args as Record<string, unknown>) : {},
            ...(valid ? {} : { invalidArgs: invalid ?? JSON.stringify(args) }),
          },
        },
      ];
    }
    default: {
      // Built-in tool steps (google_search_call/result, url_context_…, code_execution_…, file_search_…).
      const type = String(step.type);
      const id = String(step.id ?? step.call_id ?? '');
      const parts: Part[] = [];
      if (type.endsWith('_call'))
        parts.push({
          serverToolUse: {
            id,
            name: type.replace(/_call$/, ''),
            input: isRecord(step.arguments) ? step.arguments : {},
          },
        });
      parts.push({ serverToolResult: { toolUseId: id, type, content: step } });
      return parts;
    }
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function usageOf(u: InteractionUsage): UsageMetadata {
  const usage: UsageMetadata = {};
  if (u.total_input_tokens != null) usage.promptTokenCount = u.total_input_tokens;
  if (u.total_output_tokens != null) usage.candidatesTokenCount = u.total_output_tokens;
  if (u.total_thought_tokens != null) usage.thoughtsTokenCount = u.total_thought_tokens;
  if (u.total_cached_tokens != null) usage.cachedContentTokenCount = u.total_cached_tokens;
  if (u.total_tool_use_tokens != null) usage.toolUsePromptTokenCount = u.total_tool_use_tokens;
  if (u.total_tokens != null) usage.totalTokenCount = u.total_tokens;
  return usage;
}
