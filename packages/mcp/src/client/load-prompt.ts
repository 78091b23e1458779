import type { InstructionProvider } from '@adk/core';
import type { McpToolset } from './mcp-toolset.js';

/**
 * Loads a prompt of the toolset's server (`prompts/get`) as instruction text: the text of its
 * messages (and of embedded text resources) joined by blank lines. Images and audio in a prompt
 * cannot be part of an instruction and are left out.
 */
export async function loadMcpPrompt(
  toolset: McpToolset,
  name: string,
  args: Record<string, string> = {},
  signal?: AbortSignal,
): Promise<string> {
  const result = await toolset.getPrompt(name, args, signal);
  const texts: string[] = [];
  for (const message of result.messages) {
    const c = message.content;
    if (c.type === 'text') texts.push(c.text);
    else if (c.type === 'resource' && 'text' in c.resource && typeof c.resource.text === 'string')
      texts.push(c.resource.text);
  }
  return texts.join('\n\n');
}

/**
 * An instruction provider for an agent that loads the prompt on first use and keeps it
 * (`new LlmAgent({ instruction: mcpPromptInstruction(toolset, 'review') })`).
 */
export function mcpPromptInstruction(
  toolset: McpToolset,
  name: string,
  args: Record<string, string> = {},
): InstructionProvider {
  let loaded: Promise<string> | undefined;
  return (context) => {
    loaded ??= loadMcpPrompt(toolset, name, args, context.signal);
    const current = loaded;
    current.catch(() => {
      if (loaded === current) loaded = undefined;
    });
    return current;
  };
}
