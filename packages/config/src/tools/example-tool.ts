import {
  BaseTool,
  type Content,
  type FunctionDeclaration,
  type LlmRequest,
  type ReadonlyContext,
} from '@adk/core';

/** One few-shot example: what the user said, and the turns the model answered with. */
export interface Example {
  input: Content;
  output: Content[];
}

function partText(part: Content['parts'][number]): string {
  if (part.text !== undefined) return part.text;
  if (part.functionCall)
    return `call ${part.functionCall.name}(${JSON.stringify(part.functionCall.args ?? {})})`;
  if (part.functionResponse) {
    return `result of ${part.functionResponse.name}: ${JSON.stringify(part.functionResponse.response ?? {})}`;
  }
  return '';
}

function turnText(content: Content): string {
  return content.parts
    .map(partText)
    .filter((t) => t !== '')
    .join('\n');
}

/** The examples as an instruction block. */
export function formatExamples(examples: readonly Example[]): string {
  const blocks = examples.map((example, i) => {
    const lines = [`Example ${i + 1}:`, `[user] ${turnText(example.input)}`];
    for (const turn of example.output)
      lines.push(`[${turn.role === 'user' ? 'user' : 'model'}] ${turnText(turn)}`);
    return lines.join('\n');
  });
  return [
    '<EXAMPLES>',
    'Answer in the way these example conversations show:',
    '',
    blocks.join('\n\n'),
    '</EXAMPLES>',
  ].join('\n');
}

/**
 * Few-shot examples for the model (ADK's ExampleTool). It declares no function: it appends the
 * examples to the system instruction of every request of its agent.
 */
export class ExampleTool extends BaseTool {
  readonly examples: readonly Example[];

  constructor(examples: readonly Example[]) {
    super({ name: 'example_tool', description: 'Few-shot examples for the model.' });
    this.examples = examples;
  }

  declaration(): FunctionDeclaration | undefined {
    return undefined;
  }

  async run(): Promise<unknown> {
    return { error: 'example_tool only adds examples to the instruction and cannot be called.' };
  }

  override processLlmRequest(_context: ReadonlyContext, request: LlmRequest): void {
    if (this.examples.length === 0) return;
    const block = formatExamples(this.examples);
    request.systemInstruction = request.systemInstruction
      ? `${request.systemInstruction}\n\n${block}`
      : block;
  }
}
