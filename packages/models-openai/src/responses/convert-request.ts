import { type Content, type LlmRequest, type Part, providerOptionsFor, ValidationError } from '@adk/core';
import { toStrictSchema } from '../schema.js';
import { toResponsesHostedTool } from './hosted-tools.js';
import { MCP_APPROVAL_TOOL } from './mcp-approval.js';

/** Thought signatures of Responses reasoning items: `openai-reasoning:<item id>:<encrypted_content>`. */
export const REASONING_SIGNATURE_PREFIX = 'openai-reasoning:';

export function reasoningSignature(id: string, encrypted: string | undefined): string {
  return `${REASONING_SIGNATURE_PREFIX}${id}:${encrypted ?? ''}`;
}

function parseReasoningSignature(signature: string): { id: string; encrypted: string } | undefined {
  if (!signature.startsWith(REASONING_SIGNATURE_PREFIX)) return undefined;
  const rest = signature.slice(REASONING_SIGNATURE_PREFIX.length);
  const colon = rest.indexOf(':');
  if (colon <= 0) return undefined;
  return { id: rest.slice(0, colon), encrypted: rest.slice(colon + 1) };
}

export interface ResponsesRequestSettings {
  /** `strict` on every function tool (schemas rewritten for strict mode when true). */
  strictTools: boolean;
  strictJsonSchema: boolean;
  /** Keep nothing on OpenAI's side (`store: false`) and send reasoning back encrypted. */
  store: boolean;
  /** The model reasons (o-series, gpt-5): ask for summaries and, stateless, encrypted reasoning. */
  reasoning: boolean;
  previousResponseId?: string;
}

type Item = Record<string, unknown>;

export function toResponsesRequestBody(request: LlmRequest, settings: ResponsesRequestSettings): Item {
  const config = request.config;
  const body: Item = { model: request.model };
  if (request.systemInstruction) body.instructions = request.systemInstruction;
  body.input = toResponsesInput(request.contents);
  const tools: Item[] = (request.tools ?? [])
    .filter((tool) => tool.name !== MCP_APPROVAL_TOOL)
    .map((tool) => {
      const { $schema: _s, ...parameters } = tool.parameters ?? { type: 'object', properties: {} };
      return {
        type: 'function',
        name: tool.name,
        ...(tool.description ? { description: tool.description } : {}),
        parameters: settings.strictTools ? toStrictSchema(parameters) : parameters,
        // The Responses API makes function tools strict when `strict` is left out: always say which.
        strict: settings.strictTools,
      };
    });
  for (const spec of request.builtInTools ?? []) tools.push(toResponsesHostedTool(spec));
  if (tools.length > 0) body.tools = tools;
  const choice = config.toolChoice;
  if (choice !== undefined)
    body.tool_choice = typeof choice === 'object' ? { type: 'function', name: choice.name } : choice;
  if (config.temperature !== undefined) body.temperature = config.temperature;
  if (config.topP !== undefined) body.top_p = config.topP;
  if (config.maxOutputTokens !== undefined) body.max_output_tokens = config.maxOutputTokens;
  if (config.responseSchema) {
    const { $schema: _s, ...schema } = config.responseSchema;
    body.text = {
      format: {
        type: 'json_schema',
        name: 'response',
        schema: settings.strictJsonSchema ? toStrictSchema(schema) : schema,
        strict: settings.strictJsonSchema,
      },
    };
  } else if (config.responseMimeType === 'application/json') body.text = { format: { type: 'json_object' } };
  if (settings.reasoning) {
    const reasoning: Item = { summary: 'auto' };
    if (config.thinking?.effort) reasoning.effort = config.thinking.effort;
    if (config.thinking?.includeThoughts === false) delete reasoning.summary;
    body.reasoning = reasoning;
  }
  body.store = settings.store;
  if (!settings.store && settings.reasoning) body.include = ['reasoning.encrypted_content'];
  if (settings.previousResponseId) body.previous_response_id = settings.previousResponseId;
  for (const [key, value] of Object.entries(providerOptionsFor(config.providerOptions, 'openai') ?? {})) {
    const current = body[key];
    body[key] =
      key === 'tools' && Array.isArray(current) && Array.isArray(value) ? [...current, ...value] : value;
  }
  return body;
}

/**
 * Contents → Responses input items. Model turns become assistant messages, reasoning items (from
 * thought parts we signed; other vendors' thoughts are dropped), function calls and the hosted
 * tools' items as OpenAI sent them; function responses become `function_call_output`s paired by
 * `call_id`. Every call is answered (a missing output becomes an error output) and an output
 * without its call becomes user text, since the API rejects both.
 */
export function toResponsesInput(contents: Content[]): Item[] {
  const items: Item[] = [];
  for (const content of contents) {
    if (content.role === 'model') items.push(...modelItems(content.parts));
    else items.push(...userItems(content.parts));
  }
  return paired(items);
}

function modelItems(parts: Part[]): Item[] {
  const items: Item[] = [];
  let text: Item[] | undefined;
  for (const part of parts) {
    if (part.text !== undefined && !part.thought) {
      if (part.text === '') continue;
      if (!text) {
        text = [];
        items.push({ role: 'assistant', content: text });
      }
      text.push({ type: 'output_text', text: part.text });
      continue;
    }
    text = undefined;
    if (part.thought) {
      const signed = part.thoughtSignature ? parseReasoningSignature(part.thoughtSignature) : undefined;
      if (!signed) continue;
      items.push({
        type: 'reasoning',
        id: signed.id,
        summary: part.text ? [{ type: 'summary_text', text: part.text }] : [],
        ...(signed.encrypted ? { encrypted_content: signed.encrypted } : {}),
      });
    } else if (part.functionCall) {
      const { id, name, args } = part.functionCall;
      if (name === MCP_APPROVAL_TOOL) {
        items.push({ type: 'mcp_approval_request', id, ...args });
        continue;
      }
      items.push({ type: 'function_call', call_id: id, name, arguments: JSON.stringify(args) });
    } else if (part.serverToolResult && isRecord(part.serverToolResult.content)) {
      // A hosted tool's item (web_search_call, mcp_call, …) goes back as OpenAI sent it.
      items.push(part.serverToolResult.content);
    }
  }
  return items;
}

function userItems(parts: Part[]): Item[] {
  const items: Item[] = [];
  let content: Item[] | undefined;
  for (const part of parts) {
    if (part.functionResponse) {
      content = undefined;
      const { id, name, response } = part.functionResponse;
      if (name === MCP_APPROVAL_TOOL) {
        items.push({
          type: 'mcp_approval_response',
          approval_request_id: id,
          approve: response.approve === true,
        });
        continue;
      }
      items.push({ type: 'function_call_output', call_id: id, output: JSON.stringify(response) });
      continue;
    }
    const converted = toInputContent(part);
    if (!converted) continue;
    if (!content) {
      content = [];
      items.push({ role: 'user', content });
    }
    content.push(converted);
  }
  return items;
}

function toInputContent(part: Part): Item | undefined {
  if (part.thought) return undefined;
  if (part.text !== undefined) return part.text === '' ? undefined : { type: 'input_text', text: part.text };
  if (part.inlineData) {
    const { mimeType, data, displayName } = part.inlineData;
    if (mimeType.startsWith('image/'))
      return { type: 'input_image', image_url: `data:${mimeType};base64,${data}` };
    if (mimeType === 'application/pdf')
      return {
        type: 'input_file',
        filename: displayName ?? 'document.pdf',
        file_data: `data:${mimeType};base64,${data}`,
      };
    throw new ValidationError(`OpenAI Responses does not accept inline data of type ${mimeType}`);
  }
  if (part.fileData) {
    const { mimeType, fileUri } = part.fileData;
    if (mimeType.startsWith('image/')) return { type: 'input_image', image_url: fileUri };
    return { type: 'input_file', file_url: fileUri };
  }
  if (part.executableCode) return { type: 'input_text', text: part.executableCode.code };
  if (part.codeExecutionResult) return { type: 'input_text', text: part.codeExecutionResult.output ?? '' };
  return undefined;
}

const CALLS: Record<string, { id: string; output: string }> = {
  function_call: { id: 'call_id', output: 'function_call_output' },
  mcp_approval_request: { id: 'id', output: 'mcp_approval_response' },
};

/** Every call answered right after its turn; outputs without their call become user text. */
function paired(items: Item[]): Item[] {
  const answered = new Set<string>();
  for (const item of items) {
    if (item.type === 'function_call_output') answered.add(item.call_id as string);
    if (item.type === 'mcp_approval_response') answered.add(item.approval_request_id as string);
  }
  const called = new Set<string>();
  const out: Item[] = [];
  let pending: Item[] = [];
  const flush = () => {
    out.push(...pending);
    pending = [];
  };
  for (const item of items) {
    const call = CALLS[item.type as string];
    if (call) {
      const id = item[call.id] as string;
      called.add(id);
      out.push(item);
      if (!answered.has(id))
        pending.push(
          call.output === 'function_call_output'
            ? {
                type: 'function_call_output',
                call_id: id,
                output: JSON.stringify({ error: 'No result: the call was not completed.' }),
              }
            : { type: 'mcp_approval_response', approval_request_id: id, approve: false },
        );
      continue;
    }
    if (item.type === 'function_call_output' || item.type === 'mcp_approval_response') {
      const id = (item.call_id ?? item.approval_request_id) as string;
      if (called.has(id)) out.push(item);
      else
        out.push({
          role: 'user',
          content: [
            {
              type: 'input_text',
              text: `Result of an earlier tool call: ${String(item.output ?? item.approve)}`,
            },
          ],
        });
      continue;
    }
    flush();
    out.push(item);
  }
  flush();
  return out;
}

function isRecord(value: unknown): value is Item {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
