import type { Event, FunctionResponse, Session } from '@adk/core';
import { delay } from '@adk/core/internal';
import type { McpSession } from './mcp-session.js';
import { type McpCallResult, toFunctionResponse } from './result-mapping.js';

/**
 * State key prefix of an MCP task started by a tool call: `_adk_mcp_task:<function call id>` →
 * {@link McpTaskRecord}. Written in the call's event, so the task id is in the log and a
 * restarted server can find the task again.
 */
export const MCP_TASK_STATE_PREFIX = '_adk_mcp_task:';

export interface McpTaskRecord {
  server: string;
  /** The tool's name as the model called it. */
  tool: string;
  /** The tool's name on the server. */
  mcpTool: string;
  taskId: string;
  functionCallId: string;
  /** Streamable HTTP: the MCP session the task belongs to (servers keep tasks per session). */
  mcpSessionId?: string;
}

/** Task statuses after which nothing changes. */
const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

/** Starts a task-augmented `tools/call`; the server answers at once with the task. */
export async function startTask(
  session: McpSession,
  name: string,
  args: Record<string, unknown>,
  ttlMs: number,
  timeoutMs: number,
  signal: AbortSignal | undefined,
): Promise<string> {
  const { CreateTaskResultSchema } = await import('@modelcontextprotocol/sdk/types.js');
  const created = await session.request(
    `tools/call "${name}" as a task`,
    (client, own) =>
      client.request(
        { method: 'tools/call', params: { name, arguments: args, task: { ttl: ttlMs } } },
        CreateTaskResultSchema,
        { timeout: timeoutMs, ...(own ? { signal: own } : {}) },
      ),
    signal,
  );
  return created.task.taskId;
}

/** The tasks of this server that calls of the session started and no response answered yet. */
export function pendingTasks(session: Session, server: string): McpTaskRecord[] {
  const answered = new Set<string>();
  for (const event of session.events as Event[])
    for (const part of event.content?.parts ?? [])
      if (part.functionResponse) answered.add(part.functionResponse.id);
  const out: McpTaskRecord[] = [];
  for (const [key, value] of Object.entries(session.state)) {
    if (!key.startsWith(MCP_TASK_STATE_PREFIX) || typeof value !== 'object' || value === null) continue;
    const record = value as McpTaskRecord;
    if (record.server === server && !answered.has(record.functionCallId)) out.push(record);
  }
  return out;
}

/**
 * Polls a task until it ends and returns the function response for its call: the tool's result
 * when it completed, an error response when it failed or was cancelled.
 */
export async function awaitTask(
  session: McpSession,
  record: McpTaskRecord,
  options: { pollIntervalMs: number; timeoutMs: number; signal?: AbortSignal },
): Promise<FunctionResponse> {
  const { CallToolResultSchema } = await import('@modelcontextprotocol/sdk/types.js');
  let status = '';
  let message: string | undefined;
  for (;;) {
    const task = await session.request(
      `tasks/get "${record.taskId}"`,
      (client, own) =>
        client.experimental.tasks.getTask(record.taskId, {
          timeout: options.timeoutMs,
          ...(own ? { signal: own } : {}),
        }),
      options.signal,
    );
    status = task.status;
    message = task.statusMessage;
    if (TERMINAL.has(status)) break;
    await delay((task.pollInterval as number | undefined) ?? options.pollIntervalMs, options.signal);
  }
  let response: Record<string, unknown>;
  if (status === 'completed') {
    const result = await session.request(
      `tasks/result "${record.taskId}"`,
      (client, own) =>
        client.experimental.tasks.getTaskResult(record.taskId, CallToolResultSchema, {
          timeout: options.timeoutMs,
          ...(own ? { signal: own } : {}),
        }),
      options.signal,
    );
    response = toFunctionResponse(result as McpCallResult);
  } else {
    response = { error: `The MCP task ${status}${message ? `: ${message}` : ''}`, taskStatus: status };
  }
  return { id: record.functionCallId, name: record.tool, response };
}

/** Asks the server to cancel a task. */
export async function cancelTask(session: McpSession, taskId: string, timeoutMs: number): Promise<void> {
  await session.request(`tasks/cancel "${taskId}"`, (client, own) =>
    client.experimental.tasks.cancelTask(taskId, { timeout: timeoutMs, ...(own ? { signal: own } : {}) }),
  );
}
