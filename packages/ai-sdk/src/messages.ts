import { type Event, REQUEST_CONFIRMATION, type Session, visibleEvents } from '@adk/core';
import type { AdkMessageMetadata, ProviderMetadata, UIMessageChunk } from './chunks.js';
import { UIMessageStreamTranslator } from './translate.js';

/** A part of a UI message (the AI SDK's `UIMessagePart` shapes that ADK produces). */
export type UIMessagePart =
  | { type: 'step-start' }
  | { type: 'text'; text: string; state?: 'streaming' | 'done'; providerMetadata?: ProviderMetadata }
  | { type: 'reasoning'; text: string; state?: 'streaming' | 'done'; providerMetadata?: ProviderMetadata }
  | { type: 'file'; mediaType: string; url: string; filename?: string }
  | { type: `data-${string}`; id?: string; data: unknown }
  | UIToolPart;

/** A tool call as a part (`tool-{name}`), in the states the AI SDK defines. */
export interface UIToolPart {
  type: `tool-${string}`;
  toolCallId: string;
  state:
    | 'input-available'
    | 'approval-requested'
    | 'approval-responded'
    | 'output-available'
    | 'output-error'
    | 'output-denied';
  input: unknown;
  output?: unknown;
  errorText?: string;
  approval?: { id: string; approved?: boolean; reason?: string };
  callProviderMetadata?: ProviderMetadata;
}

/** A UI message (the AI SDK's `UIMessage` shape), as `useChat` takes for its initial messages. */
export interface UIMessage {
  id: string;
  role: 'system' | 'user' | 'assistant';
  metadata?: AdkMessageMetadata;
  parts: UIMessagePart[];
}

export function isToolPart(part: { type: string }): part is UIToolPart {
  return part.type.startsWith('tool-');
}

/** Folds chunks into an assistant message, as the AI SDK's client does. */
export function applyChunk(message: UIMessage, chunk: UIMessageChunk): void {
  const parts = message.parts;
  const tool = (id: string) => parts.find((p): p is UIToolPart => isToolPart(p) && p.toolCallId === id);
  const lastOf = (type: 'text' | 'reasoning') => {
    for (let i = parts.length - 1; i >= 0; i--) {
      const p = parts[i] as UIMessagePart;
      if (p.type === type && 'state' in p && p.state === 'streaming')
        return p as { text: string; state?: string };
    }
    return undefined;
  };
  switch (chunk.type) {
    case 'start':
    case 'finish':
    case 'message-metadata':
      if (chunk.messageMetadata) message.metadata = { ...message.metadata, ...chunk.messageMetadata };
      return;
    case 'start-step':
      parts.push({ type: 'step-start' });
      return;
    case 'text-start':
    case 'reasoning-start':
      parts.push({
        type: chunk.type === 'text-start' ? 'text' : 'reasoning',
        text: '',
        state: 'streaming',
        ...(chunk.providerMetadata ? { providerMetadata: chunk.providerMetadata } : {}),
      });
      return;
    case 'text-delta':
    case 'reasoning-delta': {
      const part = lastOf(chunk.type === 'text-delta' ? 'text' : 'reasoning');
      if (part) part.text += chunk.delta;
      return;
    }
    case 'text-end':
    case 'reasoning-end': {
      const part = lastOf(chunk.type === 'text-end' ? 'text' : 'reasoning');
      if (part) part.state = 'done';
      return;
    }
    case 'tool-input-available': {
      const existing = tool(chunk.toolCallId);
      if (existing) {
        existing.input = chunk.input;
        return;
      }
      parts.push({
        type: `tool-${chunk.toolName}`,
        toolCallId: chunk.toolCallId,
        state: 'input-available',
        input: chunk.input,
        ...(chunk.providerMetadata ? { callProviderMetadata: chunk.providerMetadata } : {}),
      });
      return;
    }
    case 'tool-approval-request': {
      const part = tool(chunk.toolCallId);
      if (!part) return;
      part.state = 'approval-requested';
      part.approval = { id: chunk.approvalId };
      return;
    }
    case 'tool-output-available': {
      const part = tool(chunk.toolCallId);
      if (!part) return;
      part.state = 'output-available';
      part.output = chunk.output;
      return;
    }
    case 'tool-output-error': {
      const part = tool(chunk.toolCallId);
      if (!part) return;
      if (part.approval?.approved === false) {
        part.state = 'output-denied';
        return;
      }
      part.state = 'output-error';
      part.errorText = chunk.errorText;
      return;
    }
    case 'tool-output-denied': {
      const part = tool(chunk.toolCallId);
      if (part) part.state = 'output-denied';
      return;
    }
    case 'file':
      parts.push({ type: 'file', mediaType: chunk.mediaType, url: chunk.url });
      return;
    case 'abort':
    case 'error':
    case 'finish-step':
      return;
    default: {
      if (!chunk.type.startsWith('data-')) return;
      const data = chunk as { type: `data-${string}`; id?: string; data: unknown; transient?: boolean };
      if (data.transient) return;
      const same =
        data.id === undefined
          ? undefined
          : parts.find((p) => p.type === data.type && 'id' in p && p.id === data.id);
      if (same && 'data' in same) same.data = data.data;
      else
        parts.push({ type: data.type, ...(data.id !== undefined ? { id: data.id } : {}), data: data.data });
    }
  }
}

/** A user message's own content (text, files), or undefined for one that only answers calls. */
function userParts(event: Event): UIMessagePart[] | undefined {
  const parts: UIMessagePart[] = [];
  for (const part of event.content?.parts ?? []) {
    if (part.text !== undefined && !part.thought)
      parts.push({ type: 'text', text: part.text, state: 'done' });
    else if (part.inlineData?.data)
      parts.push({
        type: 'file',
        mediaType: part.inlineData.mimeType,
        url: `data:${part.inlineData.mimeType};base64,${part.inlineData.data}`,
        ...(part.inlineData.displayName ? { filename: part.inlineData.displayName } : {}),
      });
    else if (part.fileData?.fileUri)
      parts.push({
        type: 'file',
        mediaType: part.fileData.mimeType ?? 'application/octet-stream',
        url: part.fileData.fileUri,
      });
  }
  return parts.length > 0 ? parts : undefined;
}

/** Answers in a user event (approvals, client tool outputs, replies) applied to the message's parts. */
function applyAnswers(message: UIMessage, event: Event): void {
  for (const part of event.content?.parts ?? []) {
    const response = part.functionResponse;
    if (!response) continue;
    if (response.name === REQUEST_CONFIRMATION) {
      const target = message.parts.find(
        (p): p is UIToolPart => isToolPart(p) && p.approval?.id === response.id,
      );
      if (!target) continue;
      const approved = response.response.confirmed === true;
      target.state = 'approval-responded';
      target.approval = { id: response.id, approved };
      continue;
    }
    const target = message.parts.find((p): p is UIToolPart => isToolPart(p) && p.toolCallId === response.id);
    if (!target) continue;
    const value = response.response;
    const keys = Object.keys(value);
    target.state = 'output-available';
    target.output = keys.length === 1 && keys[0] === 'result' ? value.result : value;
  }
}

/**
 * A session's conversation as UI messages (for `useChat`'s initial messages): one user message
 * per user turn with text or files, and one assistant message for everything the agents did until
 * the next one — answers to approvals and client-side tools continue the same assistant message,
 * as they do while streaming. The assistant message's id is its first invocation's id, the
 * `messageId` the chat route streams it under.
 */
export function toUIMessages(session: Pick<Session, 'events'> | readonly Event[]): UIMessage[] {
  const events = visibleEvents('events' in session ? session.events : session);
  const messages: UIMessage[] = [];
  let assistant: UIMessage | undefined;
  let translator: UIMessageStreamTranslator | undefined;
  const close = () => {
    if (assistant && translator) for (const chunk of translator.finish()) applyChunk(assistant, chunk);
    assistant = undefined;
    translator = undefined;
  };
  for (const event of events) {
    if (event.partial) continue;
    if (event.author === 'user') {
      const parts = userParts(event);
      if (parts) {
        close();
        messages.push({ id: event.id, role: 'user', parts });
      } else if (assistant) applyAnswers(assistant, event);
      continue;
    }
    if (!assistant || !translator) {
      assistant = { id: event.invocationId, role: 'assistant', parts: [] };
      translator = new UIMessageStreamTranslator({ messageId: event.invocationId });
      messages.push(assistant);
    }
    for (const chunk of translator.push(event)) applyChunk(assistant, chunk);
  }
  close();
  for (const message of messages)
    for (const part of message.parts)
      if ((part.type === 'text' || part.type === 'reasoning') && part.state === 'streaming')
        part.state = 'done';
  return messages;
}
