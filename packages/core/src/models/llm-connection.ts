import type { Content, InlineData } from '../events/content.js';
import type { LlmRequest, LlmResponse } from './llm.js';

/**
 * A live (bidirectional) model connection, opened by `Llm.connect(request)`. The request's
 * `systemInstruction`, `tools` and `config.live` configure the session; `contents` are not sent
 * (the live flow calls `sendHistory`). Providers translate their vendor's frames to `LlmResponse`s
 * with pure functions; `receive()` ends when the connection closes.
 */
export interface LlmConnection {
  /** Sends the conversation so far (once, right after connecting). */
  sendHistory(history: Content[]): Promise<void>;
  /** Sends user text, or a user turn of function responses (tool results). */
  sendContent(content: Content): Promise<void>;
  /** Sends a chunk of realtime media (16 kHz PCM audio, JPEG frames, …). */
  sendRealtime(blob: InlineData): Promise<void>;
  /** Manual voice-activity signals (when automatic activity detection is off). */
  sendActivityStart(): Promise<void>;
  sendActivityEnd(): Promise<void>;
  /**
   * The model's responses as they arrive. What the live flow expects:
   * - text: `partial: true` chunks, then one non-partial response with the turn's whole text when
   *   the turn completes or is interrupted (the stored record);
   * - audio: `partial: true` responses with `inlineData` parts (yielded, never stored);
   * - function calls: a non-partial response as soon as the vendor sends them (never held until
   *   the turn ends), every call with an id;
   * - transcriptions: chunks on `inputTranscription` / `outputTranscription` with `partial: true`,
   *   then one non-partial response whose transcription has `finished: true` and the whole text;
   * - `turnComplete`, `interrupted`, `usageMetadata`, `liveSessionResumptionUpdate`, `goAway`,
   *   `toolCallCancellation` on responses of their own (content-free);
   * - an abnormal close: throw `LiveConnectionClosedError` (with the WebSocket close code); a normal
   *   close (1000, or after `close()`): end the iteration.
   */
  receive(): AsyncIterable<LlmResponse>;
  /** Closes the connection; `receive()` then ends. Idempotent. */
  close(): Promise<void>;
}

export interface ConnectOptions {
  signal?: AbortSignal;
  /** A session resumption handle from an earlier `liveSessionResumptionUpdate`. */
  resumptionHandle?: string;
}

/** How a connection closed; a connection that closed abnormally throws `LiveConnectionClosedError` (`closeCode`). */
export interface LiveCloseInfo {
  code: number;
  reason?: string;
}

/** A transcription chunk of the user's speech (input) or the model's speech (output). */
export interface Transcription {
  text?: string;
  /** True on the last chunk of an utterance. */
  finished?: boolean;
}

export interface LiveSessionResumptionUpdate {
  newHandle?: string;
  resumable?: boolean;
  lastConsumedClientMessageIndex?: string;
}

/** Live-only fields of a model response (present only on responses from an `LlmConnection`). */
export interface LiveResponseFields {
  inputTranscription?: Transcription;
  outputTranscription?: Transcription;
  liveSessionResumptionUpdate?: LiveSessionResumptionUpdate;
  /** The server will close the connection soon (Gemini `goAway`); `timeLeft` as sent, e.g. '10s'. */
  goAway?: { timeLeft?: string };
  /** Function calls the model withdrew (Gemini `toolCallCancellation`); their tools are aborted. */
  toolCallCancellation?: { ids: string[] };
}

/** Settings of a live session, carried on `LlmRequest.config.live` (built from `RunConfig`). */
export interface LiveConnectConfig {
  /** 'TEXT' | 'AUDIO' (one per session for most vendors). */
  responseModalities?: Array<'TEXT' | 'AUDIO' | (string & {})>;
  speechConfig?: {
    voiceName?: string;
    languageCode?: string;
    /** Vendor-shaped speech config passed through verbatim. */
    raw?: Record<string, unknown>;
  };
  /** Transcribe the user's audio (input) / the model's audio (output). */
  inputAudioTranscription?: boolean;
  outputAudioTranscription?: boolean;
  realtimeInputConfig?: {
    automaticActivityDetection?: {
      disabled?: boolean;
      startOfSpeechSensitivity?: 'HIGH' | 'LOW';
      endOfSpeechSensitivity?: 'HIGH' | 'LOW';
      prefixPaddingMs?: number;
      silenceDurationMs?: number;
    };
    activityHandling?: 'START_OF_ACTIVITY_INTERRUPTS' | 'NO_INTERRUPTION';
    turnCoverage?: 'TURN_INCLUDES_ONLY_ACTIVITY' | 'TURN_INCLUDES_ALL_INPUT';
  };
  proactivity?: { proactiveAudio?: boolean };
  enableAffectiveDialog?: boolean;
  contextWindowCompression?: { triggerTokens?: number; slidingWindow?: { targetTokens?: number } };
  /** Ask the server for resumption handles (`transparent` where the vendor supports it). */
  sessionResumption?: { transparent?: boolean };
}

/** A model that can hold a live session. Providers implement `connect` next to `generate`. */
export interface LiveCapableLlm {
  connect(request: LlmRequest, options?: ConnectOptions): Promise<LlmConnection>;
}

export function supportsLive(model: unknown): model is LiveCapableLlm {
  return typeof (model as { connect?: unknown } | null)?.connect === 'function';
}
