import type { GenerateConfig } from '../models/llm.js';
import type { LiveConnectConfig } from '../models/llm-connection.js';
import type { RetryConfig } from '../workflow/retry-config.js';

/** adk-python's `AudioTranscriptionConfig`; an object (even `{}`) or `true` turns transcription on. */
export type AudioTranscriptionConfig = { languageCodes?: string[] };

/** How `Runner.runLive` reconnects after a recoverable close (see `RunConfig.liveReconnect`). */
export interface LiveReconnectConfig {
  /** Reconnects in a row that may fail before the run ends with an error event (default 3; 0 = never reconnect). */
  maxAttempts?: number;
  /** Wait before the first reconnect after an abnormal close, in ms (default 250); doubled per attempt. */
  initialDelayMs?: number;
  /** Upper bound of the wait between attempts, in ms (default 4000). */
  maxDelayMs?: number;
}

export interface RunConfig {
  /** Stream partial text/thought chunks as partial events before each aggregated event. */
  streaming?: boolean;
  /** Model calls allowed per invocation (default 500); exceeding it ends the run with an error event. */
  maxLlmCalls?: number;
  /** Overrides merged over each agent's generateConfig. */
  generateConfig?: GenerateConfig;
  /** Stream AgentTool's inner events to the caller. */
  streamAgentToolEvents?: boolean;
  /**
   * A model call the vendor refuses for now (429/503, also in the middle of a stream) is retried
   * after its Retry-After within this budget, recorded as an event (`customMetadata.adk_model_retry`).
   */
  modelRetry?: RetryConfig;
  /** Free-form values for plugins and custom agents. */
  custom?: Record<string, unknown>;

  // Live sessions (`Runner.runLive`); mapped to `LlmRequest.config.live`.
  /** 'TEXT' or 'AUDIO' (the provider's default when unset; Gemini Live answers in audio). */
  responseModalities?: LiveConnectConfig['responseModalities'];
  speechConfig?: LiveConnectConfig['speechConfig'];
  /** Transcribe the user's audio; the finished transcription is stored as the user's text. */
  inputAudioTranscription?: boolean | AudioTranscriptionConfig;
  /** Transcribe the model's audio; the finished transcription is stored as the agent's text. */
  outputAudioTranscription?: boolean | AudioTranscriptionConfig;
  /** Voice activity detection and what the user's speech does to a model turn in progress. */
  realtimeInputConfig?: LiveConnectConfig['realtimeInputConfig'];
  proactivity?: LiveConnectConfig['proactivity'];
  enableAffectiveDialog?: boolean;
  contextWindowCompression?: LiveConnectConfig['contextWindowCompression'];
  /** Ask for resumption handles; the live flow keeps the latest and reconnects with it. */
  sessionResumption?: LiveConnectConfig['sessionResumption'];
  /** Reconnects after a recoverable close (1006, 1011, 1012); see `LiveReconnectConfig`. */
  liveReconnect?: LiveReconnectConfig;
}

export const DEFAULT_MAX_LLM_CALLS = 500;
