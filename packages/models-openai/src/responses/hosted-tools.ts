import { type BuiltInToolSpec, ModelBuiltInTool, UnsupportedBuiltInToolError } from '@adk/core';

/**
 * The Responses API's hosted tools, by built-in kind. `webSearch()` and `codeExecution()` from
 * `@adk/core` work too; the others are made with the functions below. A tool's `config` is sent with
 * the declaration as given (OpenAI's field names).
 */
export const RESPONSES_HOSTED_TOOLS: Record<
  string,
  (config: Record<string, unknown>) => Record<string, unknown>
> = {
  webSearch: (config) => ({ type: 'web_search', ...config }),
  fileSearch: (config) => ({ type: 'file_search', ...config }),
  codeExecution: (config) => ({ type: 'code_interpreter', container: { type: 'auto' }, ...config }),
  codeInterpreter: (config) => ({ type: 'code_interpreter', container: { type: 'auto' }, ...config }),
  imageGeneration: (config) => ({ type: 'image_generation', ...config }),
  mcp: (config) => ({ type: 'mcp', ...config }),
};

export function toResponsesHostedTool(spec: BuiltInToolSpec): Record<string, unknown> {
  const make = RESPONSES_HOSTED_TOOLS[spec.type];
  if (!make)
    throw new UnsupportedBuiltInToolError('OpenAI Responses', spec.type, Object.keys(RESPONSES_HOSTED_TOOLS));
  return make(spec.config ?? {});
}

/** OpenAI file search over vector stores (`{ vector_store_ids, max_num_results, filters }`). */
export function fileSearch(config: {
  vector_store_ids: string[];
  [field: string]: unknown;
}): ModelBuiltInTool {
  return new ModelBuiltInTool(
    { type: 'fileSearch', config },
    'file_search',
    'Searches uploaded files (run by OpenAI).',
  );
}

/** OpenAI's code interpreter (`{ container }`; default an automatic container). */
export function codeInterpreter(config?: Record<string, unknown>): ModelBuiltInTool {
  return new ModelBuiltInTool(
    { type: 'codeInterpreter', ...(config ? { config } : {}) },
    'code_interpreter',
    'Runs Python in a sandbox (run by OpenAI).',
  );
}

/** OpenAI image generation (`{ size, quality, background, partial_images, … }`). */
export function imageGeneration(config?: Record<string, unknown>): ModelBuiltInTool {
  return new ModelBuiltInTool(
    { type: 'imageGeneration', ...(config ? { config } : {}) },
    'image_generation',
    'Generates images (run by OpenAI).',
  );
}

/**
 * A remote MCP server that OpenAI calls (`{ server_label, server_url | connector_id, require_approval,
 * allowed_tools, headers, authorization }`). Calls that need approval come back as tool
 * confirmations (see the README).
 */
export function mcpServer(config: { server_label: string; [field: string]: unknown }): ModelBuiltInTool {
  return new ModelBuiltInTool(
    { type: 'mcp', config },
    `mcp_${config.server_label}`,
    `Tools of the MCP server ${config.server_label} (called by OpenAI).`,
  );
}
