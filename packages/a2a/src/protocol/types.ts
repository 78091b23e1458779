/**
 * The A2A data model as this package holds it internally: the 1.0 ProtoJSON shapes (camelCase
 * fields, SCREAMING_SNAKE enums, member-name discriminators). 0.3 shapes are translated at the edge
 * (see `v03.ts` and `v03-rest.ts`).
 */

export type JsonPrimitive = string | number | boolean | null;
export type A2aJson = JsonPrimitive | A2aJson[] | { [key: string]: A2aJson };
export type A2aMetadata = { [key: string]: A2aJson };

/** The protocol versions this package speaks, in `Major.Minor` form. */
export type ProtocolVersion = '1.0' | '0.3';
export const SUPPORTED_VERSIONS: readonly ProtocolVersion[] = ['1.0', '0.3'];

export const TASK_STATES = [
  'TASK_STATE_SUBMITTED',
  'TASK_STATE_WORKING',
  'TASK_STATE_COMPLETED',
  'TASK_STATE_FAILED',
  'TASK_STATE_CANCELED',
  'TASK_STATE_INPUT_REQUIRED',
  'TASK_STATE_REJECTED',
  'TASK_STATE_AUTH_REQUIRED',
] as const;
export type TaskState = (typeof TASK_STATES)[number];

const TERMINAL: ReadonlySet<TaskState> = new Set([
  'TASK_STATE_COMPLETED',
  'TASK_STATE_FAILED',
  'TASK_STATE_CANCELED',
  'TASK_STATE_REJECTED',
]);
const INTERRUPTED: ReadonlySet<TaskState> = new Set([
  'TASK_STATE_INPUT_REQUIRED',
  'TASK_STATE_AUTH_REQUIRED',
]);

/** Completed, failed, canceled or rejected: the task accepts no further messages. */
export function isTerminalState(state: TaskState): boolean {
  return TERMINAL.has(state);
}

/** Input-required or auth-required: the task waits for the caller. */
export function isInterruptedState(state: TaskState): boolean {
  return INTERRUPTED.has(state);
}

export type Role = 'ROLE_USER' | 'ROLE_AGENT';

/** One piece of content: exactly one of `text`, `raw` (base64 bytes), `url` or `data`. */
export interface Part {
  text?: string;
  raw?: string;
  url?: string;
  data?: A2aJson;
  metadata?: A2aMetadata;
  filename?: string;
  mediaType?: string;
}

export interface Message {
  messageId: string;
  contextId?: string;
  taskId?: string;
  role: Role;
  parts: Part[];
  metadata?: A2aMetadata;
  extensions?: string[];
  referenceTaskIds?: string[];
}

export interface TaskStatus {
  state: TaskState;
  message?: Message;
  /** ISO 8601, UTC */
  timestamp?: string;
}

export interface Artifact {
  artifactId: string;
  name?: string;
  description?: string;
  parts: Part[];
  metadata?: A2aMetadata;
  extensions?: string[];
}

export interface Task {
  id: string;
  contextId: string;
  status: TaskStatus;
  artifacts?: Artifact[];
  history?: Message[];
  metadata?: A2aMetadata;
}

export interface TaskStatusUpdateEvent {
  taskId: string;
  contextId: string;
  status: TaskStatus;
  metadata?: A2aMetadata;
}

export interface TaskArtifactUpdateEvent {
  taskId: string;
  contextId: string;
  artifact: Artifact;
  append?: boolean;
  lastChunk?: boolean;
  metadata?: A2aMetadata;
}

/** One item of a stream (and the body of a push notification): exactly one member is set. */
export type StreamResponse =
  | { task: Task }
  | { message: Message }
  | { statusUpdate: TaskStatusUpdateEvent }
  | { artifactUpdate: TaskArtifactUpdateEvent };

export type SendMessageResponse = { task: Task } | { message: Message };

export interface AuthenticationInfo {
  scheme: string;
  credentials?: string;
}

export interface TaskPushNotificationConfig {
  id: string;
  taskId: string;
  url: string;
  token?: string;
  authentication?: AuthenticationInfo;
  tenant?: string;
}

export interface SendMessageConfiguration {
  acceptedOutputModes?: string[];
  taskPushNotificationConfig?: Omit<TaskPushNotificationConfig, 'id' | 'taskId'> & {
    id?: string;
    taskId?: string;
  };
  historyLength?: number;
  returnImmediately?: boolean;
}

export interface SendMessageRequest {
  tenant?: string;
  message: Message;
  configuration?: SendMessageConfiguration;
  metadata?: A2aMetadata;
}

export interface GetTaskRequest {
  tenant?: string;
  id: string;
  historyLength?: number;
}

export interface ListTasksRequest {
  tenant?: string;
  contextId?: string;
  status?: TaskState;
  pageSize?: number;
  pageToken?: string;
  historyLength?: number;
  statusTimestampAfter?: string;
  includeArtifacts?: boolean;
}

export interface ListTasksResponse {
  tasks: Task[];
  nextPageToken: string;
  pageSize: number;
  totalSize: number;
}

export interface CancelTaskRequest {
  tenant?: string;
  id: string;
  metadata?: A2aMetadata;
}

export interface TaskIdRequest {
  tenant?: string;
  id: string;
}

export interface PushConfigRef {
  tenant?: string;
  taskId: string;
  id: string;
}

export interface ListPushConfigsRequest {
  tenant?: string;
  taskId: string;
  pageSize?: number;
  pageToken?: string;
}

export interface ListPushConfigsResponse {
  configs: TaskPushNotificationConfig[];
  nextPageToken: string;
}

// --- agent card ---------------------------------------------------------------------------------

export type ProtocolBinding = 'JSONRPC' | 'HTTP+JSON' | 'GRPC' | (string & {});

export interface AgentInterface {
  url: string;
  protocolBinding: ProtocolBinding;
  tenant?: string;
  protocolVersion: string;
}

export interface AgentProvider {
  url: string;
  organization: string;
}

export interface AgentExtension {
  uri: string;
  description?: string;
  required?: boolean;
  params?: A2aMetadata;
}

export interface AgentCapabilities {
  streaming?: boolean;
  pushNotifications?: boolean;
  extensions?: AgentExtension[];
  extendedAgentCard?: boolean;
}

export type SecurityRequirement = { schemes: { [scheme: string]: { list: string[] } } };

export interface AgentSkill {
  id: string;
  name: string;
  description: string;
  tags: string[];
  examples?: string[];
  inputModes?: string[];
  outputModes?: string[];
  securityRequirements?: SecurityRequirement[];
}

/** ProtoJSON form of a security scheme (the 1.0 card); translated to the 0.3 OpenAPI-like form. */
export type SecurityScheme =
  | { apiKeySecurityScheme: { description?: string; location: 'header' | 'query' | 'cookie'; name: string } }
  | { httpAuthSecurityScheme: { description?: string; scheme: string; bearerFormat?: string } }
  | {
      oauth2SecurityScheme: {
        description?: string;
        flows: { [flow: string]: A2aJson };
        oauth2MetadataUrl?: string;
      };
    }
  | { openIdConnectSecurityScheme: { description?: string; openIdConnectUrl: string } }
  | { mtlsSecurityScheme: { description?: string } };

export interface AgentCard {
  name: string;
  description: string;
  supportedInterfaces: AgentInterface[];
  provider?: AgentProvider;
  version: string;
  documentationUrl?: string;
  capabilities: AgentCapabilities;
  securitySchemes?: { [name: string]: SecurityScheme };
  securityRequirements?: SecurityRequirement[];
  defaultInputModes: string[];
  defaultOutputModes: string[];
  skills: AgentSkill[];
  iconUrl?: string;
}
