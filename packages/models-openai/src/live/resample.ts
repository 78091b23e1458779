/**
 * Linear resampling of 16-bit mono PCM, chunk by chunk: the position and the last sample carry over
 * from one chunk to the next, so a stream cut into chunks resamples as if it were whole. The
 * Realtime API takes 24 kHz; the live flow (and the dev UI) send 16 kHz.
 */
export class PcmResampler {
  /**
   * Where the next output sample falls, in 1/toRate input samples from the start of the next
   * chunk (≥ -toRate: index -1 is the previous chunk's last sample). Integers, so no rounding drift.
   */
  private position = 0;
  private last: number | undefined;

  constructor(
    readonly fromRate: number,
    readonly toRate: number,
  ) {}

  /** Resamples one chunk; an output sample that needs the next chunk's first sample waits for it. */
  push(input: Int16Array): Int16Array {
    if (this.fromRate === this.toRate || input.length === 0) return input;
    const n = input.length;
    const to = this.toRate;
    const end = (n - 1) * to;
    const out = new Int16Array(Math.max(0, Math.floor((end - this.position) / this.fromRate) + 1));
    let count = 0;
    let pos = this.position;
    for (; pos <= end; pos += this.fromRate) {
      const i = Math.floor(pos / to);
      const rest = pos - i * to;
      const a = i < 0 ? (this.last ?? (input[0] as number)) : (input[i] as number);
      const b = rest === 0 ? a : (input[i + 1] as number);
      out[count++] = Math.round(a + ((b - a) * rest) / to);
    }
    this.position = pos - n * to;
    this.last = input[n - 1];
    return out.subarray(0, count);
  }
}

/** Base64 of little-endian 16-bit PCM → samples. */
export function pcmFromBase64(data: string): Int16Array {
  const bytes = Buffer.from(data, 'base64');
  const samples = new Int16Array(bytes.length >> 1);
  for (let i = 0; i < samples.length; i++) samples[i] = bytes.readInt16LE(i * 2);
  return samples;
}

/** Samples → base64 of little-endian 16-bit PCM. */
export function pcmToBase64(samples: Int16Array): string {
  const bytes = Buffer.alloc(samples.length * 2);
  for (let i = 0; i < samples.length; i++) bytes.writeInt16LE(samples[i] as number, i * 2);
  return bytes.toString('base64');
}

/** The sample rate of an `audio/pcm;rate=N` (or `audio/L16;rate=N`) MIME type; undefined when absent. */
export function pcmRate(mimeType: string): number | undefined {
  const match = /;\s*rate=(\d+)/i.exec(mimeType);
  return match ? Number(match[1]) : undefined;
}
