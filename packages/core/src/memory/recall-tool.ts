/**
 * The `recall` tool as an agent with `memory.observe` is built with it: its name and declaration.
 * Reading observations (`observe.ts`) is imported by its first call, so that building such an agent,
 * or any agent, does not load the observer.
 */
import type { BaseTool } from '../tools/base-tool.js';
import { FunctionTool } from '../tools/function-tool.js';

/** Name of the tool an agent with `memory.observe` gets. */
export const RECALL_TOOL_NAME = 'recall';

/**
 * The `recall` tool of an agent with `memory.observe`: expands an observation (by the id its block
 * starts with) back to the original events it stands for, a page at a time.
 */
export function recallTool(): BaseTool {
  return new FunctionTool({
    name: RECALL_TOOL_NAME,
    description:
      'Returns the original messages an observation of the earlier conversation was made from. Pass the id shown at the start of the observation block.',
    parameters: {
      type: 'object',
      properties: {
        id: { type: 'string', description: 'The observation id (from "[observation <id> …]").' },
        offset: { type: 'integer', description: 'Index of the first message to return (default 0).' },
        limit: { type: 'integer', description: 'Most messages to return (default 50).' },
      },
      required: ['id'],
    },
    execute: async (args, context) => (await loadObserve()).recallAnswer(args, context.session.events),
  });
}

let observe: Promise<typeof import('./observe.js')> | undefined;
/** The observer's records, imported once by the tool's first call. */
const loadObserve = () => (observe ??= import('./observe.js'));
