import type { AdkEvent, JsonObject } from '../api/types.js';
import { type StreamingBubble, streamKey } from './conversation.js';

type Update<T> = (next: T | ((current: T) => T)) => void;

/** The chat's setters a streamed event lands in. */
export interface ChatSetters {
  setBubbles: Update<StreamingBubble[]>;
  setEvents: Update<AdkEvent[]>;
  setState: Update<JsonObject>;
}

/**
 * Puts one event of a run's stream into the chat: a partial chunk grows its streaming bubble; a
 * final event replaces the bubble, replaces the local echo of the user's message (`localId`) or an
 * event with the same id (a reattached tail may send what is on screen already), and applies its
 * state delta.
 */
export function applyStreamEvent(event: AdkEvent, chat: ChatSetters, localId?: string): void {
  const key = streamKey(event);
  if (event.partial) {
    const parts = event.content?.parts ?? [];
    const text = parts
      .filter((p) => !p.thought)
      .map((p) => p.text ?? '')
      .join('');
    const thought = parts
      .filter((p) => p.thought)
      .map((p) => p.text ?? '')
      .join('');
    chat.setBubbles((list) => {
      const existing = list.find((b) => b.key === key);
      if (!existing) return [...list, { key, author: event.author, text, thought, chunks: 1 }];
      return list.map((b) =>
        b.key === key ? { ...b, text: b.text + text, thought: b.thought + thought, chunks: b.chunks + 1 } : b,
      );
    });
    return;
  }
  // A guardrail withdrew what was streamed (it rewrote or stopped the answer): drop every bubble.
  if (event.customMetadata?.adkRetract === true) chat.setBubbles([]);
  else chat.setBubbles((list) => list.filter((b) => b.key !== key));
  chat.setEvents((list) => {
    if (localId && event.author === 'user') {
      const at = list.findIndex((e) => e.id === localId);
      if (at >= 0) return [...list.slice(0, at), event, ...list.slice(at + 1)];
    }
    if (list.some((e) => e.id === event.id)) return list.map((e) => (e.id === event.id ? event : e));
    return [...list, event];
  });
  const delta = event.actions?.stateDelta;
  // Applying a delta again (an event already on screen) sets the same values: no harm.
  if (delta && Object.keys(delta).length > 0)
    chat.setState((s) => {
      const next = { ...s };
      for (const [k, v] of Object.entries(delta)) {
        if (k.startsWith('temp:')) continue;
        if (v === null) delete next[k];
        else next[k] = v;
      }
      return next;
    });
}
