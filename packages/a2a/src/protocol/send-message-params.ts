import { parseParams, sendMessageRequestSchema, toSendMessageRequest } from './schemas.js';
import type { Message, Part, SendMessageRequest } from './types.js';

/**
 * Reads SendMessage / SendStreamingMessage params. The common shape (a message of plain text, raw
 * or url parts, optionally a simple configuration) is read by hand; anything else, including every
 * invalid request, goes through the zod schema, which alone words the errors. The hand-read result
 * equals the schema's: same members, same order, same normalizations ("" ids read as absent,
 * 0.3 roles mapped to their 1.0 names).
 */
export function readSendMessageParams(params: unknown): SendMessageRequest {
  return (
    (isRecord(params) ? fastSendMessageParams(params) : undefined) ??
    toSendMessageRequest(parseParams(sendMessageRequestSchema, params))
  );
}

const ROLES: Record<string, Message['role']> = {
  ROLE_USER: 'ROLE_USER',
  ROLE_AGENT: 'ROLE_AGENT',
  user: 'ROLE_USER',
  agent: 'ROLE_AGENT',
};

const isRecord = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

const isStringArray = (v: unknown): v is string[] =>
  Array.isArray(v) && v.every((s) => typeof s === 'string');

/** The hand-read path; undefined sends the params to the schema. */
function fastSendMessageParams(p: Record<string, unknown>): SendMessageRequest | undefined {
  let message: Message | undefined;
  let configuration: SendMessageRequest['configuration'] | undefined;
  for (const key in p) {
    const value = p[key];
    if (key === 'message') message = fastMessage(value);
    else if (key === 'configuration') {
      configuration = fastConfiguration(value);
      if (!configuration) return undefined;
    } else if (value !== undefined) return undefined;
  }
  if (!message) return undefined;
  return configuration ? { message, configuration } : { message };
}

function fastMessage(value: unknown): Message | undefined {
  if (!isRecord(value)) return undefined;
  let messageId: string | undefined;
  let contextId: string | undefined;
  let taskId: string | undefined;
  let role: Message['role'] | undefined;
  let parts: Part[] | undefined;
  let extensions: string[] | undefined;
  let referenceTaskIds: string[] | undefined;
  for (const key in value) {
    const v = value[key];
    if (v === undefined) continue;
    switch (key) {
      case 'messageId':
        if (typeof v !== 'string' || v === '') return undefined;
        messageId = v;
        break;
      case 'contextId':
        if (typeof v !== 'string') return undefined;
        if (v !== '') contextId = v;
        break;
      case 'taskId':
        if (typeof v !== 'string') return undefined;
        if (v !== '') taskId = v;
        break;
      case 'role':
        if (typeof v !== 'string' || !Object.hasOwn(ROLES, v)) return undefined;
        role = ROLES[v];
        break;
      case 'parts':
        parts = fastParts(v);
        if (!parts) return undefined;
        break;
      case 'extensions':
        if (!isStringArray(v)) return undefined;
        extensions = [...v];
        break;
      case 'referenceTaskIds':
        if (!isStringArray(v)) return undefined;
        referenceTaskIds = [...v];
        break;
      default:
        return undefined;
    }
  }
  if (messageId === undefined || role === undefined || parts === undefined) return undefined;
  // Members in the schema's order.
  const message: Message = { messageId } as Message;
  if (contextId !== undefined) message.contextId = contextId;
  if (taskId !== undefined) message.taskId = taskId;
  message.role = role;
  message.parts = parts;
  if (extensions !== undefined) message.extensions = extensions;
  if (referenceTaskIds !== undefined) message.referenceTaskIds = referenceTaskIds;
  return message;
}

function fastParts(value: unknown): Part[] | undefined {
  if (!Array.isArray(value) || value.length === 0) return undefined;
  const parts: Part[] = [];
  for (const item of value) {
    if (!isRecord(item)) return undefined;
    let text: string | undefined;
    let raw: string | undefined;
    let url: string | undefined;
    let filename: string | undefined;
    let mediaType: string | undefined;
    let contents = 0;
    for (const key in item) {
      const v = item[key];
      if (v === undefined) continue;
      if (typeof v !== 'string') return undefined;
      switch (key) {
        case 'text':
          text = v;
          contents++;
          break;
        case 'raw':
          raw = v;
          contents++;
          break;
        case 'url':
          url = v;
          contents++;
          break;
        case 'filename':
          filename = v;
          break;
        case 'mediaType':
          mediaType = v;
          break;
        default:
          return undefined;
      }
    }
    if (contents !== 1) return undefined;
    const part: Part = {};
    if (text !== undefined) part.text = text;
    if (raw !== undefined) part.raw = raw;
    if (url !== undefined) part.url = url;
    if (filename !== undefined) part.filename = filename;
    if (mediaType !== undefined) part.mediaType = mediaType;
    parts.push(part);
  }
  return parts;
}

function fastConfiguration(value: unknown): SendMessageRequest['configuration'] | undefined {
  if (!isRecord(value)) return undefined;
  let acceptedOutputModes: string[] | undefined;
  let historyLength: number | undefined;
  let returnImmediately: boolean | undefined;
  for (const key in value) {
    const v = value[key];
    if (v === undefined) continue;
    switch (key) {
      case 'acceptedOutputModes':
        if (!isStringArray(v)) return undefined;
        acceptedOutputModes = [...v];
        break;
      case 'historyLength':
        if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) return undefined;
        historyLength = v;
        break;
      case 'returnImmediately':
        if (typeof v !== 'boolean') return undefined;
        returnImmediately = v;
        break;
      default:
        return undefined;
    }
  }
  const configuration: NonNullable<SendMessageRequest['configuration']> = {};
  if (acceptedOutputModes !== undefined) configuration.acceptedOutputModes = acceptedOutputModes;
  if (historyLength !== undefined) configuration.historyLength = historyLength;
  if (returnImmediately !== undefined) configuration.returnImmediately = returnImmediately;
  return configuration;
}
