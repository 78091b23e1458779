/** Wall-clock time in ms, rounded to µs (exactly representable in µs-precision stores). */
export function nowMs(): number {
  return Math.round((performance.timeOrigin + performance.now()) * 1000) / 1000;
}

/** The current time, or `previous` + 1 µs when the clock has not moved past it. */
export function strictlyAfter(previous: number): number {
  const now = nowMs();
  return now > previous ? now : Math.round((previous + 0.001) * 1000) / 1000;
}
