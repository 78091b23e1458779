import type { FunctionDeclaration } from '../models/llm.js';
import { BaseTool } from './base-tool.js';
import type { ToolContext } from './tool-context.js';

/**
 * `stop_streaming` (as in adk-python): lets a live model stop a streaming tool it started. Add it to
 * an agent's tools next to its streaming tools; it stops every running call of the named function
 * (their `toolContext.signal` aborts and nothing more of them reaches the model).
 */
export class StopStreamingTool extends BaseTool {
  constructor() {
    super({ name: 'stop_streaming', description: 'Stops a streaming function that is running.' });
  }

  declaration(): FunctionDeclaration {
    return {
      name: this.name,
      description: this.description,
      parameters: {
        type: 'object',
        properties: {
          function_name: { type: 'string', description: 'The name of the streaming function to stop.' },
        },
        required: ['function_name'],
      },
    };
  }

  async run(args: Record<string, unknown>, context: ToolContext): Promise<unknown> {
    const name = args.function_name;
    if (typeof name !== 'string' || name === '') return { error: 'function_name must be a non-empty string' };
    const stopped = context.invocationContext.stopStreaming?.(name) ?? 0;
    if (stopped === 0) return { error: `No streaming call of "${name}" is running.` };
    return { status: `Stopped ${stopped} streaming call${stopped === 1 ? '' : 's'} of "${name}".` };
  }
}

export const stopStreamingTool = /* @__PURE__ */ new StopStreamingTool();
