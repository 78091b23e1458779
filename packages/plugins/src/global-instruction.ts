import { type BeforeModelArgs, type InstructionProvider, type Plugin, resolveInstruction } from '@adk/core';

export interface GlobalInstructionPluginOptions {
  /**
   * The instruction: a template (with core's `{key}`, `{key?}`, `{app:key}`, `{user:key}`,
   * `{artifact.name}` substitution) or a function of the context.
   */
  instruction: InstructionProvider;
  /** Default `'global_instruction'`. */
  name?: string;
}

/**
 * Adds one instruction to every model request of the app (every agent, every runner the plugin is
 * given to), before the agent's own system instruction.
 */
export class GlobalInstructionPlugin implements Plugin {
  readonly name: string;
  private readonly instruction: InstructionProvider;

  constructor(options: GlobalInstructionPluginOptions | string) {
    const o = typeof options === 'string' ? { instruction: options } : options;
    this.name = o.name ?? 'global_instruction';
    this.instruction = o.instruction;
  }

  async beforeModel({ context, request }: BeforeModelArgs): Promise<undefined> {
    const text = (await resolveInstruction(this.instruction, context))?.trim();
    if (!text) return undefined;
    request.systemInstruction = request.systemInstruction ? `${text}\n\n${request.systemInstruction}` : text;
    return undefined;
  }
}
