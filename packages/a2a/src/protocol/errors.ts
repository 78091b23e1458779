import { AdkError, isAdkError } from '@adk/core';

/**
 * Every failure the A2A protocol names, with its JSON-RPC code, HTTP status and the `reason` used
 * in a `google.rpc.ErrorInfo` detail (spec §5.4, §9.5, §11.6).
 */
export const A2A_ERRORS = {
  TASK_NOT_FOUND: { rpc: -32001, http: 404, status: 'NOT_FOUND', message: 'Task not found' },
  TASK_NOT_CANCELABLE: {
    rpc: -32002,
    http: 400,
    status: 'FAILED_PRECONDITION',
    message: 'Task cannot be canceled',
  },
  PUSH_NOTIFICATION_NOT_SUPPORTED: {
    rpc: -32003,
    http: 400,
    status: 'FAILED_PRECONDITION',
    message: 'Push Notification is not supported',
  },
  UNSUPPORTED_OPERATION: {
    rpc: -32004,
    http: 400,
    status: 'FAILED_PRECONDITION',
    message: 'This operation is not supported',
  },
  CONTENT_TYPE_NOT_SUPPORTED: {
    rpc: -32005,
    http: 400,
    status: 'INVALID_ARGUMENT',
    message: 'Incompatible content types',
  },
  INVALID_AGENT_RESPONSE: { rpc: -32006, http: 500, status: 'INTERNAL', message: 'Invalid agent response' },
  EXTENDED_AGENT_CARD_NOT_CONFIGURED: {
    rpc: -32007,
    http: 400,
    status: 'FAILED_PRECONDITION',
    message: 'Extended agent card is not configured',
  },
  EXTENSION_SUPPORT_REQUIRED: {
    rpc: -32008,
    http: 400,
    status: 'FAILED_PRECONDITION',
    message: 'A required extension is not declared by the client',
  },
  VERSION_NOT_SUPPORTED: {
    rpc: -32009,
    http: 400,
    status: 'FAILED_PRECONDITION',
    message: 'Protocol version is not supported',
  },
  // JSON-RPC 2.0 standard errors
  PARSE_ERROR: { rpc: -32700, http: 400, status: 'INVALID_ARGUMENT', message: 'Invalid JSON payload' },
  INVALID_REQUEST: {
    rpc: -32600,
    http: 400,
    status: 'INVALID_ARGUMENT',
    message: 'Request payload validation error',
  },
  METHOD_NOT_FOUND: { rpc: -32601, http: 404, status: 'NOT_FOUND', message: 'Method not found' },
  INVALID_PARAMS: { rpc: -32602, http: 400, status: 'INVALID_ARGUMENT', message: 'Invalid parameters' },
  INTERNAL: { rpc: -32603, http: 500, status: 'INTERNAL', message: 'Internal error' },
  // Transport-level failures; the JSON-RPC codes are implementation-defined (outside -32768..-32000).
  UNAUTHENTICATED: { rpc: -31401, http: 401, status: 'UNAUTHENTICATED', message: 'Authentication required' },
  PERMISSION_DENIED: { rpc: -31403, http: 403, status: 'PERMISSION_DENIED', message: 'Permission denied' },
  PAYLOAD_TOO_LARGE: {
    rpc: -32600,
    http: 413,
    status: 'INVALID_ARGUMENT',
    message: 'Request body too large',
  },
} as const;

export type A2aErrorType = keyof typeof A2A_ERRORS;

const BY_RPC_CODE = new Map<number, A2aErrorType>();
for (const [type, info] of Object.entries(A2A_ERRORS) as [
  A2aErrorType,
  (typeof A2A_ERRORS)[A2aErrorType],
][]) {
  if (!BY_RPC_CODE.has(info.rpc)) BY_RPC_CODE.set(info.rpc, type);
}

/** A `google.rpc.*` detail object (ProtoJSON `Any`). */
export type ErrorDetail = { '@type': string; [key: string]: unknown };

export interface FieldViolation {
  field: string;
  description: string;
}

export interface A2aErrorOptions {
  cause?: unknown;
  /** Structured context (task id, supported versions, ...), sent as ErrorInfo metadata. */
  metadata?: Record<string, string>;
  /** Validation failures, sent as a `google.rpc.BadRequest` detail. */
  fieldViolations?: FieldViolation[];
  /** Extra detail objects as received from a peer. */
  details?: ErrorDetail[];
}

const ERROR_INFO = 'type.googleapis.com/google.rpc.ErrorInfo';
const BAD_REQUEST = 'type.googleapis.com/google.rpc.BadRequest';

/**
 * An A2A protocol error. `code` (the AdkError code) is `A2A_<TYPE>`; `type` is the protocol name;
 * `rpcCode` and `httpStatus` are its wire codes.
 */
export class A2aError extends AdkError {
  readonly type: A2aErrorType;
  readonly rpcCode: number;
  readonly httpStatus: number;
  readonly metadata: Record<string, string> | undefined;
  readonly fieldViolations: FieldViolation[] | undefined;
  readonly extraDetails: ErrorDetail[] | undefined;

  constructor(type: A2aErrorType, message?: string, options: A2aErrorOptions = {}) {
    const info = A2A_ERRORS[type];
    super(`A2A_${type}`, message ?? info.message, {
      cause: options.cause,
      details: { type, rpcCode: info.rpc, ...(options.metadata ? { metadata: options.metadata } : {}) },
    });
    this.type = type;
    this.rpcCode = info.rpc;
    this.httpStatus = info.http;
    this.metadata = options.metadata;
    this.fieldViolations = options.fieldViolations;
    this.extraDetails = options.details;
  }

  /** The 1.0 `details` / JSON-RPC `data` array: ErrorInfo, then BadRequest when there are violations. */
  wireDetails(): ErrorDetail[] {
    const details: ErrorDetail[] = [
      {
        '@type': ERROR_INFO,
        reason: this.type,
        domain: 'a2a-protocol.org',
        ...(this.metadata ? { metadata: this.metadata } : {}),
      },
    ];
    if (this.fieldViolations?.length)
      details.push({ '@type': BAD_REQUEST, fieldViolations: this.fieldViolations });
    return details;
  }
}

export function isA2aError(value: unknown): value is A2aError {
  return (
    isAdkError(value) && typeof value.code === 'string' && value.code.startsWith('A2A_') && 'rpcCode' in value
  );
}

/** Rebuilds an A2aError from a JSON-RPC error object or a `google.rpc.Status` received from a peer. */
export function a2aErrorFromWire(
  error: { code?: unknown; message?: unknown; data?: unknown; details?: unknown; status?: unknown },
  httpStatus?: number,
): A2aError {
  const details = Array.isArray(error.details)
    ? error.details
    : Array.isArray(error.data)
      ? error.data
      : undefined;
  let type: A2aErrorType | undefined;
  let metadata: Record<string, string> | undefined;
  if (details) {
    for (const d of details) {
      if (d && typeof d === 'object' && (d as ErrorDetail)['@type'] === ERROR_INFO) {
        const reason = (d as { reason?: unknown }).reason;
        if (typeof reason === 'string' && reason in A2A_ERRORS) type = reason as A2aErrorType;
        const md = (d as { metadata?: unknown }).metadata;
        if (md && typeof md === 'object') metadata = md as Record<string, string>;
      }
    }
  }
  if (!type && typeof error.code === 'number') type = BY_RPC_CODE.get(error.code);
  if (!type && httpStatus !== undefined) {
    if (httpStatus === 404) type = 'TASK_NOT_FOUND';
    else if (httpStatus === 401) type = 'UNAUTHENTICATED';
    else if (httpStatus === 403) type = 'PERMISSION_DENIED';
    else if (httpStatus === 413) type = 'PAYLOAD_TOO_LARGE';
    else if (httpStatus >= 500) type = 'INTERNAL';
    else type = 'INVALID_REQUEST';
  }
  const message = typeof error.message === 'string' ? error.message : undefined;
  return new A2aError(type ?? 'INTERNAL', message, {
    ...(metadata ? { metadata } : {}),
    ...(details ? { details: details as ErrorDetail[] } : {}),
  });
}
