/** Receives progress while an evaluation runs. */
export interface ProgressReporter {
  start(total: number): void;
  /** One case run finished. */
  tick(info: { evalSetId: string; evalId: string; run: number; passed: boolean }): void;
  finish(): void;
}

interface Writable {
  isTTY?: boolean;
  columns?: number;
  write(chunk: string): unknown;
}

/**
 * A one-line progress bar redrawn in place. It draws only on a terminal: on a pipe or in CI it
 * prints nothing (`progressBar()` returns undefined), so logs are not flooded.
 */
export function progressBar(stream: Writable = process.stderr): ProgressReporter | undefined {
  if (!stream.isTTY) return undefined;
  let total = 0;
  let done = 0;
  let failed = 0;
  const draw = () => {
    const width = Math.max(10, Math.min(40, (stream.columns ?? 80) - 40));
    const filled = total ? Math.round((done / total) * width) : width;
    const bar = `${'█'.repeat(filled)}${'░'.repeat(width - filled)}`;
    stream.write(`\r\x1b[2K${bar} ${done}/${total} runs  ✓ ${done - failed}  ✗ ${failed}`);
  };
  return {
    start(n) {
      total = n;
      draw();
    },
    tick(info) {
      done++;
      if (!info.passed) failed++;
      draw();
    },
    finish() {
      stream.write('\n');
    },
  };
}
