import {
  type Content,
  type FinishReason,
  type FunctionResponse,
  type InlineData,
  type LlmRequest,
  type LlmResponse,
  type ModelErrorCode,
  type Part,
  type UsageMetadata,
  ValidationError,
} from '@adk/core';
import { LiveProtocolError } from './errors.js';
import { PcmResampler, pcmFromBase64, pcmRate, pcmToBase64 } from './resample.js';
import { type RealtimeServerEvent, realtimeServerEventSchema } from './wire.js';

// Pure translation between our types and the Realtime API's events (GA interface; the beta's
// event names are read too). Client events are built from requests and contents; server events
// become `LlmResponse`s plus, for barge-in, the client events to send back. No I/O here.

export type RealtimeClientEvent = { type: string } & Record<string, unknown>;

/** The Realtime API's audio: 16-bit mono PCM at 24 kHz, both ways. */
export const REALTIME_SAMPLE_RATE = 24_000;
export const REALTIME_AUDIO_MIME = `audio/pcm;rate=${REALTIME_SAMPLE_RATE}`;
/** The rate assumed for `audio/pcm` without a `rate` parameter (the live flow's input rate). */
export const DEFAULT_INPUT_RATE = 16_000;

export interface RealtimeSessionOptions {
  /** Input transcription model. Default 'gpt-4o-mini-transcribe'. */
  transcriptionModel?: string | undefined;
}

type LiveFunctionResponse = FunctionResponse & { willContinue?: boolean; scheduling?: string };

/** Whether the session leaves turn taking to the client (voice activity detection off). */
export function manualActivity(request: LlmRequest): boolean {
  return request.config.live?.realtimeInputConfig?.automaticActivityDetection?.disabled === true;
}

/** The `session.update` event: the whole session configuration, sent first. */
export function buildRealtimeSessionUpdate(
  request: LlmRequest,
  options: RealtimeSessionOptions = {},
): RealtimeClientEvent {
  const live = request.config.live ?? {};
  const session: Record<string, unknown> = { type: 'realtime' };
  const modalities = live.responseModalities?.map((m) => m.toLowerCase());
  if (modalities?.length) session.output_modalities = modalities.includes('audio') ? ['audio'] : ['text'];
  if (request.systemInstruction) session.instructions = request.systemInstruction;
  if (request.tools?.length) {
    session.tools = request.tools.map((tool) => ({
      type: 'function',
      name: tool.name,
      ...(tool.description ? { description: tool.description } : {}),
      parameters: tool.parameters ?? { type: 'object', properties: {} },
    }));
  }
  const choice = request.config.toolChoice;
  if (choice !== undefined)
    session.tool_choice = typeof choice === 'object' ? { type: 'function', name: choice.name } : choice;
  if (request.config.maxOutputTokens !== undefined)
    session.max_output_tokens = request.config.maxOutputTokens;

  const input: Record<string, unknown> = { format: { type: 'audio/pcm', rate: REALTIME_SAMPLE_RATE } };
  if (live.inputAudioTranscription) {
    const language = live.speechConfig?.languageCode?.split('-')[0];
    input.transcription = {
      model: options.transcriptionModel ?? 'gpt-4o-mini-transcribe',
      ...(language ? { language } : {}),
    };
  }
  const realtime = live.realtimeInputConfig;
  const vad = realtime?.automaticActivityDetection;
  if (vad?.disabled) input.turn_detection = null;
  else if (vad || realtime?.activityHandling) {
    input.turn_detection = {
      type: 'server_vad',
      ...(vad?.prefixPaddingMs !== undefined ? { prefix_padding_ms: vad.prefixPaddingMs } : {}),
      ...(vad?.silenceDurationMs !== undefined ? { silence_duration_ms: vad.silenceDurationMs } : {}),
      create_response: true,
      interrupt_response: realtime?.activityHandling !== 'NO_INTERRUPTION',
    };
  }
  const output: Record<string, unknown> = { format: { type: 'audio/pcm', rate: REALTIME_SAMPLE_RATE } };
  if (live.speechConfig?.voiceName) output.voice = live.speechConfig.voiceName;
  Object.assign(output, live.speechConfig?.raw);
  session.audio = { input, output };
  return { type: 'session.update', session };
}

function jsonText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value ?? {});
}

/** One content → conversation items (audio chunks are left out: they were realtime input). */
function toItems(content: Content): Record<string, unknown>[] {
  const items: Record<string, unknown>[] = [];
  const role = content.role === 'model' ? 'assistant' : 'user';
  let message: Record<string, unknown>[] = [];
  const closeMessage = (): void => {
    if (message.length > 0) items.push({ type: 'message', role, content: message });
    message = [];
  };
  for (const part of content.parts) {
    if (part.text !== undefined && !part.thought) {
      message.push({ type: role === 'assistant' ? 'output_text' : 'input_text', text: part.text });
    } else if (part.inlineData?.mimeType.startsWith('image/') && role === 'user') {
      message.push({
        type: 'input_image',
        image_url: `data:${part.inlineData.mimeType};base64,${part.inlineData.data}`,
      });
    } else if (part.functionCall) {
      closeMessage();
      const { id, name, args } = part.functionCall;
      items.push({ type: 'function_call', call_id: id, name, arguments: jsonText(args) });
    } else if (part.functionResponse) {
      closeMessage();
      const { id, response } = part.functionResponse;
      items.push({ type: 'function_call_output', call_id: id, output: jsonText(response) });
    }
  }
  closeMessage();
  return items;
}

function itemEvents(items: Record<string, unknown>[]): RealtimeClientEvent[] {
  return items.map((item) => ({ type: 'conversation.item.create', item }));
}

/**
 * The conversation so far as conversation items; a response is asked for when the history ends
 * with the user (text or tool results), as a live model answers a complete user turn.
 */
export function realtimeHistoryEvents(history: Content[]): RealtimeClientEvent[] {
  const events: RealtimeClientEvent[] = [];
  let lastItems: Record<string, unknown>[] = [];
  for (const content of history) {
    const items = toItems(content);
    if (items.length === 0) continue;
    events.push(...itemEvents(items));
    lastItems = items;
  }
  const last = lastItems.at(-1);
  if (last && (last.type === 'function_call_output' || (last.type === 'message' && last.role === 'user')))
    events.push({ type: 'response.create' });
  return events;
}

/**
 * A user turn: text and images as a message, tool results as `function_call_output` items, then
 * `response.create` (not when every tool result is scheduled `SILENT`: the model takes it up later).
 */
export function realtimeContentEvents(content: Content): RealtimeClientEvent[] {
  const items = toItems({ ...content, role: 'user' });
  if (items.length === 0) return [];
  const responses = content.parts.flatMap((p) =>
    p.functionResponse ? [p.functionResponse as LiveFunctionResponse] : [],
  );
  const silent =
    responses.length > 0 &&
    responses.length === content.parts.length &&
    responses.every((r) => r.scheduling === 'SILENT');
  return [...itemEvents(items), ...(silent ? [] : [{ type: 'response.create' }])];
}

/**
 * A realtime chunk: PCM audio is appended to the input buffer, resampled to 24 kHz (`audio/pcm`
 * without a rate is taken as 16 kHz; `resamplerFor(rate)` gives the connection's resampler, which
 * carries over between chunks); images become a user message. The Realtime API takes nothing else.
 */
export function realtimeMediaEvents(
  blob: InlineData,
  resamplerFor: (rate: number) => PcmResampler = (rate) => new PcmResampler(rate, REALTIME_SAMPLE_RATE),
): RealtimeClientEvent[] {
  const mime = blob.mimeType.toLowerCase();
  if (mime.startsWith('audio/pcm') || mime.startsWith('audio/l16')) {
    const rate = pcmRate(mime) ?? DEFAULT_INPUT_RATE;
    if (rate === REALTIME_SAMPLE_RATE) return [{ type: 'input_audio_buffer.append', audio: blob.data }];
    const samples = resamplerFor(rate).push(pcmFromBase64(blob.data));
    return [{ type: 'input_audio_buffer.append', audio: pcmToBase64(samples) }];
  }
  if (mime.startsWith('image/')) return itemEvents(toItems({ role: 'user', parts: [{ inlineData: blob }] }));
  throw new ValidationError(
    `The OpenAI Realtime API takes PCM audio (audio/pcm;rate=N) and images, not ${blob.mimeType}`,
  );
}

/** Reads one server event (text, or UTF-8 bytes). Throws `LiveProtocolError`. */
export function parseRealtimeEvent(frame: string | Uint8Array): RealtimeServerEvent {
  const text = typeof frame === 'string' ? frame : Buffer.from(frame).toString('utf8');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new LiveProtocolError(`The Realtime API sent a frame that is not JSON: ${preview(text)}`, {
      cause: error,
    });
  }
  const parsed = realtimeServerEventSchema.safeParse(value);
  if (!parsed.success) {
    const type =
      typeof (value as { type?: unknown } | null)?.type === 'string' ? (value as { type: string }).type : '';
    throw new LiveProtocolError(
      `The Realtime API sent a malformed ${type || 'untyped'} event: ${preview(text)}`,
      {
        cause: parsed.error,
      },
    );
  }
  return parsed.data;
}

function preview(text: string): string {
  return JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text);
}

/** What a connection remembers between events. */
export interface RealtimeState {
  readonly text: string;
  readonly inputTranscript: string;
  readonly outputTranscript: string;
  /** Between `response.created` and `response.done`. */
  readonly responseActive: boolean;
  readonly responseHadCalls: boolean;
  /** The assistant item whose audio was last received, for `conversation.item.truncate`. */
  readonly audioItemId?: string | undefined;
  /** Milliseconds of audio received for that item, and when its first chunk came. */
  readonly audioMs: number;
  readonly audioStartedAt: number;
  readonly callNames: Readonly<Record<string, string>>;
  /** Surface transcriptions only when the session asked for them. */
  readonly inputTranscription: boolean;
  readonly outputTranscription: boolean;
}

export function initialRealtimeState(request?: LlmRequest): RealtimeState {
  const live = request?.config.live;
  return {
    text: '',
    inputTranscript: '',
    outputTranscript: '',
    responseActive: false,
    responseHadCalls: false,
    audioMs: 0,
    audioStartedAt: 0,
    callNames: {},
    inputTranscription: live?.inputAudioTranscription === true,
    outputTranscription: live?.outputAudioTranscription === true,
  };
}

export interface RealtimeTranslation {
  responses: LlmResponse[];
  state: RealtimeState;
  /** Client events to send now (barge-in: `response.cancel`, `conversation.item.truncate`). */
  send: RealtimeClientEvent[];
  /** The event was `session.updated` (the configuration took). */
  sessionUpdated: boolean;
}

const TEXT_DELTAS = new Set(['response.output_text.delta', 'response.text.delta']);
const AUDIO_DELTAS = new Set(['response.output_audio.delta', 'response.audio.delta']);
const TRANSCRIPT_DELTAS = new Set([
  'response.output_audio_transcript.delta',
  'response.audio_transcript.delta',
]);
const TRANSCRIPT_DONE = new Set(['response.output_audio_transcript.done', 'response.audio_transcript.done']);

/** Bytes of base64 text, without decoding it. */
function base64Bytes(data: string): number {
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return (data.length * 3) / 4 - padding;
}

/**
 * One server event → the responses it means. `nowMs` (a clock reading) dates audio playback so a
 * barge-in truncates the assistant's item where the user stopped hearing it.
 */
export function translateRealtimeEvent(
  event: RealtimeServerEvent,
  state: RealtimeState,
  nowMs: number,
): RealtimeTranslation {
  const out: LlmResponse[] = [];
  const send: RealtimeClientEvent[] = [];
  let s = state;
  const type = event.type;

  if (type === 'response.created') {
    s = { ...s, responseActive: true, responseHadCalls: false };
  } else if (type === 'response.output_item.added' && event.item?.type === 'function_call') {
    if (event.item.call_id && event.item.name)
      s = { ...s, callNames: { ...s.callNames, [event.item.call_id]: event.item.name } };
  } else if (TEXT_DELTAS.has(type) && event.delta) {
    s = { ...s, text: s.text + event.delta };
    out.push({ content: { role: 'model', parts: [{ text: event.delta }] }, partial: true });
  } else if (AUDIO_DELTAS.has(type) && event.delta) {
    const ms = base64Bytes(event.delta) / ((REALTIME_SAMPLE_RATE * 2) / 1000);
    s =
      event.item_id && event.item_id !== s.audioItemId
        ? { ...s, audioItemId: event.item_id, audioMs: ms, audioStartedAt: nowMs }
        : { ...s, audioMs: s.audioMs + ms };
    out.push({
      content: {
        role: 'model',
        parts: [{ inlineData: { mimeType: REALTIME_AUDIO_MIME, data: event.delta } }],
      },
      partial: true,
    });
  } else if (TRANSCRIPT_DELTAS.has(type) && event.delta) {
    if (s.outputTranscription) {
      s = { ...s, outputTranscript: s.outputTranscript + event.delta };
      out.push({ outputTranscription: { text: event.delta, finished: false }, partial: true });
    }
  } else if (TRANSCRIPT_DONE.has(type)) {
    if (s.outputTranscription) {
      const text = event.transcript ?? s.outputTranscript;
      if (text) out.push({ outputTranscription: { text, finished: true } });
      s = { ...s, outputTranscript: '' };
    }
  } else if (type === 'conversation.item.input_audio_transcription.delta' && event.delta) {
    if (s.inputTranscription) {
      s = { ...s, inputTranscript: s.inputTranscript + event.delta };
      out.push({ inputTranscription: { text: event.delta, finished: false }, partial: true });
    }
  } else if (type === 'conversation.item.input_audio_transcription.completed') {
    if (s.inputTranscription) {
      const text = event.transcript ?? s.inputTranscript;
      if (text) out.push({ inputTranscription: { text, finished: true } });
      s = { ...s, inputTranscript: '' };
    }
  } else if (type === 'response.function_call_arguments.done') {
    s = flushText(s, out);
    const id = event.call_id ?? event.item_id ?? '';
    const name = event.name ?? s.callNames[id] ?? '';
    const raw = event.arguments ?? '';
    out.push({ content: { role: 'model', parts: [{ functionCall: parseCall(id, name, raw) }] } });
    s = { ...s, responseHadCalls: true };
  } else if (type === 'response.done') {
    s = flushText(s, out);
    const response = event.response;
    const status = response?.status;
    if (status === 'failed') {
      const error = response?.status_details?.error;
      out.push({
        // The vendor's own code, carried as it came.
        errorCode: (error?.code ?? error?.type ?? 'response_failed') as ModelErrorCode,
        errorMessage: error?.message ?? 'The Realtime API could not produce a response',
      });
    } else if (status === 'incomplete') {
      out.push({ turnComplete: true, finishReason: incompleteReason(response?.status_details?.reason) });
    } else if (status !== 'cancelled' && !s.responseHadCalls) {
      out.push({ turnComplete: true });
    }
    if (response?.usage) out.push({ usageMetadata: toUsage(response.usage) });
    s = { ...s, responseActive: false, responseHadCalls: false };
  } else if (type === 'input_audio_buffer.speech_started') {
    ({ state: s } = bargeIn(s, nowMs, out, send));
  } else if (type === 'error') {
    const error = event.error;
    // Cancelling a response that already ended (the server's VAD may have cancelled it first).
    if (error?.code !== 'response_cancel_not_active') {
      out.push({
        errorCode: (error?.code ?? error?.type ?? 'realtime_error') as ModelErrorCode,
        errorMessage: error?.message ?? 'The Realtime API reported an error',
      });
    }
  }
  return { responses: out, state: s, send, sessionUpdated: type === 'session.updated' };
}

/**
 * The user started speaking: stop the response (`response.cancel`), cut the assistant's item at
 * the audio the user heard (`conversation.item.truncate`) and report `interrupted`. Nothing when
 * no response is running and no audio is still playing.
 */
export function bargeIn(
  state: RealtimeState,
  nowMs: number,
  out: LlmResponse[] = [],
  send: RealtimeClientEvent[] = [],
): { state: RealtimeState; responses: LlmResponse[]; send: RealtimeClientEvent[] } {
  let s = state;
  const played = Math.max(0, nowMs - s.audioStartedAt);
  const playing = s.audioItemId !== undefined && played < s.audioMs;
  if (!s.responseActive && !playing) return { state: s, responses: out, send };
  s = flushText(s, out);
  if (s.responseActive) send.push({ type: 'response.cancel' });
  if (playing && s.audioItemId) {
    send.push({
      type: 'conversation.item.truncate',
      item_id: s.audioItemId,
      content_index: 0,
      audio_end_ms: Math.floor(Math.min(played, s.audioMs)),
    });
  }
  if (s.outputTranscript) {
    out.push({ outputTranscription: { text: s.outputTranscript, finished: true } });
    s = { ...s, outputTranscript: '' };
  }
  out.push({ interrupted: true });
  s = { ...s, audioItemId: undefined, audioMs: 0, responseActive: false };
  return { state: s, responses: out, send };
}

/** Ends what is unfinished when the connection closes: the turn's text and transcriptions, whole. */
export function flushRealtimeState(state: RealtimeState): { responses: LlmResponse[]; state: RealtimeState } {
  const out: LlmResponse[] = [];
  let s = state;
  if (s.inputTranscript) out.push({ inputTranscription: { text: s.inputTranscript, finished: true } });
  s = flushText({ ...s, inputTranscript: '' }, out);
  if (s.outputTranscript) out.push({ outputTranscription: { text: s.outputTranscript, finished: true } });
  return { responses: out, state: { ...s, outputTranscript: '' } };
}

function flushText(state: RealtimeState, out: LlmResponse[]): RealtimeState {
  if (!state.text) return state;
  out.push({ content: { role: 'model', parts: [{ text: state.text }] } });
  return { ...state, text: '' };
}

function parseCall(id: string, name: string, raw: string): NonNullable<Part['functionCall']> {
  if (raw.trim() === '') return { id, name, args: {} };
  try {
    const args: unknown = JSON.parse(raw);
    if (typeof args === 'object' && args !== null && !Array.isArray(args))
      return { id, name, args: args as Record<string, unknown> };
  } catch {
    // fall through: the flow answers a call with invalid arguments with an error
  }
  return { id, name, args: {}, invalidArgs: raw };
}

function incompleteReason(reason: string | undefined): FinishReason {
  if (reason === 'max_output_tokens') return 'MAX_TOKENS';
  if (reason === 'content_filter') return 'SAFETY';
  return 'OTHER';
}

function toUsage(usage: NonNullable<NonNullable<RealtimeServerEvent['response']>['usage']>): UsageMetadata {
  const out: UsageMetadata = {};
  if (usage.input_tokens !== undefined) out.promptTokenCount = usage.input_tokens;
  if (usage.output_tokens !== undefined) out.candidatesTokenCount = usage.output_tokens;
  if (usage.total_tokens !== undefined) out.totalTokenCount = usage.total_tokens;
  if (usage.input_token_details?.cached_tokens !== undefined)
    out.cachedContentTokenCount = usage.input_token_details.cached_tokens;
  return out;
}
