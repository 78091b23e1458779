// The code root_agent.yaml and packing_advisor.yaml refer to by dotted name.
import type { AgentHookArgs } from '@adk/core';

export { model } from '../_shared/model.js';
export { weather as get_weather } from '../_shared/tools.js';

/** A before-agent callback: counts the user's visits in user state (`user:visits`). */
export function count_visits({ context }: AgentHookArgs): undefined {
  context.state.set('user:visits', Number(context.state.get('user:visits') ?? 0) + 1);
  return undefined;
}
