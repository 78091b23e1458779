import {
  type ConnectOptions,
  type Content,
  errorCodeOf,
  type InlineData,
  type LlmConnection,
  type LlmRequest,
  type LlmResponse,
  newFunctionCallId,
} from '@adk/core';
import { sleep } from '@adk/core/http';
import { planReply } from './demo-model.js';

export interface DemoLiveOptions {
  /** Pause between streamed text tokens, in ms. */
  tokenDelayMs: number;
  /**
   * What the demo "hears" in each spoken utterance (it does no speech recognition): the input
   * transcription and the question it answers. Default: a question the examples' tools answer.
   */
  heardPhrase: string;
  /** Pace generated audio at its playing speed (default true); false sends it as fast as it is made. */
  realtimeAudio: boolean;
}

/** The sample rate of the audio the demo speaks (Gemini Live's output format). */
export const DEMO_OUTPUT_RATE = 24_000;
/** The default phrase the demo "hears" in speech. */
export const DEMO_HEARD_PHRASE = 'What is the weather in Paris?';

const OUTPUT_MIME = `audio/pcm;rate=${DEMO_OUTPUT_RATE}`;
/** RMS (of 32 767) above which a 16-bit PCM chunk counts as speech. */
const SPEECH_RMS = 300;
/** Speech that stops arriving ends the utterance after this long, even without trailing silence. */
const STALL_MS = 800;
/** The longest reply the demo speaks, in words (the transcription still carries all of it). */
const MAX_SPOKEN_WORDS = 60;

type Activity = { speaking: boolean; speechMs: number; silenceMs: number; stall?: NodeJS.Timeout };

/**
 * The demo model's live session. Text turns are answered like `generate` (tool calls included);
 * audio is "heard" with a simple energy detector (or the activity signals when automatic detection
 * is off) and transcribed as a fixed phrase noting its length; with the AUDIO modality the reply is
 * spoken as a tone per word (24 kHz 16-bit PCM chunks) with an output transcription of its text.
 * Speech or text that arrives while it answers interrupts the answer (`interrupted`), unless
 * `activityHandling` is `NO_INTERRUPTION`.
 */
export class DemoLiveConnection implements LlmConnection {
  private readonly contents: Content[] = [];
  private readonly queue: LlmResponse[] = [];
  private wake: (() => void) | undefined;
  private closed = false;
  private turn: AbortController | undefined;
  private turnDone: Promise<void> = Promise.resolve();
  private readonly activity: Activity = { speaking: false, speechMs: 0, silenceMs: 0 };
  private manualActivity = false;
  private handles = 0;
  private readonly audioOut: boolean;
  private readonly interrupts: boolean;
  private readonly silenceEndMs: number;
  private readonly closer: () => void;

  constructor(
    private readonly request: LlmRequest,
    private readonly options: DemoLiveOptions,
    private readonly connectOptions: ConnectOptions = {},
  ) {
    const live = request.config.live ?? {};
    this.audioOut = (live.responseModalities ?? ['AUDIO']).some((m) => m.toUpperCase() === 'AUDIO');
    this.interrupts = live.realtimeInputConfig?.activityHandling !== 'NO_INTERRUPTION';
    this.manualActivity = live.realtimeInputConfig?.automaticActivityDetection?.disabled === true;
    this.silenceEndMs = live.realtimeInputConfig?.automaticActivityDetection?.silenceDurationMs ?? 500;
    this.closer = () => void this.close();
    connectOptions.signal?.addEventListener('abort', this.closer, { once: true });
  }

  async sendHistory(history: Content[]): Promise<void> {
    this.assertOpen();
    this.contents.push(...history);
  }

  async sendContent(content: Content): Promise<void> {
    this.assertOpen();
    const isToolResult = content.parts.some((p) => p.functionResponse);
    if (!isToolResult) this.interrupt();
    this.contents.push(content);
    this.answer();
  }

  async sendRealtime(blob: InlineData): Promise<void> {
    this.assertOpen();
    if (!blob.mimeType.toLowerCase().startsWith('audio/')) return; // images and video: seen, not answered
    const rate = Number(/rate=(\d+)/i.exec(blob.mimeType)?.[1] ?? 16_000);
    const bytes = Buffer.from(blob.data, 'base64');
    const samples = Math.floor(bytes.length / 2);
    if (samples === 0) return;
    const ms = (samples / rate) * 1000;
    const a = this.activity;
    if (this.manualActivity) {
      if (a.speaking) a.speechMs += ms;
      return;
    }
    const loud = rms(bytes, samples) >= SPEECH_RMS;
    if (loud) {
      if (!a.speaking) this.startUtterance();
      a.speechMs += ms + a.silenceMs;
      a.silenceMs = 0;
    } else if (a.speaking) {
      a.silenceMs += ms;
      if (a.silenceMs >= this.silenceEndMs) this.endUtterance();
    }
    if (a.speaking) {
      clearTimeout(a.stall);
      a.stall = setTimeout(() => this.endUtterance(), STALL_MS);
      a.stall.unref?.();
    }
  }

  async sendActivityStart(): Promise<void> {
    this.assertOpen();
    this.startUtterance();
  }

  async sendActivityEnd(): Promise<void> {
    this.assertOpen();
    this.endUtterance();
  }

  async *receive(): AsyncGenerator<LlmResponse> {
    for (;;) {
      const next = this.queue.shift();
      if (next) {
        yield next;
        continue;
      }
      if (this.closed) return;
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.activity.stall);
    this.turn?.abort();
    this.connectOptions.signal?.removeEventListener('abort', this.closer);
    this.signal();
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('The demo live connection is closed');
  }

  private emit(response: LlmResponse): void {
    if (this.closed) return;
    this.queue.push(response);
    this.signal();
  }

  private signal(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  private startUtterance(): void {
    const a = this.activity;
    if (a.speaking) return;
    a.speaking = true;
    a.speechMs = 0;
    a.silenceMs = 0;
    this.interrupt();
  }

  private endUtterance(): void {
    const a = this.activity;
    clearTimeout(a.stall);
    if (!a.speaking) return;
    a.speaking = false;
    const seconds = (a.speechMs / 1000).toFixed(1);
    const phrase = this.options.heardPhrase;
    const text = `${phrase} (${seconds} s of audio)`;
    for (const word of text.match(/\s*\S+/g) ?? [])
      this.emit({ inputTranscription: { text: word }, partial: true });
    this.emit({ inputTranscription: { text, finished: true } });
    this.contents.push({ role: 'user', parts: [{ text: phrase }] });
    this.answer();
  }

  /** Stops the answer in progress (barge-in) and tells the client to drop what it still plays. */
  private interrupt(): void {
    if (!this.turn || this.turn.signal.aborted || !this.interrupts) return;
    // The answer's loop tells the client (what was said so far, then `interrupted`).
    this.turn.abort();
  }

  private answer(): void {
    const previous = this.turnDone;
    const turn = new AbortController();
    this.turn = turn;
    this.turnDone = previous
      .then(() => this.play(turn.signal))
      .catch((error: unknown) =>
        this.emit({
          errorCode: errorCodeOf(error),
          errorMessage: error instanceof Error ? error.message : String(error),
        }),
      );
  }

  private async play(signal: AbortSignal): Promise<void> {
    if (signal.aborted || this.closed) return;
    const plan = planReply({ ...this.request, contents: this.contents });
    if (plan.kind === 'call') {
      try {
        await sleep(this.options.tokenDelayMs, signal);
      } catch (error) {
        if (signal.aborted) return; // withdrawn before it was made
        throw error;
      }
      const call = { id: newFunctionCallId(), name: plan.name, args: plan.args };
      const content: Content = { role: 'model', parts: [{ functionCall: call }] };
      this.contents.push(content);
      // Like Gemini Live: the call ends the model's turn; the tool's response starts the next one.
      this.emit({ content });
      this.emit({ turnComplete: true });
      return;
    }
    const tokens = plan.text.match(/\s*\S+/g) ?? [plan.text];
    let said = '';
    try {
      if (this.audioOut) {
        for (const [i, token] of tokens.entries()) {
          signal.throwIfAborted();
          const spoken = i < MAX_SPOKEN_WORDS;
          const pcm = spoken ? speak(token) : undefined;
          if (pcm)
            this.emit({
              content: {
                role: 'model',
                parts: [{ inlineData: { mimeType: OUTPUT_MIME, data: pcm.toString('base64') } }],
              },
            });
          this.emit({ outputTranscription: { text: token }, partial: true });
          said += token;
          const played = pcm ? (pcm.length / 2 / DEMO_OUTPUT_RATE) * 1000 : 0;
          await sleep(this.options.realtimeAudio ? played : this.options.tokenDelayMs, signal);
        }
      } else {
        for (const token of tokens) {
          await sleep(this.options.tokenDelayMs, signal);
          this.emit({ content: { role: 'model', parts: [{ text: token }] }, partial: true });
          said += token;
        }
      }
    } catch (error) {
      if (!signal.aborted) throw error;
    }
    const finished = !signal.aborted;
    const text = finished ? plan.text : said.trim();
    if (text) {
      this.contents.push({ role: 'model', parts: [{ text }] });
      if (this.audioOut) this.emit({ outputTranscription: { text, finished: true } });
      else this.emit({ content: { role: 'model', parts: [{ text }] } });
    }
    if (!finished) {
      this.emit({ interrupted: true });
      return;
    }
    if (this.request.config.live?.sessionResumption) {
      this.handles++;
      this.emit({
        liveSessionResumptionUpdate: { newHandle: `demo-handle-${this.handles}`, resumable: true },
      });
    }
    this.emit({ turnComplete: true });
  }
}

function rms(bytes: Buffer, samples: number): number {
  let sum = 0;
  for (let i = 0; i < samples; i++) {
    const s = bytes.readInt16LE(i * 2);
    sum += s * s;
  }
  return Math.sqrt(sum / samples);
}

/**
 * One word as a short voiced tone: a pitch picked from the word (so the sound follows the text), a
 * second harmonic, a soft attack and release, then a short pause. 24 kHz, 16-bit little-endian.
 */
export function speak(word: string): Buffer {
  const letters = word.trim();
  if (!letters) return Buffer.alloc(0);
  let hash = 0;
  for (const ch of letters) hash = (hash * 31 + (ch.codePointAt(0) ?? 0)) >>> 0;
  const pitch = 150 + (hash % 9) * 20;
  const toneMs = Math.min(320, 70 + 22 * letters.length);
  const pauseMs = /[.,!?;:]$/.test(letters) ? 180 : 50;
  const toneSamples = Math.round((toneMs / 1000) * DEMO_OUTPUT_RATE);
  const total = toneSamples + Math.round((pauseMs / 1000) * DEMO_OUTPUT_RATE);
  const out = Buffer.alloc(total * 2);
  const ramp = Math.round(0.012 * DEMO_OUTPUT_RATE);
  for (let i = 0; i < toneSamples; i++) {
    const t = i / DEMO_OUTPUT_RATE;
    const envelope = Math.min(1, i / ramp, (toneSamples - i) / ramp);
    const wave = 0.7 * Math.sin(2 * Math.PI * pitch * t) + 0.3 * Math.sin(4 * Math.PI * pitch * t);
    out.writeInt16LE(Math.round(wave * envelope * 9000), i * 2);
  }
  return out;
}
