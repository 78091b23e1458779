// A scripted model for Mastra, written to the AI SDK's LanguageModelV2 contract (the one Mastra's
// `Agent` takes as a model instance): it answers at once, so a figure measured through it is
// Mastra's own cost with zero model latency. `delayMs` adds a fixed latency per call when asked.

/** What the scripted model answers for one call: text, or one tool call. */
export type MastraScriptedAnswer = { text: string } | { toolCall: { name: string; input: unknown } };

interface V2Prompt {
  prompt: { role: string; content: unknown }[];
  abortSignal?: AbortSignal;
}

export interface MastraScriptedModel {
  readonly specificationVersion: 'v2';
  readonly provider: string;
  readonly modelId: string;
  readonly supportedUrls: Record<string, RegExp[]>;
  calls: number;
  doGenerate(options: V2Prompt): Promise<unknown>;
  doStream(options: V2Prompt): Promise<{ stream: ReadableStream<unknown> }>;
}

const usage = { inputTokens: 120, outputTokens: 30, totalTokens: 150 };

export function mastraScriptedModel(
  respond: (prompt: V2Prompt['prompt']) => MastraScriptedAnswer,
  options: { delayMs?: number } = {},
): MastraScriptedModel {
  let ids = 0;
  const wait = () =>
    options.delayMs ? new Promise<void>((resolve) => setTimeout(resolve, options.delayMs)) : undefined;
  const model: MastraScriptedModel = {
    specificationVersion: 'v2',
    provider: 'bench',
    modelId: 'scripted',
    supportedUrls: {},
    calls: 0,
    async doGenerate({ prompt }) {
      model.calls++;
      await wait();
      const answer = respond(prompt);
      const id = `c${++ids}`;
      return 'text' in answer
        ? { content: [{ type: 'text', text: answer.text }], finishReason: 'stop', usage, warnings: [] }
        : {
            content: [
              {
                type: 'tool-call',
                toolCallId: id,
                toolName: answer.toolCall.name,
                input: JSON.stringify(answer.toolCall.input),
              },
            ],
            finishReason: 'tool-calls',
            usage,
            warnings: [],
          };
    },
    async doStream({ prompt }) {
      model.calls++;
      await wait();
      const answer = respond(prompt);
      const id = `c${++ids}`;
      const parts: unknown[] = [{ type: 'stream-start', warnings: [] }];
      if ('text' in answer) {
        parts.push(
          { type: 'text-start', id },
          { type: 'text-delta', id, delta: answer.text },
          { type: 'text-end', id },
          { type: 'finish', finishReason: 'stop', usage },
        );
      } else {
        parts.push(
          {
            type: 'tool-call',
            toolCallId: id,
            toolName: answer.toolCall.name,
            input: JSON.stringify(answer.toolCall.input),
          },
          { type: 'finish', finishReason: 'tool-calls', usage },
        );
      }
      return {
        stream: new ReadableStream({
          start(controller) {
            for (const part of parts) controller.enqueue(part);
            controller.close();
          },
        }),
      };
    },
  };
  return model;
}
