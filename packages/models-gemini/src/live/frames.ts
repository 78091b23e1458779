import {
  type Content,
  type FunctionDeclaration,
  type FunctionResponse,
  type InlineData,
  type LlmRequest,
  type LlmResponse,
  newFunctionCallId,
  type Part,
  UnsupportedBuiltInToolError,
  type UsageMetadata,
} from '@adk/core';
import {
  GEMINI_BUILT_IN_TOOLS,
  toGeminiContents,
  toGeminiPart,
  toGenerationConfig,
} from '../convert-request.js';
import { toGeminiParameters } from '../schema.js';
import { LiveProtocolError } from './errors.js';
import { type GeminiLiveServerMessage, geminiLiveServerMessageSchema } from './wire.js';

// Pure translation between our types and the Live API's frames (`BidiGenerateContent`): client
// frames are built from requests and contents, server frames become `LlmResponse`s. No I/O here.

export type GeminiLiveClientFrame =
  | { setup: Record<string, unknown> }
  | { clientContent: { turns: Record<string, unknown>[]; turnComplete: boolean } }
  | { realtimeInput: Record<string, unknown> }
  | { toolResponse: { functionResponses: Record<string, unknown>[] } };

export interface GeminiLiveSetupTarget {
  /** `models/{model}` (Gemini API) or `projects/{p}/locations/{l}/publishers/google/models/{model}` (Vertex AI). */
  model: string;
  vertex: boolean;
  resumptionHandle?: string | undefined;
}

/** Fields of newer core versions, read when present. */
type LiveFunctionDeclaration = FunctionDeclaration & { behavior?: string };
type LiveFunctionResponse = FunctionResponse & { willContinue?: boolean; scheduling?: string };

/** The `setup` frame: the first message on a connection, carrying the whole session configuration. */
export function buildGeminiLiveSetup(
  request: LlmRequest,
  target: GeminiLiveSetupTarget,
): GeminiLiveClientFrame {
  const live = request.config.live ?? {};
  const setup: Record<string, unknown> = { model: target.model };

  const generationConfig: Record<string, unknown> = { ...toGenerationConfig(request.config) };
  if (live.responseModalities?.length) generationConfig.responseModalities = live.responseModalities;
  const speech = live.speechConfig;
  if (speech) {
    const speechConfig: Record<string, unknown> = {};
    if (speech.voiceName) speechConfig.voiceConfig = { prebuiltVoiceConfig: { voiceName: speech.voiceName } };
    if (speech.languageCode) speechConfig.languageCode = speech.languageCode;
    Object.assign(speechConfig, speech.raw);
    if (Object.keys(speechConfig).length > 0) generationConfig.speechConfig = speechConfig;
  }
  if (live.enableAffectiveDialog !== undefined)
    generationConfig.enableAffectiveDialog = live.enableAffectiveDialog;
  if (Object.keys(generationConfig).length > 0) setup.generationConfig = generationConfig;

  if (request.systemInstruction) setup.systemInstruction = { parts: [{ text: request.systemInstruction }] };

  const tools: Record<string, unknown>[] = [];
  if (request.tools?.length) {
    tools.push({
      functionDeclarations: request.tools.map((tool: LiveFunctionDeclaration) => {
        const parameters = toGeminiParameters(tool.parameters);
        return {
          name: tool.name,
          ...(tool.description ? { description: tool.description } : {}),
          ...(parameters ? { parameters } : {}),
          // Vertex AI rejects `behavior`; there every call blocks.
          ...(tool.behavior && !target.vertex ? { behavior: tool.behavior } : {}),
        };
      }),
    });
  }
  for (const builtIn of request.builtInTools ?? []) {
    if (!(GEMINI_BUILT_IN_TOOLS as readonly string[]).includes(builtIn.type))
      throw new UnsupportedBuiltInToolError('Gemini', builtIn.type, GEMINI_BUILT_IN_TOOLS);
    tools.push({ [builtIn.type]: builtIn.config ?? {} });
  }
  if (tools.length > 0) setup.tools = tools;

  if (live.realtimeInputConfig) setup.realtimeInputConfig = toRealtimeInputConfig(live.realtimeInputConfig);
  if (live.inputAudioTranscription) setup.inputAudioTranscription = {};
  if (live.outputAudioTranscription) setup.outputAudioTranscription = {};
  if (live.proactivity) setup.proactivity = live.proactivity;
  if (live.contextWindowCompression) setup.contextWindowCompression = live.contextWindowCompression;
  if (live.sessionResumption || target.resumptionHandle) {
    setup.sessionResumption = {
      ...(target.resumptionHandle ? { handle: target.resumptionHandle } : {}),
      // The Gemini API has no transparent mode; Vertex AI does.
      ...(live.sessionResumption?.transparent && target.vertex ? { transparent: true } : {}),
    };
  }
  return { setup };
}

type RealtimeInputConfig = NonNullable<NonNullable<LlmRequest['config']['live']>['realtimeInputConfig']>;

/** Sensitivities are 'HIGH'/'LOW' in our config and `START_SENSITIVITY_HIGH`, … on the wire. */
function toRealtimeInputConfig(config: RealtimeInputConfig): Record<string, unknown> {
  const detection = config.automaticActivityDetection;
  if (!detection) return { ...config };
  const wire: Record<string, unknown> = { ...detection };
  const prefixed = (prefix: string, value: string): string =>
    value.startsWith(prefix) ? value : `${prefix}${value}`;
  if (detection.startOfSpeechSensitivity)
    wire.startOfSpeechSensitivity = prefixed('START_SENSITIVITY_', detection.startOfSpeechSensitivity);
  if (detection.endOfSpeechSensitivity)
    wire.endOfSpeechSensitivity = prefixed('END_SENSITIVITY_', detection.endOfSpeechSensitivity);
  return { ...config, automaticActivityDetection: wire };
}

function isRealtimeMedia(part: Part): boolean {
  const mime = part.inlineData?.mimeType ?? '';
  return mime.startsWith('audio/') || mime.startsWith('video/');
}

/**
 * The conversation so far as one `clientContent` frame (audio and video chunks are left out: they
 * were realtime input). The turn is complete when the history ends with the user, so the model answers.
 */
export function geminiHistoryFrames(history: Content[]): GeminiLiveClientFrame[] {
  const kept = history
    .map((content) => ({ ...content, parts: content.parts.filter((part) => !isRealtimeMedia(part)) }))
    .filter((content) => content.parts.length > 0);
  const turns = toGeminiContents(kept);
  if (turns.length === 0) return [];
  const last = kept[kept.length - 1];
  return [{ clientContent: { turns, turnComplete: last?.role === 'user' } }];
}

/** A user turn: function responses go out as `toolResponse`, anything else as a complete `clientContent` turn. */
export function geminiContentFrames(content: Content): GeminiLiveClientFrame[] {
  const frames: GeminiLiveClientFrame[] = [];
  const responses = content.parts.flatMap((part) =>
    part.functionResponse ? [part.functionResponse as LiveFunctionResponse] : [],
  );
  if (responses.length > 0) {
    frames.push({
      toolResponse: {
        functionResponses: responses.map((response) => {
          const wire = toGeminiPart({ functionResponse: response })?.functionResponse as Record<
            string,
            unknown
          >;
          return {
            ...wire,
            ...(response.willContinue !== undefined ? { willContinue: response.willContinue } : {}),
            ...(response.scheduling ? { scheduling: response.scheduling } : {}),
          };
        }),
      },
    });
  }
  const rest = content.parts.filter((part) => !part.functionResponse);
  const turns = toGeminiContents([{ role: content.role || 'user', parts: rest }]);
  if (turns.length > 0) frames.push({ clientContent: { turns, turnComplete: true } });
  return frames;
}

/** A realtime media chunk: audio and video (image frames) go in their own fields. */
export function geminiRealtimeFrame(blob: InlineData): GeminiLiveClientFrame {
  const media = { mimeType: blob.mimeType, data: blob.data };
  if (blob.mimeType.startsWith('audio/')) return { realtimeInput: { audio: media } };
  if (blob.mimeType.startsWith('image/') || blob.mimeType.startsWith('video/'))
    return { realtimeInput: { video: media } };
  if (blob.mimeType.startsWith('text/'))
    return { realtimeInput: { text: Buffer.from(blob.data, 'base64').toString('utf8') } };
  return { realtimeInput: { mediaChunks: [media] } };
}

export function geminiActivityFrame(kind: 'start' | 'end'): GeminiLiveClientFrame {
  return { realtimeInput: kind === 'start' ? { activityStart: {} } : { activityEnd: {} } };
}

/** Reads one server frame (text, or the UTF-8 bytes of a binary message). Throws `LiveProtocolError`. */
export function parseGeminiLiveFrame(frame: string | Uint8Array): GeminiLiveServerMessage {
  const text = typeof frame === 'string' ? frame : Buffer.from(frame).toString('utf8');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new LiveProtocolError(`Gemini Live sent a frame that is not JSON: ${preview(text)}`, {
      cause: error,
    });
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new LiveProtocolError(`Gemini Live sent a frame that is not a JSON object: ${preview(text)}`);
  const parsed = geminiLiveServerMessageSchema.safeParse(value);
  if (!parsed.success) {
    throw new LiveProtocolError(`Gemini Live sent a malformed ${Object.keys(value).join('/')} frame`, {
      cause: parsed.error,
    });
  }
  return parsed.data;
}

function preview(text: string): string {
  return JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text);
}

/** What a connection remembers between frames: the turn's text and the transcriptions so far. */
export interface GeminiLiveState {
  readonly text: string;
  readonly thought: string;
  readonly inputTranscript: string;
  readonly outputTranscript: string;
  readonly groundingMetadata?: unknown;
}

export const initialGeminiLiveState: GeminiLiveState = {
  text: '',
  thought: '',
  inputTranscript: '',
  outputTranscript: '',
};

export interface GeminiLiveTranslation {
  responses: LlmResponse[];
  state: GeminiLiveState;
  /** The server acknowledged the `setup` frame. */
  setupComplete: boolean;
}

/**
 * One server message → the responses it means, in order. Text and transcriptions arrive as
 * partial chunks and are repeated whole (non-partial) when they finish; function calls are
 * emitted as soon as their `toolCall` frame arrives. `newId` names calls the server left unnamed.
 */
export function translateGeminiLiveMessage(
  message: GeminiLiveServerMessage,
  state: GeminiLiveState,
  newId: () => string = newFunctionCallId,
): GeminiLiveTranslation {
  const out: LlmResponse[] = [];
  let s = state;

  const content = message.serverContent;
  if (content) {
    if (content.groundingMetadata !== undefined) s = { ...s, groundingMetadata: content.groundingMetadata };
    const calls: Part[] = [];
    for (const part of content.modelTurn?.parts ?? []) {
      if (part.text !== undefined && part.text !== '') {
        s = part.thought ? { ...s, thought: s.thought + part.text } : { ...s, text: s.text + part.text };
        out.push({
          content: {
            role: 'model',
            parts: [{ text: part.text, ...(part.thought ? { thought: true } : {}) }],
          },
          partial: true,
        });
      } else if (part.inlineData) {
        out.push({
          content: {
            role: 'model',
            parts: [{ inlineData: { mimeType: part.inlineData.mimeType, data: part.inlineData.data } }],
          },
          partial: true,
        });
      } else if (part.functionCall) {
        const { id, name, args } = part.functionCall;
        calls.push({ functionCall: { id: id || newId(), name, args: args ?? {} } });
      } else if (part.executableCode || part.codeExecutionResult) {
        out.push({
          content: {
            role: 'model',
            parts: [
              part.executableCode
                ? {
                    executableCode: {
                      language: part.executableCode.language,
                      code: part.executableCode.code,
                    },
                  }
                : {
                    codeExecutionResult: {
                      outcome: part.codeExecutionResult?.outcome ?? '',
                      ...(part.codeExecutionResult?.output !== undefined
                        ? { output: part.codeExecutionResult.output }
                        : {}),
                    },
                  },
            ],
          },
        } as LlmResponse);
      }
    }
    if (calls.length > 0) {
      s = flush(s, out, { input: true, text: true, output: false });
      out.push({ content: { role: 'model', parts: calls } });
    }
    const input = content.inputTranscription;
    if (input) {
      if (input.text) {
        s = { ...s, inputTranscript: s.inputTranscript + input.text };
        out.push({ inputTranscription: { text: input.text, finished: false }, partial: true });
      }
      if (input.finished) s = flush(s, out, { input: true, text: false, output: false });
    }
    const output = content.outputTranscription;
    if (output) {
      if (output.text) {
        s = { ...s, outputTranscript: s.outputTranscript + output.text };
        out.push({ outputTranscription: { text: output.text, finished: false }, partial: true });
      }
      if (output.finished) s = flush(s, out, { input: false, text: false, output: true });
    }
    if (content.interrupted) {
      s = flush(s, out, { input: true, text: true, output: true });
      out.push({ interrupted: true });
    }
    if (content.turnComplete) {
      s = flush(s, out, { input: true, text: true, output: true });
      const grounding = s.groundingMetadata;
      s = { ...s, groundingMetadata: undefined };
      out.push({ turnComplete: true, ...(grounding !== undefined ? { groundingMetadata: grounding } : {}) });
    }
  }

  const toolCall = message.toolCall;
  if (toolCall?.functionCalls?.length) {
    s = flush(s, out, { input: true, text: true, output: false });
    out.push({
      content: {
        role: 'model',
        parts: toolCall.functionCalls.map(({ id, name, args }) => ({
          functionCall: { id: id || newId(), name, args: args ?? {} },
        })),
      },
    });
  }
  if (message.toolCallCancellation)
    out.push({ toolCallCancellation: { ids: message.toolCallCancellation.ids ?? [] } });
  if (message.sessionResumptionUpdate) {
    const { newHandle, resumable, lastConsumedClientMessageIndex } = message.sessionResumptionUpdate;
    out.push({
      liveSessionResumptionUpdate: {
        ...(newHandle ? { newHandle } : {}),
        ...(resumable !== undefined ? { resumable } : {}),
        ...(lastConsumedClientMessageIndex !== undefined
          ? { lastConsumedClientMessageIndex: String(lastConsumedClientMessageIndex) }
          : {}),
      },
    });
  }
  if (message.goAway)
    out.push({ goAway: message.goAway.timeLeft ? { timeLeft: message.goAway.timeLeft } : {} });
  if (message.usageMetadata) out.push({ usageMetadata: toUsage(message.usageMetadata) });

  return { responses: out, state: s, setupComplete: message.setupComplete !== undefined };
}

/** Ends whatever is unfinished (the connection closed mid-turn): transcriptions and text, whole. */
export function flushGeminiLiveState(state: GeminiLiveState): {
  responses: LlmResponse[];
  state: GeminiLiveState;
} {
  const responses: LlmResponse[] = [];
  const next = flush(state, responses, { input: true, text: true, output: true });
  return { responses, state: next };
}

function flush(
  state: GeminiLiveState,
  out: LlmResponse[],
  which: { input: boolean; text: boolean; output: boolean },
): GeminiLiveState {
  let s = state;
  if (which.input && s.inputTranscript) {
    out.push({ inputTranscription: { text: s.inputTranscript, finished: true } });
    s = { ...s, inputTranscript: '' };
  }
  if (which.text && (s.text || s.thought)) {
    const parts: Part[] = [];
    if (s.thought) parts.push({ text: s.thought, thought: true });
    if (s.text) parts.push({ text: s.text });
    out.push({ content: { role: 'model', parts } });
    s = { ...s, text: '', thought: '' };
  }
  if (which.output && s.outputTranscript) {
    out.push({ outputTranscription: { text: s.outputTranscript, finished: true } });
    s = { ...s, outputTranscript: '' };
  }
  return s;
}

function toUsage(usage: NonNullable<GeminiLiveServerMessage['usageMetadata']>): UsageMetadata {
  const out: UsageMetadata = {};
  if (usage.promptTokenCount !== undefined) out.promptTokenCount = usage.promptTokenCount;
  if (usage.responseTokenCount !== undefined) out.candidatesTokenCount = usage.responseTokenCount;
  if (usage.totalTokenCount !== undefined) out.totalTokenCount = usage.totalTokenCount;
  if (usage.cachedContentTokenCount !== undefined)
    out.cachedContentTokenCount = usage.cachedContentTokenCount;
  if (usage.thoughtsTokenCount !== undefined) out.thoughtsTokenCount = usage.thoughtsTokenCount;
  if (usage.toolUsePromptTokenCount !== undefined)
    out.toolUsePromptTokenCount = usage.toolUsePromptTokenCount;
  return out;
}
