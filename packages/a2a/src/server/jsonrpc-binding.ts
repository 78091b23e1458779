import { z } from 'zod';
import { agentCardToV03 } from '../protocol/agent-card.js';
import { A2aError, isA2aError } from '../protocol/errors.js';
import {
  cancelTaskRequestSchema,
  createPushConfigSchema,
  extendedCardRequestSchema,
  getTaskRequestSchema,
  listPushConfigsSchema,
  listTasksRequestSchema,
  parseParams,
  pushConfigRefSchema,
  taskIdRequestSchema,
  toListTasksRequest,
} from '../protocol/schemas.js';
import { readSendMessageParams } from '../protocol/send-message-params.js';
import type { ProtocolVersion, StreamResponse } from '../protocol/types.js';
import {
  messageToV03,
  pushConfigToV03,
  sendParamsFromV03,
  setPushFromV03,
  streamResponseToV03,
  taskToV03,
  v03DeletePushSchema,
  v03GetPushSchema,
  v03SendParamsSchema,
  v03SetPushSchema,
  v03TaskIdSchema,
  v03TaskQuerySchema,
} from '../protocol/v03.js';
import { jsonResponse, type SseEvent, safeParse, sseResponse } from './http-utils.js';
import type { A2aRequestHandler, CallContext } from './request-handler.js';

type RpcId = string | number | null;

export const V10_METHODS = [
  'SendMessage',
  'SendStreamingMessage',
  'GetTask',
  'ListTasks',
  'CancelTask',
  'SubscribeToTask',
  'CreateTaskPushNotificationConfig',
  'GetTaskPushNotificationConfig',
  'ListTaskPushNotificationConfigs',
  'DeleteTaskPushNotificationConfig',
  'GetExtendedAgentCard',
] as const;

export const V03_METHODS = [
  'message/send',
  'message/stream',
  'tasks/get',
  'tasks/cancel',
  'tasks/resubscribe',
  'tasks/pushNotificationConfig/set',
  'tasks/pushNotificationConfig/get',
  'tasks/pushNotificationConfig/list',
  'tasks/pushNotificationConfig/delete',
  'agent/getAuthenticatedExtendedCard',
] as const;

const V10 = new Set<string>(V10_METHODS);
const V03 = new Set<string>(V03_METHODS);

const envelopeSchema = z.object({
  jsonrpc: z.literal('2.0'),
  method: z.string().min(1),
  id: z.union([z.string(), z.number(), z.null()]).optional(),
  params: z.unknown().optional(),
});

interface Envelope {
  jsonrpc: '2.0';
  method: string;
  id?: string | number | null;
  params?: unknown;
}

/** What `envelopeSchema` accepts, for JSON input: checked without zod on the request path. */
function isPlainEnvelope(raw: unknown): raw is Envelope {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return false;
  const { jsonrpc, method, id } = raw as Record<string, unknown>;
  return (
    jsonrpc === '2.0' &&
    typeof method === 'string' &&
    method.length > 0 &&
    (id === undefined ||
      id === null ||
      typeof id === 'string' ||
      (typeof id === 'number' && Number.isFinite(id)))
  );
}

function errorBody(id: RpcId, error: A2aError, version: ProtocolVersion) {
  const data =
    version === '1.0'
      ? error.wireDetails()
      : error.metadata || error.fieldViolations
        ? { ...error.metadata, ...(error.fieldViolations ? { fieldViolations: error.fieldViolations } : {}) }
        : undefined;
  return {
    jsonrpc: '2.0',
    id,
    error: { code: error.rpcCode, message: error.message, ...(data ? { data } : {}) },
  };
}

export function toA2aError(error: unknown): A2aError {
  if (isA2aError(error)) return error;
  return new A2aError('INTERNAL', 'Internal error', { cause: error });
}

/** One JSON-RPC 2.0 request (body already read) → response. Errors are answered with HTTP 200. */
export async function handleJsonRpc(
  handler: A2aRequestHandler,
  bodyText: string,
  headerVersion: string | undefined,
  ctx: CallContext,
  onInternalError: (error: unknown) => void,
): Promise<Response> {
  const parsed = safeParse(bodyText);
  const fallbackVersion: ProtocolVersion = headerVersion === '0.3' ? '0.3' : '1.0';
  if (!parsed.ok) {
    return jsonResponse(
      errorBody(null, new A2aError('PARSE_ERROR', `Invalid JSON payload: ${parsed.error}`), fallbackVersion),
    );
  }
  const raw = parsed.value;
  const rawId =
    raw && typeof raw === 'object' && !Array.isArray(raw) ? (raw as { id?: unknown }).id : undefined;
  const id: RpcId = typeof rawId === 'string' || typeof rawId === 'number' ? rawId : null;
  if (Array.isArray(raw)) {
    return jsonResponse(
      errorBody(null, new A2aError('INVALID_REQUEST', 'Batch requests are not supported'), fallbackVersion),
    );
  }
  // A well-formed envelope is recognized by hand; the schema words what is wrong with the others.
  const envelope = isPlainEnvelope(raw)
    ? { success: true as const, data: raw }
    : envelopeSchema.safeParse(raw);
  if (!envelope.success) {
    const issues = envelope.error.issues
      .map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`)
      .join('; ');
    return jsonResponse(
      errorBody(id, new A2aError('INVALID_REQUEST', `Invalid JSON-RPC request: ${issues}`), fallbackVersion),
    );
  }
  const { method } = envelope.data;
  let version: ProtocolVersion;
  if (headerVersion === undefined) {
    // No header means 0.3 (spec §3.6.2); 1.0 method names cannot be 0.3, so they are served as 1.0.
    version = V10.has(method) ? '1.0' : '0.3';
  } else if (headerVersion === '1.0' || headerVersion === '0.3') {
    version = headerVersion;
  } else {
    return jsonResponse(
      errorBody(
        id,
        new A2aError('VERSION_NOT_SUPPORTED', `A2A protocol version ${headerVersion} is not supported`, {
          metadata: { requestedVersion: headerVersion, supportedVersions: '1.0,0.3' },
        }),
        '1.0',
      ),
    );
  }
  const known = version === '1.0' ? V10 : V03;
  if (!known.has(method)) {
    const hint =
      version === '1.0'
        ? V03.has(method)
          ? ' (a 0.3 method; send A2A-Version: 0.3)'
          : ''
        : V10.has(method)
          ? ' (a 1.0 method; send A2A-Version: 1.0)'
          : '';
    return jsonResponse(
      errorBody(
        id,
        new A2aError('METHOD_NOT_FOUND', `Method not found: ${method}${hint}`, { metadata: { method } }),
        version,
      ),
    );
  }
  const params = envelope.data.params ?? {};
  const callCtx: CallContext = { ...ctx, version };
  try {
    if (params === null || typeof params !== 'object' || Array.isArray(params)) {
      throw new A2aError('INVALID_PARAMS', 'params must be an object');
    }
    const result =
      version === '1.0'
        ? await dispatch10(handler, method, params, callCtx)
        : await dispatch03(handler, method, params, callCtx);
    if (result.kind === 'stream') {
      return sseResponse(rpcEvents(id, result.events, version, onInternalError));
    }
    return jsonResponse({ jsonrpc: '2.0', id, result: result.value });
  } catch (error) {
    if (!isA2aError(error)) onInternalError(error);
    return jsonResponse(errorBody(id, toA2aError(error), version));
  }
}

type Outcome = { kind: 'value'; value: unknown } | { kind: 'stream'; events: AsyncIterable<unknown> };

const value = (v: unknown): Outcome => ({ kind: 'value', value: v });

async function dispatch10(
  h: A2aRequestHandler,
  method: string,
  params: object,
  ctx: CallContext,
): Promise<Outcome> {
  switch (method) {
    case 'SendMessage':
      return value(await h.sendMessage(readSendMessageParams(params), ctx));
    case 'SendStreamingMessage':
      return {
        kind: 'stream',
        events: await h.sendStreamingMessage(readSendMessageParams(params), ctx),
      };
    case 'GetTask': {
      const p = parseParams(getTaskRequestSchema, params);
      return value(await h.getTask(p.id, p.historyLength, ctx));
    }
    case 'ListTasks':
      return value(await h.listTasks(toListTasksRequest(parseParams(listTasksRequestSchema, params)), ctx));
    case 'CancelTask':
      return value(await h.cancelTask(parseParams(cancelTaskRequestSchema, params).id, ctx));
    case 'SubscribeToTask':
      return { kind: 'stream', events: await h.subscribe(parseParams(taskIdRequestSchema, params).id, ctx) };
    case 'CreateTaskPushNotificationConfig': {
      const p = parseParams(createPushConfigSchema, params);
      return value(await h.createPushConfig(compactConfig(p), ctx));
    }
    case 'GetTaskPushNotificationConfig':
      return value(await h.getPushConfig(parseParams(pushConfigRefSchema, params), ctx));
    case 'ListTaskPushNotificationConfigs':
      return value(await h.listPushConfigs(parseParams(listPushConfigsSchema, params), ctx));
    case 'DeleteTaskPushNotificationConfig':
      await h.deletePushConfig(parseParams(pushConfigRefSchema, params), ctx);
      return value({});
    case 'GetExtendedAgentCard':
      parseParams(extendedCardRequestSchema, params);
      return value(await h.getExtendedCard(ctx));
  }
  throw new A2aError('METHOD_NOT_FOUND', `Method not found: ${method}`);
}

export function compactConfig<T extends { id?: string | undefined; taskId: string; url: string }>(p: T) {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(p)) if (v !== undefined) out[k] = v;
  return out as {
    id?: string;
    taskId: string;
    url: string;
    token?: string;
    authentication?: { scheme: string; credentials?: string };
  };
}

async function dispatch03(
  h: A2aRequestHandler,
  method: string,
  params: object,
  ctx: CallContext,
): Promise<Outcome> {
  switch (method) {
    case 'message/send': {
      const r = await h.sendMessage(sendParamsFromV03(parseParams(v03SendParamsSchema, params)), ctx);
      return value('task' in r ? taskToV03(r.task) : messageToV03(r.message));
    }
    case 'message/stream': {
      const events = await h.sendStreamingMessage(
        sendParamsFromV03(parseParams(v03SendParamsSchema, params)),
        ctx,
      );
      return { kind: 'stream', events };
    }
    case 'tasks/get': {
      const p = parseParams(v03TaskQuerySchema, params);
      return value(taskToV03(await h.getTask(p.id, p.historyLength, ctx)));
    }
    case 'tasks/cancel':
      return value(taskToV03(await h.cancelTask(parseParams(v03TaskIdSchema, params).id, ctx)));
    case 'tasks/resubscribe':
      return { kind: 'stream', events: await h.subscribe(parseParams(v03TaskIdSchema, params).id, ctx) };
    case 'tasks/pushNotificationConfig/set':
      return value(
        pushConfigToV03(await h.createPushConfig(setPushFromV03(parseParams(v03SetPushSchema, params)), ctx)),
      );
    case 'tasks/pushNotificationConfig/get': {
      const p = parseParams(v03GetPushSchema, params);
      let configId = p.pushNotificationConfigId;
      if (!configId) {
        // 0.3 allowed omitting the config id: the task's first config is meant.
        const list = await h.listPushConfigs({ taskId: p.id }, ctx);
        configId = list.configs[0]?.id;
        if (!configId) throw new A2aError('TASK_NOT_FOUND', `No push notification config for task ${p.id}`);
      }
      return value(pushConfigToV03(await h.getPushConfig({ taskId: p.id, id: configId }, ctx)));
    }
    case 'tasks/pushNotificationConfig/list': {
      const p = parseParams(v03TaskIdSchema, params);
      return value((await h.listPushConfigs({ taskId: p.id }, ctx)).configs.map(pushConfigToV03));
    }
    case 'tasks/pushNotificationConfig/delete': {
      const p = parseParams(v03DeletePushSchema, params);
      await h.deletePushConfig({ taskId: p.id, id: p.pushNotificationConfigId }, ctx);
      return value(null);
    }
    case 'agent/getAuthenticatedExtendedCard':
      return value(agentCardToV03(await h.getExtendedCard(ctx)));
  }
  throw new A2aError('METHOD_NOT_FOUND', `Method not found: ${method}`);
}

async function* rpcEvents(
  id: RpcId,
  events: AsyncIterable<unknown>,
  version: ProtocolVersion,
  onInternalError: (error: unknown) => void,
): AsyncGenerator<SseEvent> {
  try {
    for await (const item of events) {
      const result = version === '1.0' ? item : streamResponseToV03(item as StreamResponse);
      yield { data: { jsonrpc: '2.0', id, result } };
    }
  } catch (error) {
    if (!isA2aError(error)) onInternalError(error);
    yield { data: errorBody(id, toA2aError(error), version) };
  }
}
