/** Children print their result as one line with this prefix; everything else is passed through. */
export const RESULT_PREFIX = 'BENCH_RESULT ';
export const SKIP_PREFIX = 'BENCH_SKIP ';

export function emitResult(result: unknown): void {
  process.stdout.write(`${RESULT_PREFIX}${JSON.stringify(result)}\n`);
}

export function emitSkip(reason: string): void {
  process.stdout.write(`${SKIP_PREFIX}${reason}\n`);
}

/** Reads the JSON argument a child was started with. */
export function workerArgs<T>(): T {
  const raw = process.argv[2];
  if (raw === undefined) throw new Error('worker started without its JSON argument');
  return JSON.parse(raw) as T;
}

export const READY_PREFIX = 'BENCH_READY ';

/** A long-running child (a server) says it is ready to take requests. */
export function emitReady(info: unknown): void {
  process.stdout.write(`${READY_PREFIX}${JSON.stringify(info)}\n`);
}

/**
 * For server workers: SIGUSR2 starts the CPU measurement (after the warm-up); SIGTERM prints the
 * CPU time used since then and the peak RSS, and exits.
 */
export function reportCpuOnSignals(): void {
  let baseline = process.cpuUsage();
  process.on('SIGUSR2', () => {
    baseline = process.cpuUsage();
  });
  process.on('SIGTERM', () => {
    const used = process.cpuUsage(baseline);
    emitResult({
      cpuMs: (used.user + used.system) / 1000,
      peakRssBytes: process.resourceUsage().maxRSS * 1024,
    });
    process.exit(0);
  });
}
