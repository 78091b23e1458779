import { writeFileSync } from 'node:fs';

/**
 * Writes a mono 16-bit PCM WAV: `toneMs` of a voiced tone (a fundamental and two harmonics, loud
 * enough to count as speech), then `silenceMs` of silence. Chromium's fake microphone plays it in a
 * loop, so each loop is one "utterance" followed by a pause.
 */
export function writeToneWav(
  path: string,
  options: { rate?: number; toneMs: number; silenceMs: number; hz?: number },
): void {
  const rate = options.rate ?? 48_000;
  const hz = options.hz ?? 220;
  const tone = Math.round((options.toneMs / 1000) * rate);
  const samples = tone + Math.round((options.silenceMs / 1000) * rate);
  const data = Buffer.alloc(samples * 2);
  const ramp = Math.round(0.02 * rate);
  for (let i = 0; i < tone; i++) {
    const t = i / rate;
    const envelope = Math.min(1, i / ramp, (tone - i) / ramp);
    const wave =
      0.6 * Math.sin(2 * Math.PI * hz * t) +
      0.3 * Math.sin(4 * Math.PI * hz * t) +
      0.1 * Math.sin(6 * Math.PI * hz * t);
    data.writeInt16LE(Math.round(wave * envelope * 20_000), i * 2);
  }
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(36 + data.length, 4);
  header.write('WAVE', 8, 'ascii');
  header.write('fmt ', 12, 'ascii');
  header.writeUInt32LE(16, 16); // fmt chunk size
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(1, 22); // mono
  header.writeUInt32LE(rate, 24);
  header.writeUInt32LE(rate * 2, 28); // byte rate
  header.writeUInt16LE(2, 32); // block align
  header.writeUInt16LE(16, 34); // bits per sample
  header.write('data', 36, 'ascii');
  header.writeUInt32LE(data.length, 40);
  writeFileSync(path, Buffer.concat([header, data]));
}
