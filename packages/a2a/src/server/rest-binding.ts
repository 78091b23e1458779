import { agentCardToV03 } from '../protocol/agent-card.js';
import { A2aError, isA2aError } from '../protocol/errors.js';
import {
  createPushConfigSchema,
  getTaskRequestSchema,
  listPushConfigsSchema,
  listTasksRequestSchema,
  parseParams,
  pushConfigRefSchema,
  toListTasksRequest,
} from '../protocol/schemas.js';
import { readSendMessageParams } from '../protocol/send-message-params.js';
import type { ProtocolVersion, StreamResponse } from '../protocol/types.js';
import {
  messageToProto03,
  proto03SendSchema,
  proto03TaskPushConfigSchema,
  pushConfigFromProto03,
  pushConfigToProto03,
  sendFromProto03,
  streamResponseToProto03,
  taskToProto03,
} from '../protocol/v03-rest.js';
import { A2A_JSON, jsonResponse, type SseEvent, safeParse, sseResponse } from './http-utils.js';
import { compactConfig, toA2aError } from './jsonrpc-binding.js';
import type { A2aRequestHandler, CallContext } from './request-handler.js';

export interface RestRoute {
  op:
    | 'send'
    | 'stream'
    | 'get'
    | 'list'
    | 'cancel'
    | 'subscribe'
    | 'createPush'
    | 'listPush'
    | 'getPush'
    | 'deletePush'
    | 'extendedCard';
  taskId?: string;
  configId?: string;
  tenant?: string;
}

const seg = '([^/]+)';

/** Matches a REST path (already relative to the server base) for a method, 1.0 or 0.3 layout. */
export function matchRestRoute(
  method: string,
  path: string,
  version: ProtocolVersion,
): RestRoute | undefined {
  let rest = path;
  let tenant: string | undefined;
  if (version === '0.3') {
    if (!rest.startsWith('/v1/')) return undefined;
    rest = rest.slice(3);
  }
  const tryMatch = (p: string): RestRoute | undefined => {
    const d = decodeURIComponent;
    if (method === 'POST' && p === '/message:send') return { op: 'send' };
    if (method === 'POST' && p === '/message:stream') return { op: 'stream' };
    if (method === 'GET' && p === '/tasks') return { op: 'list' };
    if (method === 'GET' && (p === '/extendedAgentCard' || (version === '0.3' && p === '/card')))
      return { op: 'extendedCard' };
    const cancel = new RegExp(`^/tasks/${seg}:cancel$`).exec(p);
    if (cancel && method === 'POST') return { op: 'cancel', taskId: d(cancel[1] ?? '') };
    const sub = new RegExp(`^/tasks/${seg}:subscribe$`).exec(p);
    if (sub && (method === 'GET' || method === 'POST')) return { op: 'subscribe', taskId: d(sub[1] ?? '') };
    const configs = new RegExp(`^/tasks/${seg}/pushNotificationConfigs$`).exec(p);
    if (configs) {
      if (method === 'POST') return { op: 'createPush', taskId: d(configs[1] ?? '') };
      if (method === 'GET') return { op: 'listPush', taskId: d(configs[1] ?? '') };
    }
    const config = new RegExp(`^/tasks/${seg}/pushNotificationConfigs/${seg}$`).exec(p);
    if (config) {
      const ids = { taskId: d(config[1] ?? ''), configId: d(config[2] ?? '') };
      if (method === 'GET') return { op: 'getPush', ...ids };
      if (method === 'DELETE') return { op: 'deletePush', ...ids };
    }
    const task = /^\/tasks\/([^/:]+)$/.exec(p);
    if (task && method === 'GET') return { op: 'get', taskId: d(task[1] ?? '') };
    return undefined;
  };
  const direct = tryMatch(rest);
  if (direct) return direct;
  if (version === '1.0') {
    // `/{tenant}/...` form
    const m = /^\/([^/]+)(\/.*)$/.exec(rest);
    if (m) {
      tenant = decodeURIComponent(m[1]!);
      const r = tryMatch(m[2]!);
      if (r) return { ...r, tenant };
    }
  }
  return undefined;
}

/** `google.rpc.Status` for 1.0; `{code, message}` (the JSON-RPC code) for 0.3 REST peers. */
export function restError(error: A2aError, version: ProtocolVersion): Response {
  if (version === '0.3') {
    return jsonResponse({ code: error.rpcCode, message: error.message }, error.httpStatus);
  }
  return jsonResponse(
    {
      error: {
        code: error.httpStatus,
        status: errorStatusName(error),
        message: error.message,
        details: error.wireDetails(),
      },
    },
    error.httpStatus,
    { 'Content-Type': A2A_JSON },
  );
}

function errorStatusName(error: A2aError): string {
  return (
    (
      {
        TASK_NOT_FOUND: 'NOT_FOUND',
        METHOD_NOT_FOUND: 'NOT_FOUND',
        INTERNAL: 'INTERNAL',
        INVALID_AGENT_RESPONSE: 'INTERNAL',
        UNAUTHENTICATED: 'UNAUTHENTICATED',
        PERMISSION_DENIED: 'PERMISSION_DENIED',
        CONTENT_TYPE_NOT_SUPPORTED: 'INVALID_ARGUMENT',
        INVALID_PARAMS: 'INVALID_ARGUMENT',
        INVALID_REQUEST: 'INVALID_ARGUMENT',
        PARSE_ERROR: 'INVALID_ARGUMENT',
        PAYLOAD_TOO_LARGE: 'INVALID_ARGUMENT',
      } as Record<string, string>
    )[error.type] ?? 'FAILED_PRECONDITION'
  );
}

function parseBody(text: string): unknown {
  if (text.trim() === '') return {};
  const parsed = safeParse(text);
  if (!parsed.ok) throw new A2aError('PARSE_ERROR', `Invalid JSON payload: ${parsed.error}`);
  return parsed.value;
}

function queryInt(url: URL, name: string): number | undefined {
  const raw = url.searchParams.get(name);
  if (raw === null || raw === '') return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n)) {
    throw new A2aError('INVALID_PARAMS', `${name} must be an integer, got ${raw}`, {
      fieldViolations: [{ field: name, description: 'must be an integer' }],
    });
  }
  return n;
}

function queryBool(url: URL, name: string): boolean | undefined {
  const raw = url.searchParams.get(name);
  if (raw === null || raw === '') return undefined;
  if (raw !== 'true' && raw !== 'false') {
    throw new A2aError('INVALID_PARAMS', `${name} must be true or false`, {
      fieldViolations: [{ field: name, description: 'must be true or false' }],
    });
  }
  return raw === 'true';
}

function dropUndefined<T extends object>(value: T): T {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) if (v !== undefined) out[k] = v;
  return out as T;
}

export async function handleRest(
  handler: A2aRequestHandler,
  route: RestRoute,
  url: URL,
  bodyText: string,
  version: ProtocolVersion,
  ctx: CallContext,
  onInternalError: (error: unknown) => void,
): Promise<Response> {
  const callCtx: CallContext = { ...ctx, version };
  const ok = (body: unknown) =>
    jsonResponse(body, 200, version === '1.0' ? { 'Content-Type': A2A_JSON } : {});
  try {
    switch (route.op) {
      case 'send': {
        const body = parseBody(bodyText);
        if (version === '0.3') {
          const r = await handler.sendMessage(sendFromProto03(parseParams(proto03SendSchema, body)), callCtx);
          return ok('task' in r ? { task: taskToProto03(r.task) } : { message: messageToProto03(r.message) });
        }
        return ok(await handler.sendMessage(readSendMessageParams(body), callCtx));
      }
      case 'stream': {
        const body = parseBody(bodyText);
        const request =
          version === '0.3'
            ? sendFromProto03(parseParams(proto03SendSchema, body))
            : readSendMessageParams(body);
        return sseResponse(
          restEvents(await handler.sendStreamingMessage(request, callCtx), version, onInternalError),
        );
      }
      case 'subscribe':
        return sseResponse(
          restEvents(await handler.subscribe(route.taskId!, callCtx), version, onInternalError),
        );
      case 'get': {
        const p = parseParams(getTaskRequestSchema, {
          id: route.taskId,
          historyLength: queryInt(url, 'historyLength'),
        });
        const task = await handler.getTask(p.id, p.historyLength, callCtx);
        return ok(version === '0.3' ? taskToProto03(task) : task);
      }
      case 'list': {
        if (version === '0.3') throw new A2aError('METHOD_NOT_FOUND', 'Listing tasks is not part of A2A 0.3');
        const status = url.searchParams.get('status') || undefined;
        const p = parseParams(
          listTasksRequestSchema,
          dropUndefined({
            contextId: url.searchParams.get('contextId') || undefined,
            status,
            pageSize: queryInt(url, 'pageSize'),
            pageToken: url.searchParams.get('pageToken') || undefined,
            historyLength: queryInt(url, 'historyLength'),
            statusTimestampAfter: url.searchParams.get('statusTimestampAfter') || undefined,
            includeArtifacts: queryBool(url, 'includeArtifacts'),
          }),
        );
        return ok(await handler.listTasks(toListTasksRequest(p), callCtx));
      }
      case 'cancel': {
        const task = await handler.cancelTask(route.taskId!, callCtx);
        return ok(version === '0.3' ? taskToProto03(task) : task);
      }
      case 'createPush': {
        const body = parseBody(bodyText);
        if (version === '0.3') {
          const config = pushConfigFromProto03(parseParams(proto03TaskPushConfigSchema, body), route.taskId!);
          return ok(pushConfigToProto03(await handler.createPushConfig(config, callCtx)));
        }
        const p = parseParams(createPushConfigSchema, { ...(body as object), taskId: route.taskId });
        return ok(await handler.createPushConfig(compactConfig(p), callCtx));
      }
      case 'listPush': {
        const p = parseParams(
          listPushConfigsSchema,
          dropUndefined({ taskId: route.taskId, pageSize: queryInt(url, 'pageSize') }),
        );
        const r = await handler.listPushConfigs(p, callCtx);
        return ok(version === '0.3' ? { configs: r.configs.map(pushConfigToProto03), nextPageToken: '' } : r);
      }
      case 'getPush': {
        const p = parseParams(pushConfigRefSchema, { taskId: route.taskId, id: route.configId });
        const c = await handler.getPushConfig(p, callCtx);
        return ok(version === '0.3' ? pushConfigToProto03(c) : c);
      }
      case 'deletePush': {
        const p = parseParams(pushConfigRefSchema, { taskId: route.taskId, id: route.configId });
        await handler.deletePushConfig(p, callCtx);
        return ok({});
      }
      case 'extendedCard': {
        const card = await handler.getExtendedCard(callCtx);
        return ok(version === '0.3' ? agentCardToV03(card) : card);
      }
    }
  } catch (error) {
    if (!isA2aError(error)) onInternalError(error);
    return restError(toA2aError(error), version);
  }
}

async function* restEvents(
  events: AsyncIterable<StreamResponse>,
  version: ProtocolVersion,
  onInternalError: (error: unknown) => void,
): AsyncGenerator<SseEvent> {
  try {
    for await (const item of events) yield { data: version === '0.3' ? streamResponseToProto03(item) : item };
  } catch (error) {
    if (!isA2aError(error)) onInternalError(error);
    const e = toA2aError(error);
    yield {
      event: 'error',
      data:
        version === '0.3'
          ? { code: e.rpcCode, message: e.message }
          : { error: { code: e.httpStatus, message: e.message, details: e.wireDetails() } },
    };
  }
}
