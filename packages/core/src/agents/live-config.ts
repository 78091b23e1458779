/**
 * Live settings derived from a run config, apart from `run-config.ts` so that an app without live
 * sessions does not load them (exported from the package root as before).
 */
import type { LiveConnectConfig } from '../models/llm-connection.js';
import type { LiveReconnectConfig, RunConfig } from './run-config.js';

export const DEFAULT_LIVE_RECONNECT: Required<LiveReconnectConfig> = {
  maxAttempts: 3,
  initialDelayMs: 250,
  maxDelayMs: 4000,
};

/**
 * The live session settings of a run: the agent's `generateConfig.live` (and the run's
 * `generateConfig.live`), overridden by the run config's live fields.
 */
export function liveConnectConfig(
  runConfig: RunConfig,
  base: LiveConnectConfig | undefined,
): LiveConnectConfig {
  const live: LiveConnectConfig = { ...base };
  if (runConfig.responseModalities) live.responseModalities = runConfig.responseModalities;
  if (runConfig.speechConfig) live.speechConfig = runConfig.speechConfig;
  if (runConfig.inputAudioTranscription !== undefined)
    live.inputAudioTranscription = runConfig.inputAudioTranscription !== false;
  if (runConfig.outputAudioTranscription !== undefined)
    live.outputAudioTranscription = runConfig.outputAudioTranscription !== false;
  if (runConfig.realtimeInputConfig) live.realtimeInputConfig = runConfig.realtimeInputConfig;
  if (runConfig.proactivity) live.proactivity = runConfig.proactivity;
  if (runConfig.enableAffectiveDialog !== undefined)
    live.enableAffectiveDialog = runConfig.enableAffectiveDialog;
  if (runConfig.contextWindowCompression) live.contextWindowCompression = runConfig.contextWindowCompression;
  if (runConfig.sessionResumption) live.sessionResumption = runConfig.sessionResumption;
  return live;
}
