import { z } from 'zod';
import { jsonSchema, metadataSchema } from './schemas.js';
import type {
  A2aJson,
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
 * The 0.3 HTTP+JSON binding spoke the ProtoJSON of the 0.3 proto (package a2a.v1): messages carry
 * `content` instead of `parts`, the status message is `message`, data parts nest `{data: {data}}`,
 * file parts `{file: {fileWithUri | fileWithBytes, mimeType}}`, and "canceled" is spelt CANCELLED.
 */

const STATE_TO_PROTO03: Record<TaskState, string> = {
  TASK_STATE_SUBMITTED: 'TASK_STATE_SUBMITTED',
  TASK_STATE_WORKING: 'TASK_STATE_WORKING',
  TASK_STATE_COMPLETED: 'TASK_STATE_COMPLETED',
  TASK_STATE_FAILED: 'TASK_STATE_FAILED',
  TASK_STATE_CANCELED: 'TASK_STATE_CANCELLED',
  TASK_STATE_INPUT_REQUIRED: 'TASK_STATE_INPUT_REQUIRED',
  TASK_STATE_REJECTED: 'TASK_STATE_REJECTED',
  TASK_STATE_AUTH_REQUIRED: 'TASK_STATE_AUTH_REQUIRED',
};

export function stateFromProto03(state: string): TaskState {
  if (state === 'TASK_STATE_CANCELLED') return 'TASK_STATE_CANCELED';
  const known = Object.keys(STATE_TO_PROTO03) as TaskState[];
  return known.includes(state as TaskState) ? (state as TaskState) : 'TASK_STATE_FAILED';
}

const optionalId = z
  .string()
  .optional()
  .transform((v) => (v === '' ? undefined : v));

const proto03PartSchema = z.object({
  text: z.string().optional(),
  file: z
    .object({
      fileWithUri: z.string().optional(),
      fileWithBytes: z.string().optional(),
      mimeType: z.string().optional(),
    })
    .optional(),
  data: z.object({ data: z.record(z.string(), jsonSchema).optional() }).optional(),
});

export const proto03MessageSchema = z.object({
  messageId: z.string().min(1),
  contextId: optionalId,
  taskId: optionalId,
  role: z.enum(['ROLE_USER', 'ROLE_AGENT', 'ROLE_UNSPECIFIED']).optional(),
  content: z.array(proto03PartSchema).min(1),
  metadata: metadataSchema.optional(),
  extensions: z.array(z.string()).optional(),
});

const proto03PushSchema = z.object({
  id: optionalId,
  url: z.url(),
  token: optionalId,
  authentication: z.object({ schemes: z.array(z.string()), credentials: optionalId }).optional(),
});

export const proto03SendSchema = z.object({
  message: proto03MessageSchema,
  configuration: z
    .object({
      acceptedOutputModes: z.array(z.string()).optional(),
      pushNotification: proto03PushSchema.optional(),
      historyLength: z.number().int().min(0).optional(),
      blocking: z.boolean().optional(),
    })
    .optional(),
  metadata: metadataSchema.optional(),
});

export const proto03TaskPushConfigSchema = z.object({
  name: z.string().optional(),
  pushNotificationConfig: proto03PushSchema,
});

function dropUndefined<T extends object>(value: T): T {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) if (v !== undefined) out[k] = v;
  return out as T;
}

function partFromProto03(p: z.infer<typeof proto03PartSchema>): Part {
  if (p.text !== undefined) return { text: p.text };
  if (p.file) {
    return dropUndefined({
      ...(p.file.fileWithBytes !== undefined
        ? { raw: p.file.fileWithBytes }
        : { url: p.file.fileWithUri ?? '' }),
      mediaType: p.file.mimeType || undefined,
    });
  }
  return { data: (p.data?.data ?? {}) as A2aJson, mediaType: 'application/json' };
}

export function messageFromProto03(m: z.infer<typeof proto03MessageSchema>): Message {
  return dropUndefined({
    messageId: m.messageId,
    contextId: m.contextId,
    taskId: m.taskId,
    role: m.role === 'ROLE_AGENT' ? 'ROLE_AGENT' : 'ROLE_USER',
    parts: m.content.map(partFromProto03),
    metadata: m.metadata,
    extensions: m.extensions,
  });
}

function pushFromProto03(c: z.infer<typeof proto03PushSchema>, taskId: string | undefined) {
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

export function sendFromProto03(v: z.infer<typeof proto03SendSchema>): SendMessageRequest {
  const c = v.configuration;
  return dropUndefined({
    message: messageFromProto03(v.message),
    metadata: v.metadata,
    configuration: c
      ? dropUndefined({
          acceptedOutputModes: c.acceptedOutputModes,
          historyLength: c.historyLength,
          taskPushNotificationConfig: c.pushNotification
            ? pushFromProto03(c.pushNotification, undefined)
            : undefined,
          returnImmediately: c.blocking === false ? true : undefined,
        })
      : undefined,
  });
}

export function pushConfigFromProto03(
  v: z.infer<typeof proto03TaskPushConfigSchema>,
  taskId: string,
): Omit<TaskPushNotificationConfig, 'id'> & { id?: string } {
  return { ...pushFromProto03(v.pushNotificationConfig, taskId), taskId };
}

// --- outbound ------------------------------------------------------------------------------------

function partToProto03(p: Part): Record<string, unknown> {
  if (p.text !== undefined) return { text: p.text };
  if (p.data !== undefined) {
    const data =
      typeof p.data === 'object' && p.data !== null && !Array.isArray(p.data) ? p.data : { value: p.data };
    return { data: { data } };
  }
  return {
    file: dropUndefined({
      ...(p.raw !== undefined ? { fileWithBytes: p.raw } : { fileWithUri: p.url }),
      mimeType: p.mediaType,
    }),
  };
}

export function messageToProto03(m: Message): Record<string, unknown> {
  return dropUndefined({
    messageId: m.messageId,
    contextId: m.contextId,
    taskId: m.taskId,
    role: m.role,
    content: m.parts.map(partToProto03),
    metadata: m.metadata,
    extensions: m.extensions,
  });
}

function statusToProto03(s: TaskStatus): Record<string, unknown> {
  return dropUndefined({
    state: STATE_TO_PROTO03[s.state],
    message: s.message ? messageToProto03(s.message) : undefined,
    timestamp: s.timestamp,
  });
}

function artifactToProto03(a: Artifact): Record<string, unknown> {
  return dropUndefined({ ...a, parts: a.parts.map(partToProto03) });
}

export function taskToProto03(t: Task): Record<string, unknown> {
  return dropUndefined({
    id: t.id,
    contextId: t.contextId,
    status: statusToProto03(t.status),
    artifacts: t.artifacts?.map(artifactToProto03),
    history: t.history?.map(messageToProto03),
    metadata: t.metadata,
  });
}

export function streamResponseToProto03(r: StreamResponse): Record<string, unknown> {
  if ('task' in r) return { task: taskToProto03(r.task) };
  if ('message' in r) return { message: messageToProto03(r.message) };
  if ('statusUpdate' in r) {
    const u = r.statusUpdate;
    const s = u.status.state;
    const final =
      s === 'TASK_STATE_COMPLETED' ||
      s === 'TASK_STATE_FAILED' ||
      s === 'TASK_STATE_CANCELED' ||
      s === 'TASK_STATE_REJECTED' ||
      s === 'TASK_STATE_INPUT_REQUIRED' ||
      s === 'TASK_STATE_AUTH_REQUIRED';
    return {
      statusUpdate: dropUndefined({
        taskId: u.taskId,
        contextId: u.contextId,
        status: statusToProto03(u.status),
        final,
        metadata: u.metadata,
      }),
    };
  }
  const u = r.artifactUpdate;
  return {
    artifactUpdate: dropUndefined({
      taskId: u.taskId,
      contextId: u.contextId,
      artifact: artifactToProto03(u.artifact),
      append: u.append,
      lastChunk: u.lastChunk,
      metadata: u.metadata,
    }),
  };
}

export function pushConfigToProto03(c: TaskPushNotificationConfig): Record<string, unknown> {
  return {
    name: `tasks/${c.taskId}/pushNotificationConfigs/${c.id}`,
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
