import { type BaseTool, FunctionTool, lazyZod } from '@adk/core';

/** The function name under which a hosted MCP server's approval requests reach the agent. */
export const MCP_APPROVAL_TOOL = 'openai_mcp_approval';

// Built on first use: importing the provider does not load zod.
const approvalTool = lazyZod(
  (z) =>
    new FunctionTool({
      name: MCP_APPROVAL_TOOL,
      description: 'Approves a call of a tool on a remote MCP server.',
      parameters: z.object({ server_label: z.string(), name: z.string(), arguments: z.string().optional() }),
      requireConfirmation: true,
      execute: async () => ({ approve: true }),
    }),
);

/**
 * Add this tool (once) to an agent that uses `mcpServer(…)` with `require_approval`: OpenAI's
 * `mcp_approval_request` items arrive as calls of it, the user confirms or rejects them through the
 * usual tool confirmation, and the answer goes back to OpenAI as an `mcp_approval_response`
 * (approved when confirmed). It is never declared to the model.
 */
export function mcpApproval(): BaseTool {
  return approvalTool();
}
