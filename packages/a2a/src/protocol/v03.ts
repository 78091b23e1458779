import { z } from 'zod';
import { jsonSchema, metadataSchema } from './schemas.js';
import type {
  A2aJson,
  A2aMetadata,
  Artifact,
  Message,
  Part,
  SendMessageRequest,
  StreamResponse,
  Task,
  TaskPushNotificationConfig,
  TaskState,
  TaskStatus,
} from './types.js';

/**
 * The 0.3 JSON-RPC shapes (`kind` discriminators, kebab-case states, lowercase roles) and their
 * translation to and from the 1.0 model.
 */

export const V03_STATES: Record<TaskState, string> = {
  TASK_STATE_SUBMITTED: 'submitted',
  TASK_STATE_WORKING: 'working',
  TASK_STATE_COMPLETED: 'completed',
  TASK_STATE_FAILED: 'failed',
  TASK_STATE_CANCELED: 'canceled',
  TASK_STATE_INPUT_REQUIRED: 'input-required',
  TASK_STATE_REJECTED: 'rejected',
  TASK_STATE_AUTH_REQUIRED: 'auth-required',
};
const FROM_V03_STATE = new Map<string, TaskState>(
  Object.entries(V03_STATES).map(([k, v]) => [v, k as TaskState] as [string, TaskState]),
);

export function stateFromV03(state: string): TaskState {
  // 'unknown' has no 1.0 equivalent; a peer reporting it has lost track of the task.
  return FROM_V03_STATE.get(state) ?? 'TASK_STATE_FAILED';
}

const optionalId = z
  .string()
  .optional()
  .transform((v) => (v === '' ? undefined : v));

const filePartSchema = z.object({
  kind: z.literal('file'),
  file: z.union([
    z.object({ bytes: z.string(), mimeType: z.string().optional(), name: z.string().optional() }),
    z.object({ uri: z.string(), mimeType: z.string().optional(), name: z.string().optional() }),
  ]),
  metadata: metadataSchema.optional(),
});
export const v03PartSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('text'), text: z.string(), metadata: metadataSchema.optional() }),
  filePartSchema,
  z.object({
    kind: z.literal('data'),
    data: z.record(z.string(), jsonSchema),
    metadata: metadataSchema.optional(),
  }),
]);
export type V03Part = z.infer<typeof v03PartSchema>;

export const v03MessageSchema = z.object({
  kind: z.literal('message').optional(),
  messageId: z.string().min(1),
  role: z.enum(['user', 'agent']),
  parts: z.array(v03PartSchema).min(1),
  contextId: optionalId,
  taskId: optionalId,
  metadata: metadataSchema.optional(),
  extensions: z.array(z.string()).optional(),
  referenceTaskIds: z.array(z.string()).optional(),
});
export type V03Message = Omit<z.infer<typeof v03MessageSchema>, 'kind'> & { kind: 'message' };

const v03PushConfigSchema = z.object({
  id: optionalId,
  url: z.url(),
  token: z.string().optional(),
  authentication: z.object({ schemes: z.array(z.string()), credentials: z.string().optional() }).optional(),
});

export const v03SendParamsSchema = z.object({
  message: v03MessageSchema,
  configuration: z
    .object({
      acceptedOutputModes: z.array(z.string()).optional(),
      historyLength: z.number().int().min(0).optional(),
      pushNotificationConfig: v03PushConfigSchema.optional(),
      blocking: z.boolean().optional(),
    })
    .optional(),
  metadata: metadataSchema.optional(),
});
export const v03TaskQuerySchema = z.object({
  id: z.string().min(1),
  historyLength: z.number().int().min(0).optional(),
  metadata: metadataSchema.optional(),
});
export const v03TaskIdSchema = z.object({ id: z.string().min(1), metadata: metadataSchema.optional() });
export const v03SetPushSchema = z.object({
  taskId: z.string().min(1),
  pushNotificationConfig: v03PushConfigSchema,
});
export const v03GetPushSchema = z.object({
  id: z.string().min(1),
  pushNotificationConfigId: optionalId,
  metadata: metadataSchema.optional(),
});
export const v03DeletePushSchema = z.object({
  id: z.string().min(1),
  pushNotificationConfigId: z.string().min(1),
});

// --- 0.3 → 1.0 -----------------------------------------------------------------------------------

function dropUndefined<T extends object>(value: T): T {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) if (v !== undefined) out[k] = v;
  return out as T;
}

export function partFromV03(part: V03Part): Part {
  switch (part.kind) {
    case 'text':
      return dropUndefined({ text: part.text, metadata: part.metadata });
    case 'data':
      return dropUndefined({ data: part.data, mediaType: 'application/json', metadata: part.metadata });
    case 'file': {
      const f = part.file;
      return dropUndefined({
        ...('bytes' in f ? { raw: f.bytes } : { url: f.uri }),
        mediaType: f.mimeType,
        filename: f.name,
        metadata: part.metadata,
      });
    }
  }
}

export function messageFromV03(m: z.infer<typeof v03MessageSchema>): Message {
  return dropUndefined({
    messageId: m.messageId,
    contextId: m.contextId,
    taskId: m.taskId,
    role: m.role === 'user' ? 'ROLE_USER' : 'ROLE_AGENT',
    parts: m.parts.map(partFromV03),
    metadata: m.metadata,
    extensions: m.extensions,
    referenceTaskIds: m.referenceTaskIds,
  });
}

function pushFromV03(
  c: z.infer<typeof v03PushConfigSchema>,
  taskId?: string,
): NonNullable<NonNullable<SendMessageRequest['configuration']>['taskPushNotificationConfig']> {
  const scheme = c.authentication?.schemes[0];
  return dropUndefined({
    id: c.id,
    taskId,
    url: c.url,
    token: c.token,
    authentication: scheme
      ? dropUndefined({ scheme, credentials: c.authentication?.credentials })
      : undefined,
  });
}

export function sendParamsFromV03(p: z.infer<typeof v03SendParamsSchema>): SendMessageRequest {
  const c = p.configuration;
  return dropUndefined({
    message: messageFromV03(p.message),
    metadata: p.metadata,
    configuration: c
      ? dropUndefined({
          acceptedOutputModes: c.acceptedOutputModes,
          historyLength: c.historyLength,
          taskPushNotificationConfig: c.pushNotificationConfig
            ? pushFromV03(c.pushNotificationConfig)
            : undefined,
          // 0.3 peers (including the official SDKs) treat an absent `blocking` as blocking.
          returnImmediately: c.blocking === false ? true : undefined,
        })
      : undefined,
  });
}

export function setPushFromV03(
  p: z.infer<typeof v03SetPushSchema>,
): Omit<TaskPushNotificationConfig, 'id'> & { id?: string } {
  const c = pushFromV03(p.pushNotificationConfig, p.taskId);
  return { ...c, taskId: p.taskId };
}

// --- 1.0 → 0.3 -----------------------------------------------------------------------------------

function isObject(value: A2aJson | undefined): value is { [key: string]: A2aJson } {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function partToV03(part: Part): V03Part {
  if (part.text !== undefined)
    return dropUndefined({ kind: 'text', text: part.text, metadata: part.metadata });
  if (part.data !== undefined) {
    // 0.3 data parts must be objects; other JSON values are wrapped.
    const data = isObject(part.data) ? part.data : { value: part.data };
    return dropUndefined({ kind: 'data', data, metadata: part.metadata });
  }
  const file =
    part.raw !== undefined
      ? dropUndefined({ bytes: part.raw, mimeType: part.mediaType, name: part.filename })
      : dropUndefined({ uri: part.url ?? '', mimeType: part.mediaType, name: part.filename });
  return dropUndefined({ kind: 'file', file, metadata: part.metadata });
}

export function messageToV03(m: Message): V03Message {
  return dropUndefined({
    kind: 'message',
    messageId: m.messageId,
    role: m.role === 'ROLE_USER' ? 'user' : 'agent',
    parts: m.parts.map(partToV03),
    contextId: m.contextId,
    taskId: m.taskId,
    metadata: m.metadata,
    extensions: m.extensions,
    referenceTaskIds: m.referenceTaskIds,
  }) as V03Message;
}

export interface V03TaskStatus {
  state: string;
  message?: V03Message;
  timestamp?: string;
}

export function statusToV03(s: TaskStatus): V03TaskStatus {
  return dropUndefined({
    state: V03_STATES[s.state],
    message: s.message ? messageToV03(s.message) : undefined,
    timestamp: s.timestamp,
  });
}

export function artifactToV03(a: Artifact) {
  return dropUndefined({ ...a, parts: a.parts.map(partToV03) });
}

export function taskToV03(t: Task) {
  return dropUndefined({
    kind: 'task' as const,
    id: t.id,
    contextId: t.contextId,
    status: statusToV03(t.status),
    artifacts: t.artifacts?.map(artifactToV03),
    history: t.history?.map(messageToV03),
    metadata: t.metadata,
  });
}

export function streamResponseToV03(r: StreamResponse): unknown {
  if ('task' in r) return taskToV03(r.task);
  if ('message' in r) return messageToV03(r.message);
  if ('statusUpdate' in r) {
    const u = r.statusUpdate;
    return dropUndefined({
      kind: 'status-update',
      taskId: u.taskId,
      contextId: u.contextId,
      status: statusToV03(u.status),
      // 0.3 marks the last event of a stream: terminal or interrupted states end it.
      final: isStreamEnd(u.status.state),
      metadata: u.metadata,
    });
  }
  const u = r.artifactUpdate;
  return dropUndefined({
    kind: 'artifact-update',
    taskId: u.taskId,
    contextId: u.contextId,
    artifact: artifactToV03(u.artifact),
    append: u.append,
    lastChunk: u.lastChunk,
    metadata: u.metadata,
  });
}

function isStreamEnd(state: TaskState): boolean {
  return (
    state === 'TASK_STATE_COMPLETED' ||
    state === 'TASK_STATE_FAILED' ||
    state === 'TASK_STATE_CANCELED' ||
    state === 'TASK_STATE_REJECTED' ||
    state === 'TASK_STATE_INPUT_REQUIRED' ||
    state === 'TASK_STATE_AUTH_REQUIRED'
  );
}

export function pushConfigToV03(c: TaskPushNotificationConfig) {
  return {
    taskId: c.taskId,
    pushNotificationConfig: dropUndefined({
      id: c.id,
      url: c.url,
      token: c.token,
      authentication: c.authentication
        ? dropUndefined({ schemes: [c.authentication.scheme], credentials: c.authentication.credentials })
        : undefined,
    }),
  };
}

// --- 0.3 responses read by our client -------------------------------------------------------------

const v03StatusSchema = z.object({
  state: z.string(),
  message: v03MessageSchema.optional(),
  timestamp: z.string().optional(),
});
const v03ArtifactSchema = z.object({
  artifactId: z.string(),
  name: z.string().optional(),
  description: z.string().optional(),
  parts: z.array(v03PartSchema),
  metadata: metadataSchema.optional(),
  extensions: z.array(z.string()).optional(),
});
export const v03TaskSchema = z.object({
  kind: z.literal('task'),
  id: z.string(),
  contextId: z.string(),
  status: v03StatusSchema,
  artifacts: z.array(v03ArtifactSchema).optional(),
  history: z.array(v03MessageSchema).optional(),
  metadata: metadataSchema.optional(),
});
export const v03StreamItemSchema = z.union([
  v03TaskSchema,
  v03MessageSchema.extend({ kind: z.literal('message') }),
  z.object({
    kind: z.literal('status-update'),
    taskId: z.string(),
    contextId: z.string(),
    status: v03StatusSchema,
    final: z.boolean().optional(),
    metadata: metadataSchema.optional(),
  }),
  z.object({
    kind: z.literal('artifact-update'),
    taskId: z.string(),
    contextId: z.string(),
    artifact: v03ArtifactSchema,
    append: z.boolean().optional(),
    lastChunk: z.boolean().optional(),
    metadata: metadataSchema.optional(),
  }),
]);

function statusFromV03(s: z.infer<typeof v03StatusSchema>): TaskStatus {
  return dropUndefined({
    state: stateFromV03(s.state),
    message: s.message ? messageFromV03(s.message) : undefined,
    timestamp: s.timestamp,
  });
}

function artifactFromV03(a: z.infer<typeof v03ArtifactSchema>): Artifact {
  return dropUndefined({ ...a, parts: a.parts.map(partFromV03) });
}

export function taskFromV03(t: z.infer<typeof v03TaskSchema>): Task {
  return dropUndefined({
    id: t.id,
    contextId: t.contextId,
    status: statusFromV03(t.status),
    artifacts: t.artifacts?.map(artifactFromV03),
    history: t.history?.map(messageFromV03),
    metadata: t.metadata as A2aMetadata | undefined,
  });
}

export function streamItemFromV03(item: z.infer<typeof v03StreamItemSchema>): StreamResponse {
  switch (item.kind) {
    case 'task':
      return { task: taskFromV03(item) };
    case 'message':
      return { message: messageFromV03(item) };
    case 'status-update':
      return {
        statusUpdate: dropUndefined({
          taskId: item.taskId,
          contextId: item.contextId,
          status: statusFromV03(item.status),
          metadata: item.metadata,
        }),
      };
    case 'artifact-update':
      return {
        artifactUpdate: dropUndefined({
          taskId: item.taskId,
          contextId: item.contextId,
          artifact: artifactFromV03(item.artifact),
          append: item.append,
          lastChunk: item.lastChunk,
          metadata: item.metadata,
        }),
      };
  }
}

export const v03PushConfigResultSchema = z.object({
  taskId: z.string(),
  pushNotificationConfig: v03PushConfigSchema,
});

export function pushConfigFromV03(r: z.infer<typeof v03PushConfigResultSchema>): TaskPushNotificationConfig {
  const c = pushFromV03(r.pushNotificationConfig, r.taskId);
  return { ...c, id: c.id ?? '', taskId: r.taskId };
}
