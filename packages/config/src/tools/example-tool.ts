import {
  BaseTool,
  type Content,
  type FewShotExample,
  type FunctionDeclaration,
  fewShotInstruction,
  type LlmRequest,
  type ReadonlyContext,
} from '@adk/core';

/** One few-shot example: what the user said, and the turns the model answered with. */
export interface Example extends FewShotExample {
  input: Content;
  output: Content[];
}

/** The examples as ADK's instruction block (adk-python's few-shot text, see `fewShotInstruction`). */
export function formatExamples(examples: readonly Example[], model?: string): string {
  return fewShotInstruction(examples, model);
}

/**
 * Few-shot examples for the model (ADK's ExampleTool). It declares no function: as in ADK, it
 * appends the examples to the system instruction of a request whose invocation began with a user
 * message whose first part is text.
 */
export class ExampleTool extends BaseTool {
  readonly examples: readonly Example[];

  constructor(examples: readonly Example[]) {
    super({ name: 'example_tool', description: 'example tool' });
    this.examples = examples;
  }

  declaration(): FunctionDeclaration | undefined {
    return undefined;
  }

  async run(): Promise<unknown> {
    return { error: 'example_tool only adds examples to the instruction and cannot be called.' };
  }

  override processLlmRequest(context: ReadonlyContext, request: LlmRequest): void {
    if (!context.userContent?.parts[0]?.text) return;
    const block = formatExamples(this.examples, request.model);
    request.systemInstruction = request.systemInstruction
      ? `${request.systemInstruction}\n\n${block}`
      : block;
  }
}
