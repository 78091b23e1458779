import { type Event, REQUEST_CONFIRMATION, type Session, visibleEvents } from '@adk/core';
import type { Message } from '@ag-ui/core';
import { jsonText } from './translate.js';

/**
 * A session's conversation as AG-UI messages (MESSAGES_SNAPSHOT): user texts, each agent turn's
 * text and tool calls as an assistant message (named after the agent), each result as a tool
 * message. The framework's own confirmation exchange is left out (it travels as interrupts).
 */
export function toAgUiMessages(session: Pick<Session, 'events'> | readonly Event[]): Message[] {
  const events = visibleEvents('events' in session ? session.events : session);
  const out: Message[] = [];
  for (const event of events) {
    if (event.partial || !event.content) continue;
    const parts = event.content.parts;
    const text = parts
      .filter((p) => p.text !== undefined && !p.thought)
      .map((p) => p.text ?? '')
      .join('');
    if (event.author === 'user') {
      if (text) out.push({ id: event.id, role: 'user', content: text });
    } else {
      const calls = parts.flatMap((p) =>
        p.functionCall && p.functionCall.name !== REQUEST_CONFIRMATION ? [p.functionCall] : [],
      );
      if (text || calls.length > 0)
        out.push({
          id: event.id,
          role: 'assistant',
          name: event.author,
          ...(text ? { content: text } : {}),
          ...(calls.length > 0
            ? {
                toolCalls: calls.map((c) => ({
                  id: c.id,
                  type: 'function' as const,
                  function: { name: c.name, arguments: JSON.stringify(c.args ?? {}) },
                })),
              }
            : {}),
        } as Message);
    }
    for (const part of parts) {
      const r = part.functionResponse;
      if (!r || r.name === REQUEST_CONFIRMATION) continue;
      out.push({ id: `${event.id}-${r.id}`, role: 'tool', toolCallId: r.id, content: jsonText(r.response) });
    }
  }
  return out;
}
