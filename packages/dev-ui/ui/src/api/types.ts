// The wire shapes of ADK's api_server, as the UI reads them (camelCase, like core's types).
// Declared here instead of imported so the browser bundle carries no framework code.

export type JsonObject = Record<string, unknown>;

export interface FunctionCall {
  id?: string;
  name: string;
  args?: JsonObject;
}

export interface FunctionResponse {
  id?: string;
  name: string;
  response?: JsonObject;
}

export interface Part {
  text?: string;
  thought?: boolean;
  inlineData?: { mimeType: string; data: string; displayName?: string };
  fileData?: { mimeType?: string; fileUri: string };
  functionCall?: FunctionCall;
  functionResponse?: FunctionResponse;
  executableCode?: { language?: string; code: string };
  codeExecutionResult?: { outcome?: string; output?: string };
}

export interface Content {
  role?: string;
  parts?: Part[];
}

export interface UsageMetadata {
  promptTokenCount?: number;
  candidatesTokenCount?: number;
  totalTokenCount?: number;
  thoughtsTokenCount?: number;
  cachedContentTokenCount?: number;
}

export interface EventActions {
  stateDelta?: JsonObject;
  artifactDelta?: Record<string, number>;
  transferToAgent?: string;
  escalate?: boolean;
  skipSummarization?: boolean;
  requestedToolConfirmations?: Record<string, { hint?: string; confirmed?: boolean; payload?: unknown }>;
  requestedAuthConfigs?: JsonObject;
  endOfAgent?: boolean;
  /** Time travel: this event rewound the session to before that invocation. */
  rewindBeforeInvocationId?: string;
  /** Workflows: the route a node took (a value or a list). */
  route?: unknown;
}

/** Workflows: where an event comes from (`'wf@1/node@2'`) and which node runs it completes. */
export interface NodeInfo {
  path: string;
  outputFor?: string[];
  messageAsOutput?: boolean;
}

export interface AdkEvent {
  id: string;
  invocationId?: string;
  author: string;
  branch?: string;
  timestamp?: number;
  content?: Content;
  partial?: boolean;
  turnComplete?: boolean;
  interrupted?: boolean;
  finishReason?: string;
  errorCode?: string;
  errorMessage?: string;
  usageMetadata?: UsageMetadata;
  longRunningToolIds?: string[];
  actions?: EventActions;
  /** Workflows: a node's output (any JSON value). */
  output?: unknown;
  nodeInfo?: NodeInfo;
  /** Free-form metadata; guardrails record what they changed or stopped under `adkGuardrails`. */
  customMetadata?: Record<string, unknown>;
}

export interface Session {
  id: string;
  appName: string;
  userId: string;
  state?: JsonObject;
  events?: AdkEvent[];
  lastUpdateTime?: number;
  /** The session and event a fork was taken from. */
  forkedFrom?: { sessionId: string; eventId?: string };
}

export interface Span {
  name: string;
  spanId: string;
  parentSpanId?: string | null;
  traceId?: string;
  /** Milliseconds since the epoch. */
  start: number;
  end: number;
  attributes: JsonObject;
}

export interface GraphNode {
  id: string;
  label: string;
  kind?: string;
}

export interface GraphEdge {
  from: string;
  to: string;
  /** A workflow edge's route(s), shown on the edge. */
  label?: string;
}

export interface Graph {
  nodes: GraphNode[];
  edges: GraphEdge[];
}
