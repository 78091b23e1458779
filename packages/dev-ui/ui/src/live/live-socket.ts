import { storedToken } from '../api/auth.js';
import type { AdkEvent, Content } from '../api/types.js';

/** What the server sends on `/run_live`: an event, or an error about a frame we sent. */
export type LiveFrame = { kind: 'event'; event: AdkEvent } | { kind: 'error'; error: string; code?: string };

export interface LiveSocketOptions {
  app: string;
  user: string;
  session: string;
  /** AUDIO: spoken answers (with transcriptions); TEXT: text answers, for models without audio. */
  modality: 'AUDIO' | 'TEXT';
  onFrame: (frame: LiveFrame) => void;
  onClose: (code: number, reason: string) => void;
}

/** The `/run_live` URL of this page's server (same origin, ws: or wss:). */
export function liveUrl(options: Pick<LiveSocketOptions, 'app' | 'user' | 'session' | 'modality'>): string {
  const url = new URL('/run_live', window.location.href);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  url.search = new URLSearchParams({
    app_name: options.app,
    user_id: options.user,
    session_id: options.session,
    modalities: options.modality,
  }).toString();
  return url.toString();
}

function base64Url(text: string): string {
  return btoa(String.fromCharCode(...new TextEncoder().encode(text)))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
}

/**
 * A `/run_live` WebSocket. A browser cannot set `Authorization` on a WebSocket, so the tab's token
 * (if any) travels as the `adk.token.<base64url>` sub-protocol next to `adk.live`, which the server
 * picks.
 */
export class LiveSocket {
  private readonly socket: WebSocket;
  private readonly opened: Promise<void>;

  constructor(options: LiveSocketOptions) {
    const token = storedToken();
    const protocols = ['adk.live', ...(token ? [`adk.token.${base64Url(token)}`] : [])];
    this.socket = new WebSocket(liveUrl(options), protocols);
    this.opened = new Promise((resolve, reject) => {
      this.socket.addEventListener('open', () => resolve(), { once: true });
      this.socket.addEventListener('close', () => reject(new Error('The live connection closed')), {
        once: true,
      });
    });
    this.opened.catch(() => undefined);
    this.socket.addEventListener('message', (e: MessageEvent) => {
      let frame: unknown;
      try {
        frame = JSON.parse(String(e.data));
      } catch {
        options.onFrame({ kind: 'error', error: 'The server sent a frame that is not JSON' });
        return;
      }
      const f = frame as { error?: unknown; code?: unknown };
      if (typeof f.error === 'string' && !('author' in (frame as object)))
        options.onFrame({
          kind: 'error',
          error: f.error,
          ...(typeof f.code === 'string' ? { code: f.code } : {}),
        });
      else options.onFrame({ kind: 'event', event: frame as AdkEvent });
    });
    this.socket.addEventListener('close', (e: CloseEvent) => options.onClose(e.code, e.reason));
  }

  /** Resolves once connected (rejects if the server closed the socket first). */
  ready(): Promise<void> {
    return this.opened;
  }

  get open(): boolean {
    return this.socket.readyState === WebSocket.OPEN;
  }

  private send(frame: unknown): void {
    if (this.socket.readyState === WebSocket.OPEN) this.socket.send(JSON.stringify(frame));
  }

  sendText(text: string): void {
    const content: Content = { role: 'user', parts: [{ text }] };
    this.send({ content });
  }

  /** 16 kHz 16-bit PCM, base64 (adk-python's LiveRequest spelling). */
  sendAudio(base64: string): void {
    this.send({ blob: { mime_type: 'audio/pcm;rate=16000', data: base64 } });
  }

  /** Ends the live session (the server finishes and closes the socket). */
  close(): void {
    this.send({ close: true });
    setTimeout(() => {
      if (this.socket.readyState !== WebSocket.CLOSED) this.socket.close();
    }, 2000);
  }
}
