import { newId, tryParseJson } from '@adk/core';
import {
  type FetchFunction,
  isApiCallError,
  parseSseStream,
  type RetryConfig,
  send,
  withRetry,
} from '@adk/core/http';
import { A2aError, a2aErrorFromWire } from '../protocol/errors.js';
import type {
  AgentCard,
  AgentInterface,
  ListPushConfigsResponse,
  ListTasksRequest,
  ListTasksResponse,
  Message,
  ProtocolVersion,
  SendMessageRequest,
  SendMessageResponse,
  StreamResponse,
  Task,
  TaskPushNotificationConfig,
} from '../protocol/types.js';
import {
  messageFromV03,
  messageToV03,
  pushConfigFromV03,
  streamItemFromV03,
  taskFromV03,
  v03MessageSchema,
  v03PushConfigResultSchema,
  v03StreamItemSchema,
  v03TaskSchema,
} from '../protocol/v03.js';

export type Binding = 'JSONRPC' | 'HTTP+JSON';

export interface A2aClientOptions {
  fetch?: FetchFunction;
  /** Sent with every request (auth, tracing). */
  headers?: Record<string, string>;
  /** Binding preference; the first one the card offers wins. Default JSON-RPC, then REST. */
  bindings?: Binding[];
  /** Pin a protocol version; default picks 1.0 when offered, else 0.3. */
  version?: ProtocolVersion;
  /** Retries for idempotent calls (card, get, list); `false` disables. */
  retry?: RetryConfig | false;
  /** Agent card path relative to the base URL. Default `/.well-known/agent-card.json`. */
  cardPath?: string;
}

export interface CallOptions {
  signal?: AbortSignal;
}

const PACKAGE = '@adk/a2a';

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Reads a card in either generation's shape into the 1.0 form. */
export function normalizeAgentCard(raw: unknown): AgentCard {
  if (!isObject(raw) || typeof raw.name !== 'string')
    throw new A2aError('INVALID_AGENT_RESPONSE', 'Not an agent card');
  if (Array.isArray(raw.supportedInterfaces) && raw.supportedInterfaces.length > 0)
    return raw as unknown as AgentCard;
  // 0.3 card: `url` + `preferredTransport` + `additionalInterfaces`.
  const version =
    typeof raw.protocolVersion === 'string' ? raw.protocolVersion.split('.').slice(0, 2).join('.') : '0.3';
  const interfaces: AgentInterface[] = [];
  if (typeof raw.url === 'string') {
    interfaces.push({
      url: raw.url,
      protocolBinding: typeof raw.preferredTransport === 'string' ? raw.preferredTransport : 'JSONRPC',
      protocolVersion: version,
    });
  }
  if (Array.isArray(raw.additionalInterfaces)) {
    for (const i of raw.additionalInterfaces) {
      if (isObject(i) && typeof i.url === 'string' && typeof i.transport === 'string') {
        interfaces.push({ url: i.url, protocolBinding: i.transport, protocolVersion: version });
      }
    }
  }
  const capabilities = isObject(raw.capabilities) ? raw.capabilities : {};
  return {
    name: raw.name,
    description: typeof raw.description === 'string' ? raw.description : '',
    supportedInterfaces: interfaces,
    version: typeof raw.version === 'string' ? raw.version : '',
    capabilities: {
      ...(typeof capabilities.streaming === 'boolean' ? { streaming: capabilities.streaming } : {}),
      ...(typeof capabilities.pushNotifications === 'boolean'
        ? { pushNotifications: capabilities.pushNotifications }
        : {}),
      extendedAgentCard: raw.supportsAuthenticatedExtendedCard === true,
    },
    defaultInputModes: Array.isArray(raw.defaultInputModes) ? (raw.defaultInputModes as string[]) : [],
    defaultOutputModes: Array.isArray(raw.defaultOutputModes) ? (raw.defaultOutputModes as string[]) : [],
    skills: Array.isArray(raw.skills) ? (raw.skills as AgentCard['skills']) : [],
  };
}

function versionOf(i: AgentInterface): string {
  return (i.protocolVersion || '0.3').split('.').slice(0, 2).join('.');
}

/**
 * An A2A client over JSON-RPC or REST that speaks 1.0 to 1.0 agents and 0.3 to 0.3 agents (chosen
 * from the agent card's interfaces).
 */
export class A2aClient {
  readonly card: AgentCard;
  readonly url: string;
  readonly binding: Binding;
  readonly version: ProtocolVersion;
  readonly #options: A2aClientOptions;
  #rpcId = 0;

  constructor(card: AgentCard, options: A2aClientOptions = {}) {
    this.card = card;
    this.#options = options;
    const bindings = options.bindings ?? ['JSONRPC', 'HTTP+JSON'];
    const versions: ProtocolVersion[] = options.version ? [options.version] : ['1.0', '0.3'];
    let chosen: { i: AgentInterface; v: ProtocolVersion; b: Binding } | undefined;
    outer: for (const v of versions) {
      for (const b of bindings) {
        // Our 0.3 support is JSON-RPC only.
        if (v === '0.3' && b !== 'JSONRPC') continue;
        const i = card.supportedInterfaces.find(
          (x) => x.protocolBinding.toUpperCase() === b && versionOf(x) === v,
        );
        if (i) {
          chosen = { i, v, b };
          break outer;
        }
      }
    }
    if (!chosen) {
      throw new A2aError(
        'VERSION_NOT_SUPPORTED',
        `The agent offers no interface this client speaks (wanted ${versions.join('/')} over ${bindings.join('/')})`,
      );
    }
    this.url = chosen.i.url.replace(/\/+$/, '');
    this.binding = chosen.b;
    this.version = chosen.v;
  }

  /** Fetches the agent card under `baseUrl` and negotiates version and binding. */
  static async fromUrl(baseUrl: string, options: A2aClientOptions = {}): Promise<A2aClient> {
    const path = options.cardPath ?? '/.well-known/agent-card.json';
    const url = new URL(path.replace(/^\//, ''), baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`).toString();
    const raw = await withRetry(
      async () => {
        const response = await send(
          {
            url,
            method: 'GET',
            requestHeaders: { ...options.headers, 'A2A-Version': '1.0' },
            packageName: PACKAGE,
            apiName: 'A2A agent card',
            ...(options.fetch ? { fetch: options.fetch } : {}),
          },
          [],
        );
        return readJson(response);
      },
      options.retry === false ? { maxRetries: 0 } : (options.retry ?? {}),
    );
    return new A2aClient(normalizeAgentCard(raw), options);
  }

  // --- operations --------------------------------------------------------------------------------

  async sendMessage(
    request: SendMessageRequest | Message | string,
    options: CallOptions = {},
  ): Promise<SendMessageResponse> {
    const req = toRequest(request);
    if (this.version === '0.3') {
      const result = await this.#rpc('message/send', toV03Send(req), options);
      if (isObject(result) && result.kind === 'task')
        return { task: taskFromV03(parse(v03TaskSchema, result)) };
      return { message: messageFromV03(parse(v03MessageSchema, result)) };
    }
    const result =
      this.binding === 'JSONRPC'
        ? await this.#rpc('SendMessage', req, options)
        : await this.#rest('POST', '/message:send', req, options);
    if (!isObject(result) || (!isObject(result.task) && !isObject(result.message))) {
      throw new A2aError('INVALID_AGENT_RESPONSE', 'SendMessage returned neither a task nor a message');
    }
    return result as unknown as SendMessageResponse;
  }

  async *sendStreamingMessage(
    request: SendMessageRequest | Message | string,
    options: CallOptions = {},
  ): AsyncGenerator<StreamResponse> {
    const req = toRequest(request);
    if (this.version === '0.3') yield* this.#rpcStream('message/stream', toV03Send(req), options);
    else if (this.binding === 'JSONRPC') yield* this.#rpcStream('SendStreamingMessage', req, options);
    else yield* this.#restStream('POST', '/message:stream', req, options);
  }

  /** Re-attaches to a running task's stream (SubscribeToTask / tasks/resubscribe). */
  async *subscribe(taskId: string, options: CallOptions = {}): AsyncGenerator<StreamResponse> {
    if (this.version === '0.3') yield* this.#rpcStream('tasks/resubscribe', { id: taskId }, options);
    else if (this.binding === 'JSONRPC') yield* this.#rpcStream('SubscribeToTask', { id: taskId }, options);
    else
      yield* this.#restStream('POST', `/tasks/${encodeURIComponent(taskId)}:subscribe`, undefined, options);
  }

  async getTask(taskId: string, historyLength?: number, options: CallOptions = {}): Promise<Task> {
    const params = { id: taskId, ...(historyLength !== undefined ? { historyLength } : {}) };
    if (this.version === '0.3')
      return taskFromV03(parse(v03TaskSchema, await this.#rpc('tasks/get', params, options)));
    const q = historyLength !== undefined ? `?historyLength=${historyLength}` : '';
    const result =
      this.binding === 'JSONRPC'
        ? await this.#rpc('GetTask', params, options)
        : await this.#rest('GET', `/tasks/${encodeURIComponent(taskId)}${q}`, undefined, options);
    return asTask(result);
  }

  async listTasks(request: ListTasksRequest = {}, options: CallOptions = {}): Promise<ListTasksResponse> {
    if (this.version === '0.3') throw new A2aError('UNSUPPORTED_OPERATION', 'A2A 0.3 has no ListTasks');
    if (this.binding === 'JSONRPC')
      return (await this.#rpc('ListTasks', request, options)) as ListTasksResponse;
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(request)) if (v !== undefined) q.set(k, String(v));
    const qs = q.toString();
    return (await this.#rest('GET', `/tasks${qs ? `?${qs}` : ''}`, undefined, options)) as ListTasksResponse;
  }

  async cancelTask(taskId: string, options: CallOptions = {}): Promise<Task> {
    if (this.version === '0.3')
      return taskFromV03(parse(v03TaskSchema, await this.#rpc('tasks/cancel', { id: taskId }, options)));
    const result =
      this.binding === 'JSONRPC'
        ? await this.#rpc('CancelTask', { id: taskId }, options)
        : await this.#rest('POST', `/tasks/${encodeURIComponent(taskId)}:cancel`, {}, options);
    return asTask(result);
  }

  async createPushConfig(
    config: Omit<TaskPushNotificationConfig, 'id'> & { id?: string },
    options: CallOptions = {},
  ): Promise<TaskPushNotificationConfig> {
    if (this.version === '0.3') {
      const params = {
        taskId: config.taskId,
        pushNotificationConfig: {
          ...(config.id ? { id: config.id } : {}),
          url: config.url,
          ...(config.token ? { token: config.token } : {}),
          ...(config.authentication
            ? {
                authentication: {
                  schemes: [config.authentication.scheme],
                  credentials: config.authentication.credentials,
                },
              }
            : {}),
        },
      };
      return pushConfigFromV03(
        parse(
          v03PushConfigResultSchema,
          await this.#rpc('tasks/pushNotificationConfig/set', params, options),
        ),
      );
    }
    if (this.binding === 'JSONRPC')
      return (await this.#rpc(
        'CreateTaskPushNotificationConfig',
        config,
        options,
      )) as TaskPushNotificationConfig;
    return (await this.#rest(
      'POST',
      `/tasks/${encodeURIComponent(config.taskId)}/pushNotificationConfigs`,
      config,
      options,
    )) as TaskPushNotificationConfig;
  }

  async getPushConfig(
    taskId: string,
    id: string,
    options: CallOptions = {},
  ): Promise<TaskPushNotificationConfig> {
    if (this.version === '0.3') {
      return pushConfigFromV03(
        parse(
          v03PushConfigResultSchema,
          await this.#rpc(
            'tasks/pushNotificationConfig/get',
            { id: taskId, pushNotificationConfigId: id },
            options,
          ),
        ),
      );
    }
    if (this.binding === 'JSONRPC')
      return (await this.#rpc(
        'GetTaskPushNotificationConfig',
        { taskId, id },
        options,
      )) as TaskPushNotificationConfig;
    return (await this.#rest(
      'GET',
      `/tasks/${encodeURIComponent(taskId)}/pushNotificationConfigs/${encodeURIComponent(id)}`,
      undefined,
      options,
    )) as TaskPushNotificationConfig;
  }

  async listPushConfigs(taskId: string, options: CallOptions = {}): Promise<ListPushConfigsResponse> {
    if (this.version === '0.3') {
      const result = await this.#rpc('tasks/pushNotificationConfig/list', { id: taskId }, options);
      const list = Array.isArray(result) ? result : [];
      return {
        configs: list.map((c) => pushConfigFromV03(parse(v03PushConfigResultSchema, c))),
        nextPageToken: '',
      };
    }
    const r =
      this.binding === 'JSONRPC'
        ? await this.#rpc('ListTaskPushNotificationConfigs', { taskId }, options)
        : await this.#rest(
            'GET',
            `/tasks/${encodeURIComponent(taskId)}/pushNotificationConfigs`,
            undefined,
            options,
          );
    const configs =
      isObject(r) && Array.isArray(r.configs) ? (r.configs as TaskPushNotificationConfig[]) : [];
    return {
      configs,
      nextPageToken: isObject(r) && typeof r.nextPageToken === 'string' ? r.nextPageToken : '',
    };
  }

  async deletePushConfig(taskId: string, id: string, options: CallOptions = {}): Promise<void> {
    if (this.version === '0.3') {
      await this.#rpc(
        'tasks/pushNotificationConfig/delete',
        { id: taskId, pushNotificationConfigId: id },
        options,
      );
    } else if (this.binding === 'JSONRPC')
      await this.#rpc('DeleteTaskPushNotificationConfig', { taskId, id }, options);
    else
      await this.#rest(
        'DELETE',
        `/tasks/${encodeURIComponent(taskId)}/pushNotificationConfigs/${encodeURIComponent(id)}`,
        undefined,
        options,
      );
  }

  async getExtendedCard(options: CallOptions = {}): Promise<AgentCard> {
    if (this.version === '0.3')
      return normalizeAgentCard(await this.#rpc('agent/getAuthenticatedExtendedCard', {}, options));
    const raw =
      this.binding === 'JSONRPC'
        ? await this.#rpc('GetExtendedAgentCard', {}, options)
        : await this.#rest('GET', '/extendedAgentCard', undefined, options);
    return normalizeAgentCard(raw);
  }

  // --- transports --------------------------------------------------------------------------------

  #headers(): Record<string, string> {
    return { ...this.#options.headers, 'A2A-Version': this.version };
  }

  async #call(
    url: string,
    method: 'GET' | 'POST' | 'DELETE',
    body: unknown,
    accept: string,
    options: CallOptions,
  ): Promise<Response> {
    try {
      return await send(
        {
          url,
          method,
          ...(body !== undefined ? { body } : {}),
          requestHeaders: this.#headers(),
          packageName: PACKAGE,
          apiName: 'A2A agent',
          ...(this.#options.fetch ? { fetch: this.#options.fetch } : {}),
          ...(options.signal ? { signal: options.signal } : {}),
        },
        [],
        accept,
      );
    } catch (error) {
      throw protocolErrorFrom(error);
    }
  }

  async #rpc(method: string, params: unknown, options: CallOptions): Promise<unknown> {
    const id = ++this.#rpcId;
    const response = await this.#call(
      this.url,
      'POST',
      { jsonrpc: '2.0', id, method, params },
      'application/json',
      options,
    );
    const body = await readJson(response);
    if (!isObject(body) || body.jsonrpc !== '2.0')
      throw new A2aError('INVALID_AGENT_RESPONSE', 'Not a JSON-RPC 2.0 response');
    if (isObject(body.error)) throw a2aErrorFromWire(body.error);
    if (!('result' in body)) throw new A2aError('INVALID_AGENT_RESPONSE', 'JSON-RPC response without result');
    return body.result;
  }

  async *#rpcStream(method: string, params: unknown, options: CallOptions): AsyncGenerator<StreamResponse> {
    const id = ++this.#rpcId;
    const response = await this.#call(
      this.url,
      'POST',
      { jsonrpc: '2.0', id, method, params },
      'text/event-stream',
      options,
    );
    if (!response.headers.get('content-type')?.startsWith('text/event-stream')) {
      // An early error comes back as a plain JSON-RPC response.
      const body = await readJson(response);
      if (isObject(body) && isObject(body.error)) throw a2aErrorFromWire(body.error);
      throw new A2aError('INVALID_AGENT_RESPONSE', 'Expected an event stream');
    }
    if (!response.body) return;
    for await (const event of parseSseStream(response.body)) {
      if (!event.data) continue;
      const body = tryParseJson(event.data);
      if (!isObject(body)) throw new A2aError('INVALID_AGENT_RESPONSE', 'Malformed stream event');
      if (isObject(body.error)) throw a2aErrorFromWire(body.error);
      const item =
        this.version === '0.3'
          ? streamItemFromV03(parse(v03StreamItemSchema, body.result))
          : asStreamResponse(body.result);
      yield item;
      if (isStreamEnd(item)) return;
    }
  }

  async #rest(
    method: 'GET' | 'POST' | 'DELETE',
    path: string,
    body: unknown,
    options: CallOptions,
  ): Promise<unknown> {
    const run = async () =>
      readJson(
        await this.#call(
          `${this.url}${path}`,
          method,
          body,
          'application/a2a+json, application/json',
          options,
        ),
      );
    if (method !== 'GET' || this.#options.retry === false) return run();
    return withRetry(run, { ...(this.#options.retry ?? {}) });
  }

  async *#restStream(
    method: 'GET' | 'POST',
    path: string,
    body: unknown,
    options: CallOptions,
  ): AsyncGenerator<StreamResponse> {
    const response = await this.#call(`${this.url}${path}`, method, body ?? {}, 'text/event-stream', options);
    if (!response.body) return;
    for await (const event of parseSseStream(response.body)) {
      const data = tryParseJson(event.data);
      if (event.event === 'error') {
        throw isObject(data) && isObject(data.error)
          ? a2aErrorFromWire(data.error)
          : new A2aError('INTERNAL', event.data);
      }
      const item = asStreamResponse(data);
      yield item;
      if (isStreamEnd(item)) return;
    }
  }
}

function isStreamEnd(item: StreamResponse): boolean {
  if ('message' in item) return true;
  const state =
    'statusUpdate' in item ? item.statusUpdate.status.state : 'task' in item ? undefined : undefined;
  return (
    state === 'TASK_STATE_COMPLETED' ||
    state === 'TASK_STATE_FAILED' ||
    state === 'TASK_STATE_CANCELED' ||
    state === 'TASK_STATE_REJECTED' ||
    state === 'TASK_STATE_INPUT_REQUIRED' ||
    state === 'TASK_STATE_AUTH_REQUIRED'
  );
}

function parse<T>(
  schema: {
    safeParse(v: unknown): { success: true; data: T } | { success: false; error: { message: string } };
  },
  value: unknown,
): T {
  const r = schema.safeParse(value);
  if (!r.success)
    throw new A2aError(
      'INVALID_AGENT_RESPONSE',
      `The agent answered with an unexpected shape: ${r.error.message}`,
    );
  return r.data;
}

function asTask(value: unknown): Task {
  if (!isObject(value) || typeof value.id !== 'string' || !isObject(value.status)) {
    throw new A2aError('INVALID_AGENT_RESPONSE', 'Expected a task');
  }
  return value as unknown as Task;
}

function asStreamResponse(value: unknown): StreamResponse {
  if (
    isObject(value) &&
    (isObject(value.task) ||
      isObject(value.message) ||
      isObject(value.statusUpdate) ||
      isObject(value.artifactUpdate))
  ) {
    return value as unknown as StreamResponse;
  }
  throw new A2aError('INVALID_AGENT_RESPONSE', 'Unexpected stream item');
}

async function readJson(response: Response): Promise<unknown> {
  const text = await response.text();
  if (text === '') return {};
  const value = tryParseJson(text);
  if (value === undefined)
    throw new A2aError('INVALID_AGENT_RESPONSE', 'The agent answered with invalid JSON');
  return value;
}

/** HTTP failures carrying an A2A error body become that A2aError; others stay ApiCallErrors. */
function protocolErrorFrom(error: unknown): unknown {
  if (!isApiCallError(error) || error.responseBody === undefined) return error;
  const body = tryParseJson(error.responseBody);
  if (isObject(body) && isObject(body.error)) return a2aErrorFromWire(body.error, error.status);
  if (isObject(body) && typeof body.code === 'number') return a2aErrorFromWire(body, error.status);
  return error;
}

function toRequest(input: SendMessageRequest | Message | string): SendMessageRequest {
  if (typeof input === 'string')
    return { message: { messageId: newId(), role: 'ROLE_USER', parts: [{ text: input }] } };
  if ('messageId' in input) return { message: input };
  return input;
}

function toV03Send(req: SendMessageRequest): Record<string, unknown> {
  const c = req.configuration;
  const push = c?.taskPushNotificationConfig;
  return {
    message: messageToV03(req.message),
    ...(req.metadata ? { metadata: req.metadata } : {}),
    ...(c
      ? {
          configuration: {
            ...(c.acceptedOutputModes ? { acceptedOutputModes: c.acceptedOutputModes } : {}),
            ...(c.historyLength !== undefined ? { historyLength: c.historyLength } : {}),
            blocking: c.returnImmediately !== true,
            ...(push
              ? {
                  pushNotificationConfig: {
                    url: push.url,
                    ...(push.token ? { token: push.token } : {}),
                    ...(push.authentication
                      ? {
                          authentication: {
                            schemes: [push.authentication.scheme],
                            credentials: push.authentication.credentials,
                          },
                        }
                      : {}),
                  },
                }
              : {}),
          },
        }
      : {}),
  };
}
