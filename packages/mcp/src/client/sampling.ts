import { type Content, contentText, type Llm, type LlmRequest, type Part } from '@adk/core';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CreateMessageRequest, CreateMessageResult } from '@modelcontextprotocol/sdk/types.js';

/**
 * Lets an MCP server ask our model (`sampling/createMessage`). Off unless a toolset is given one:
 * a server can spend tokens on our account and put words in our model's mouth.
 */
export interface McpSamplingPolicy {
  /** The model that answers the server's requests. */
  model: Llm;
  /** Upper bound on the tokens of one answer (the server's `maxTokens` is lowered to it; default 1024). */
  maxTokens?: number;
  /** Decides per request; refused requests get a JSON-RPC error. Default: every request is allowed. */
  allow?: (request: CreateMessageRequest['params']) => boolean | Promise<boolean>;
  /** Keep the server's `systemPrompt` (default true). */
  useServerSystemPrompt?: boolean;
}

/** Registers the sampling handler on a client whose toolset allows sampling. */
export async function registerSampling(
  client: Client,
  policy: McpSamplingPolicy,
  server: string,
): Promise<void> {
  const { CreateMessageRequestSchema, McpError, ErrorCode } = await import(
    '@modelcontextprotocol/sdk/types.js'
  );
  client.setRequestHandler(CreateMessageRequestSchema, async (request, extra) => {
    const params = request.params;
    if (policy.allow && !(await policy.allow(params))) {
      throw new McpError(ErrorCode.InvalidRequest, `Sampling request refused by the policy of "${server}"`);
    }
    return sample(policy, params, extra.signal);
  });
}

async function sample(
  policy: McpSamplingPolicy,
  params: CreateMessageRequest['params'],
  signal: AbortSignal,
): Promise<CreateMessageResult> {
  const contents: Content[] = params.messages.map((message) => ({
    role: message.role === 'assistant' ? 'model' : 'user',
    parts: (Array.isArray(message.content) ? message.content : [message.content]).flatMap(toPart),
  }));
  const maxTokens = Math.min(params.maxTokens, policy.maxTokens ?? 1024);
  const request: LlmRequest = {
    model: policy.model.model,
    contents,
    config: {
      maxOutputTokens: maxTokens,
      ...(params.temperature === undefined ? {} : { temperature: params.temperature }),
      ...(params.stopSequences ? { stopSequences: params.stopSequences } : {}),
    },
    ...(params.systemPrompt && policy.useServerSystemPrompt !== false
      ? { systemInstruction: params.systemPrompt }
      : {}),
  };
  let final: Content | undefined;
  let finishReason: string | undefined;
  for await (const response of policy.model.generate(request, { signal })) {
    if (response.partial) continue;
    if (response.errorCode)
      throw new Error(`The model failed: ${response.errorMessage ?? response.errorCode}`);
    if (response.content) final = response.content;
    finishReason = response.finishReason;
  }
  return {
    role: 'assistant',
    content: { type: 'text', text: contentText(final) },
    model: policy.model.model,
    stopReason: finishReason === 'MAX_TOKENS' ? 'maxTokens' : 'endTurn',
  };
}

function toPart(content: unknown): Part[] {
  const c = content as { type?: string; text?: string; data?: string; mimeType?: string };
  if (c.type === 'text' && typeof c.text === 'string') return [{ text: c.text }];
  if (
    (c.type === 'image' || c.type === 'audio') &&
    typeof c.data === 'string' &&
    typeof c.mimeType === 'string'
  ) {
    return [{ inlineData: { mimeType: c.mimeType, data: c.data } }];
  }
  return [];
}
