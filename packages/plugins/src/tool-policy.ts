import type { BeforeToolArgs, Event, MaybePromise, Plugin, RunHookArgs, ToolContext } from '@adk/core';

/** What a policy decides for one tool call. */
export type PolicyDecision =
  | { action: 'allow' }
  | { action: 'deny'; reason?: string }
  | { action: 'confirm'; hint?: string; payload?: unknown };

export interface ToolCallInfo {
  tool: string;
  args: Record<string, unknown>;
  context: ToolContext;
}

/** Decides, per call, whether a tool may run. Implement it to plug in any policy engine. */
export interface ToolPolicy {
  evaluate(call: ToolCallInfo): MaybePromise<PolicyDecision>;
}

export interface ToolPolicyRule {
  /** A tool name, a pattern, a list of names, or `'*'` for every tool. */
  tool: string | RegExp | readonly string[];
  /** Only when the arguments (and context) match; default: always. */
  when?: (args: Record<string, unknown>, context: ToolContext) => MaybePromise<boolean>;
  action: PolicyDecision['action'];
  /** Shown to the model on a denial. */
  reason?: string;
  /** Shown to the user when asking for confirmation. */
  hint?: string;
}

function matchesTool(pattern: ToolPolicyRule['tool'], name: string): boolean {
  if (pattern === '*') return true;
  if (typeof pattern === 'string') return pattern === name;
  if (pattern instanceof RegExp) return pattern.test(name);
  return pattern.includes(name);
}

/** A policy from rules: the first matching rule decides; otherwise `defaultAction` (allow). */
export function rulesPolicy(
  rules: readonly ToolPolicyRule[],
  options: { defaultAction?: PolicyDecision['action'] } = {},
): ToolPolicy {
  return {
    async evaluate({ tool, args, context }) {
      for (const rule of rules) {
        if (!matchesTool(rule.tool, tool)) continue;
        if (rule.when && !(await rule.when(args, context))) continue;
        if (rule.action === 'deny')
          return { action: 'deny', ...(rule.reason ? { reason: rule.reason } : {}) };
        if (rule.action === 'confirm')
          return { action: 'confirm', ...(rule.hint ? { hint: rule.hint } : {}) };
        return { action: 'allow' };
      }
      const fallback = options.defaultAction ?? 'allow';
      return fallback === 'deny' ? { action: 'deny' } : { action: fallback };
    },
  };
}

export interface ToolPolicyPluginOptions {
  policy: ToolPolicy;
  /** Default `'tool_policy'`. */
  name?: string;
}

/**
 * Allows, denies or asks the user to confirm each tool call according to a {@link ToolPolicy}.
 * A denial reaches the model as an error response (`{ error: 'Denied by policy: …' }`). A
 * confirmation uses core's protocol: the run pauses with an `adk_request_confirmation` call, and
 * the call runs (after the policy is asked again) once the user answers `{ confirmed: true }`; a
 * rejection reaches the model as core's error response.
 */
export class ToolPolicyPlugin implements Plugin {
  readonly name: string;
  private readonly policy: ToolPolicy;
  /** `${invocationId}\0${callId}` of calls paused for confirmation by this plugin */
  private readonly paused = new Set<string>();

  constructor(options: ToolPolicyPluginOptions | ToolPolicy) {
    const o: ToolPolicyPluginOptions =
      typeof (options as ToolPolicy).evaluate === 'function'
        ? { policy: options as ToolPolicy }
        : (options as ToolPolicyPluginOptions);
    this.name = o.name ?? 'tool_policy';
    this.policy = o.policy;
  }

  async beforeTool({ tool, args, context }: BeforeToolArgs): Promise<Record<string, unknown> | undefined> {
    const decision = await this.policy.evaluate({ tool: tool.name, args, context });
    if (decision.action === 'allow') return undefined;
    if (decision.action === 'deny') {
      return { error: `Denied by policy: ${decision.reason ?? `calling "${tool.name}" is not allowed`}` };
    }
    // Rejections never get here: core answers a rejected call before the tool hooks run.
    if (context.toolConfirmation?.confirmed) return undefined;
    context.requestConfirmation(
      decision.hint ?? `Please confirm the call of ${tool.name} with ${JSON.stringify(args)}.`,
      decision.payload,
    );
    this.paused.add(`${context.invocationId}\u0000${context.functionCallId}`);
    // A short-circuit needs a value; it is removed from the event below so the model only ever
    // sees the real response (or the rejection) for this call.
    return { status: 'awaiting_confirmation' };
  }

  afterRun({ context }: RunHookArgs): void {
    const prefix = `${context.invocationId}\u0000`;
    for (const key of this.paused) if (key.startsWith(prefix)) this.paused.delete(key);
  }

  /** Drops the placeholder responses of calls waiting for confirmation. */
  onEvent({ context, event }: RunHookArgs & { event: Event }): Event | undefined {
    const requested = event.actions.requestedToolConfirmations;
    if (!requested || !event.content) return undefined;
    const drop = new Set<string>();
    for (const part of event.content.parts) {
      const id = part.functionResponse?.id;
      const key = `${context.invocationId}\u0000${id}`;
      if (id !== undefined && requested[id] && this.paused.has(key)) {
        drop.add(id);
        this.paused.delete(key);
      }
    }
    if (drop.size === 0) return undefined;
    const parts = event.content.parts.filter((p) => !(p.functionResponse && drop.has(p.functionResponse.id)));
    const { content: _content, ...rest } = event;
    return parts.length > 0 ? { ...rest, content: { ...event.content, parts } } : rest;
  }
}
