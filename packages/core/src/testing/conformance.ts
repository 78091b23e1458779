/** One named check of a conformance suite; `run` throws (node:assert) on failure. */
export interface ConformanceCase {
  name: string;
  run: () => Promise<void>;
}

/**
 * Conformance suites are plain lists of cases so that any test runner can register them:
 *
 * ```ts
 * for (const c of sessionServiceConformance(() => new MyService())) it(c.name, c.run);
 * ```
 */
export type ConformanceSuite = ConformanceCase[];
