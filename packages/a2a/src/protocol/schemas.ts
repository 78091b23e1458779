import { z } from 'zod';
import { A2aError, type FieldViolation } from './errors.js';
import type {
  A2aJson,
  A2aMetadata,
  CancelTaskRequest,
  GetTaskRequest,
  ListPushConfigsRequest,
  ListTasksRequest,
  Message,
  Part,
  PushConfigRef,
  SendMessageRequest,
  TaskIdRequest,
  TaskPushNotificationConfig,
  TaskState,
} from './types.js';
import { TASK_STATES } from './types.js';

/** Zod schemas for 1.0 request bodies. Unknown fields are ignored (spec §5.7); ids may not be empty. */

export const jsonSchema: z.ZodType<A2aJson> = z.lazy(() =>
  z.union([
    z.string(),
    z.number(),
    z.boolean(),
    z.null(),
    z.array(jsonSchema),
    z.record(z.string(), jsonSchema),
  ]),
);
export const metadataSchema: z.ZodType<A2aMetadata> = z.record(z.string(), jsonSchema);

const id = z.string().min(1);
/** ProtoJSON may send an unset string as "" — read it as absent. */
const optionalId = z
  .string()
  .optional()
  .transform((v) => (v === '' ? undefined : v));
const historyLength = z.number().int().min(0).optional();

export const partSchema = z
  .object({
    text: z.string().optional(),
    raw: z.string().optional(),
    url: z.string().optional(),
    data: jsonSchema.optional(),
    metadata: metadataSchema.optional(),
    filename: z.string().optional(),
    mediaType: z.string().optional(),
  })
  .refine(
    (p) => [p.text, p.raw, p.url, p.data].filter((v) => v !== undefined).length === 1,
    'a part holds exactly one of text, raw, url or data',
  );

const roleSchema = z
  .enum(['ROLE_USER', 'ROLE_AGENT', 'user', 'agent'])
  .transform((r) => (r === 'user' ? 'ROLE_USER' : r === 'agent' ? 'ROLE_AGENT' : r));

export const messageSchema = z.object({
  messageId: id,
  contextId: optionalId,
  taskId: optionalId,
  role: roleSchema,
  parts: z.array(partSchema).min(1),
  metadata: metadataSchema.optional(),
  extensions: z.array(z.string()).optional(),
  referenceTaskIds: z.array(z.string()).optional(),
});

const authenticationSchema = z.object({ scheme: z.string().min(1), credentials: z.string().optional() });

const pushConfigBody = z.object({
  id: optionalId,
  taskId: optionalId,
  url: z.url(),
  token: z.string().optional(),
  authentication: authenticationSchema.optional(),
  tenant: optionalId,
});

export const sendMessageRequestSchema = z.object({
  tenant: optionalId,
  message: messageSchema,
  configuration: z
    .object({
      acceptedOutputModes: z.array(z.string()).optional(),
      taskPushNotificationConfig: pushConfigBody.optional(),
      historyLength,
      returnImmediately: z.boolean().optional(),
    })
    .optional(),
  metadata: metadataSchema.optional(),
});

export const getTaskRequestSchema = z.object({ tenant: optionalId, id, historyLength });

export const taskStateSchema = z.enum(TASK_STATES);

export const listTasksRequestSchema = z.object({
  tenant: optionalId,
  contextId: optionalId,
  status: z.union([taskStateSchema, z.literal('TASK_STATE_UNSPECIFIED')]).optional(),
  pageSize: z.number().int().min(1).max(100).optional(),
  pageToken: optionalId,
  historyLength,
  statusTimestampAfter: z.iso.datetime({ offset: false }).optional(),
  includeArtifacts: z.boolean().optional(),
});

export const cancelTaskRequestSchema = z.object({
  tenant: optionalId,
  id,
  metadata: metadataSchema.optional(),
});
export const taskIdRequestSchema = z.object({ tenant: optionalId, id });

export const createPushConfigSchema = pushConfigBody.extend({ taskId: id });
export const pushConfigRefSchema = z.object({ tenant: optionalId, taskId: id, id });
export const listPushConfigsSchema = z.object({
  tenant: optionalId,
  taskId: id,
  pageSize: z.number().int().min(0).optional(),
  pageToken: optionalId,
});
export const extendedCardRequestSchema = z.object({ tenant: optionalId }).optional();

/** Parses `value` with `schema`, raising InvalidParams with one field violation per zod issue. */
export function parseParams<T>(schema: z.ZodType<T>, value: unknown, prefix = ''): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const fieldViolations: FieldViolation[] = result.error.issues.map((issue) => ({
    field: [prefix, ...issue.path.map(String)].filter(Boolean).join('.') || '(root)',
    description: issue.message,
  }));
  const summary = fieldViolations
    .slice(0, 3)
    .map((v) => `${v.field}: ${v.description}`)
    .join('; ');
  throw new A2aError('INVALID_PARAMS', `Invalid parameters: ${summary}`, { fieldViolations });
}

/** Drops undefined members so responses carry no `"x": undefined` noise after JSON round trips. */
export function compact<T extends object>(value: T): T {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) if (v !== undefined) out[k] = v;
  return out as T;
}

export function toMessage(m: z.infer<typeof messageSchema>): Message {
  return compact({ ...m, role: m.role as Message['role'], parts: m.parts.map((p) => compact(p) as Part) });
}

export function toSendMessageRequest(v: z.infer<typeof sendMessageRequestSchema>): SendMessageRequest {
  return compact({ ...v, message: toMessage(v.message) }) as SendMessageRequest;
}

export function toListTasksRequest(v: z.infer<typeof listTasksRequestSchema>): ListTasksRequest {
  const { status, ...rest } = v;
  return compact({
    ...rest,
    status: status === 'TASK_STATE_UNSPECIFIED' ? undefined : (status as TaskState),
  });
}

export type ParsedGetTask = GetTaskRequest;
export type ParsedCancel = CancelTaskRequest;
export type ParsedTaskId = TaskIdRequest;
export type ParsedPushRef = PushConfigRef;
export type ParsedListPush = ListPushConfigsRequest;
export type ParsedCreatePush = Omit<TaskPushNotificationConfig, 'id'> & { id?: string };
