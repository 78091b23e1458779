import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { formatIssues } from '@adk/core';
import { EvalFormatError } from '../errors.js';
import { parseJsonText } from './eval-set-io.js';
import { toCamelKeys } from './keys.js';
import { evalSchemas } from './schemas.js';
import type { Criterion, EvalConfig, EvalMetric } from './types.js';

/** adk-python's default when no `test_config.json` is given. */
export const DEFAULT_EVAL_CONFIG: EvalConfig = {
  criteria: { tool_trajectory_avg_score: 1.0, response_match_score: 0.8 },
};

/** Reads a `test_config.json` (snake_case or camelCase keys; metric names are kept as written). */
export function parseEvalConfig(value: unknown): EvalConfig {
  // Metric names are keys of `criteria` and must not be renamed, so convert around them.
  const raw = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>;
  const criteriaRaw = (raw.criteria ?? {}) as Record<string, unknown>;
  const customRaw = (raw.custom_metrics ?? raw.customMetrics) as Record<string, unknown> | undefined;
  const camel = toCamelKeys({
    ...raw,
    criteria: undefined,
    custom_metrics: undefined,
    customMetrics: undefined,
  }) as Record<string, unknown>;
  camel.criteria = Object.fromEntries(Object.entries(criteriaRaw).map(([name, c]) => [name, toCamelKeys(c)]));
  if (customRaw)
    camel.customMetrics = Object.fromEntries(
      Object.entries(customRaw).map(([name, c]) => [name, toCamelKeys(c)]),
    );
  const schemas = evalSchemas();
  const parsed = schemas.evalConfig.safeParse(camel);
  if (!parsed.success) throw new EvalFormatError(`Not an eval config: ${formatIssues(parsed.error.issues)}`);
  const criteria: Record<string, number | Criterion> = {};
  for (const [name, c] of Object.entries(parsed.data.criteria)) {
    if (typeof c === 'number') {
      criteria[name] = c;
      continue;
    }
    const one = schemas.criterion.safeParse(c);
    if (!one.success)
      throw new EvalFormatError(`Not an eval config: criteria.${name}: ${formatIssues(one.error.issues)}`);
    criteria[name] = one.data as Criterion;
  }
  return { ...(parsed.data as unknown as EvalConfig), criteria };
}

/** Reads `path` if it exists, else returns {@link DEFAULT_EVAL_CONFIG} (as adk-python does). */
export async function loadEvalConfig(path?: string): Promise<EvalConfig> {
  if (!path || !existsSync(path)) return DEFAULT_EVAL_CONFIG;
  const text = await readFile(path, 'utf8');
  try {
    return parseEvalConfig(parseJsonText(text, 'eval config'));
  } catch (error) {
    if (error instanceof EvalFormatError)
      throw new EvalFormatError(`${path}: ${error.message}`, { cause: error });
    throw error;
  }
}

/** One EvalMetric per criterion, as adk-python's `get_eval_metrics_from_config`. */
export function metricsFromConfig(config: EvalConfig): EvalMetric[] {
  return Object.entries(config.criteria).map(([metricName, c]) => {
    const criterion: Criterion = typeof c === 'number' ? { threshold: c } : c;
    const custom = config.customMetrics?.[metricName]?.codeConfig.name;
    return {
      metricName,
      threshold: criterion.threshold,
      criterion,
      ...(custom ? { customFunctionPath: custom } : {}),
    };
  });
}
