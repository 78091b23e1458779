/** The rate `/run_live` expects for microphone audio (16-bit mono PCM). */
export const INPUT_RATE = 16_000;
/** Samples per chunk sent to the server: 100 ms at 16 kHz. */
const CHUNK_SAMPLES = 1600;

/**
 * The AudioWorklet that turns the microphone's float samples at the device rate (often 48 kHz)
 * into 16 kHz 16-bit PCM: each output sample is the mean of the input samples it covers (a box
 * filter, enough against aliasing for speech), carried across render quanta so any ratio works.
 * Loaded from a Blob URL so the page needs no extra file.
 */
const RECORDER_SOURCE = `
class PcmRecorder extends AudioWorkletProcessor {
  constructor(options) {
    super();
    this.ratio = sampleRate / options.processorOptions.targetRate;
    this.chunk = new Int16Array(options.processorOptions.chunkSamples);
    this.filled = 0;
    this.sum = 0;
    this.count = 0;
    this.position = 0;
  }
  process(inputs) {
    const channel = inputs[0] && inputs[0][0];
    if (!channel) return true;
    for (let i = 0; i < channel.length; i++) {
      this.sum += channel[i];
      this.count++;
      this.position += 1;
      if (this.position >= this.ratio) {
        this.position -= this.ratio;
        const mean = this.sum / this.count;
        this.sum = 0;
        this.count = 0;
        const clamped = Math.max(-1, Math.min(1, mean));
        this.chunk[this.filled++] = clamped < 0 ? clamped * 0x8000 : clamped * 0x7fff;
        if (this.filled === this.chunk.length) {
          this.port.postMessage(this.chunk.buffer.slice(0));
          this.filled = 0;
        }
      }
    }
    return true;
  }
}
registerProcessor('adk-pcm-recorder', PcmRecorder);
`;

export function bytesToBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000)
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

export function base64ToBytes(data: string): Uint8Array {
  const binary = atob(data.replace(/-/g, '+').replace(/_/g, '/'));
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}

export interface Microphone {
  /** The device's sample rate the worklet downsamples from. */
  readonly deviceRate: number;
  stop(): Promise<void>;
}

/**
 * Opens the microphone and calls `onChunk` with 100 ms of 16 kHz 16-bit PCM (little-endian, as
 * `audio/pcm;rate=16000` blobs expect) at a time.
 */
export async function startMicrophone(onChunk: (pcm: Uint8Array) => void): Promise<Microphone> {
  const stream = await navigator.mediaDevices.getUserMedia({
    audio: { channelCount: 1, echoCancellation: true, noiseSuppression: true },
  });
  const context = new AudioContext();
  const url = URL.createObjectURL(new Blob([RECORDER_SOURCE], { type: 'application/javascript' }));
  try {
    await context.audioWorklet.addModule(url);
  } finally {
    URL.revokeObjectURL(url);
  }
  const source = context.createMediaStreamSource(stream);
  const recorder = new AudioWorkletNode(context, 'adk-pcm-recorder', {
    numberOfInputs: 1,
    numberOfOutputs: 0,
    channelCount: 1,
    channelCountMode: 'explicit',
    processorOptions: { targetRate: INPUT_RATE, chunkSamples: CHUNK_SAMPLES },
  });
  recorder.port.onmessage = (e: MessageEvent<ArrayBuffer>) => onChunk(new Uint8Array(e.data));
  source.connect(recorder);
  if (context.state === 'suspended') await context.resume();
  return {
    deviceRate: context.sampleRate,
    async stop() {
      recorder.port.onmessage = null;
      source.disconnect();
      recorder.disconnect();
      for (const track of stream.getTracks()) track.stop();
      await context.close().catch(() => undefined);
    },
  };
}

/** The sample rate of a `audio/pcm;rate=N` MIME type (Gemini Live speaks at 24 kHz). */
export function pcmRate(mimeType: string, fallback = 24_000): number {
  const rate = Number(/rate=(\d+)/i.exec(mimeType)?.[1]);
  return Number.isFinite(rate) && rate > 0 ? rate : fallback;
}

/**
 * Plays 16-bit PCM chunks as they arrive, back to back: each is scheduled at the end of the one
 * before (or now, after a gap), so network jitter does not cut the speech. `interrupt()` stops what
 * is playing and drops what is queued (barge-in).
 */
export class PcmPlayer {
  private context: AudioContext | undefined;
  private nextStart = 0;
  private readonly sources = new Set<AudioBufferSourceNode>();
  /** Chunks scheduled, and their total length in ms (for the UI and its tests). */
  chunks = 0;
  scheduledMs = 0;
  /** Chunks that played to their end (not cut by an interruption). */
  played = 0;
  onChange: (() => void) | undefined;

  /** Creates the AudioContext (call it from a user gesture so autoplay rules let it play). */
  async resume(): Promise<void> {
    this.context ??= new AudioContext();
    if (this.context.state === 'suspended') await this.context.resume();
  }

  get playing(): boolean {
    return this.sources.size > 0;
  }

  play(pcm: Uint8Array, rate: number): void {
    this.context ??= new AudioContext();
    const context = this.context;
    const samples = Math.floor(pcm.byteLength / 2);
    if (samples === 0) return;
    const view = new DataView(pcm.buffer, pcm.byteOffset, samples * 2);
    const buffer = context.createBuffer(1, samples, rate);
    const channel = buffer.getChannelData(0);
    for (let i = 0; i < samples; i++) channel[i] = view.getInt16(i * 2, true) / 0x8000;
    const source = context.createBufferSource();
    source.buffer = buffer;
    source.connect(context.destination);
    const start = Math.max(context.currentTime + 0.02, this.nextStart);
    source.start(start);
    this.nextStart = start + buffer.duration;
    this.sources.add(source);
    source.onended = () => {
      this.sources.delete(source);
      this.played++;
      this.onChange?.();
    };
    this.chunks++;
    this.scheduledMs += buffer.duration * 1000;
    this.onChange?.();
  }

  /** Stops playback now and forgets the queue. */
  interrupt(): void {
    for (const source of this.sources) {
      source.onended = null;
      try {
        source.stop();
      } catch {}
    }
    this.sources.clear();
    this.nextStart = 0;
    this.onChange?.();
  }

  async close(): Promise<void> {
    this.interrupt();
    await this.context?.close().catch(() => undefined);
    this.context = undefined;
  }
}
