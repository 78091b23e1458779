import { finalResponseMatchV2 } from './final-response-match-v2.js';
import { hallucinationsV1 } from './hallucinations.js';
import type { Metric, MetricFunction } from './metric.js';
import { responseMatchScore } from './response-match.js';
import { rubricBasedFinalResponseQualityV1, rubricBasedToolUseQualityV1 } from './rubric-based.js';
import { safetyV1 } from './safety.js';
import { toolTrajectoryAvgScore } from './tool-trajectory.js';

/** The metrics adk-python ships, under its names. */
export const builtinMetrics: readonly Metric[] = [
  toolTrajectoryAvgScore,
  responseMatchScore,
  finalResponseMatchV2,
  rubricBasedFinalResponseQualityV1,
  rubricBasedToolUseQualityV1,
  safetyV1,
  hallucinationsV1,
];

/** Builtins plus custom metrics (a {@link Metric} or a plain function), by name. */
export function metricTable(custom: Record<string, Metric | MetricFunction> = {}): Map<string, Metric> {
  const table = new Map(builtinMetrics.map((m) => [m.name, m]));
  for (const [name, m] of Object.entries(custom))
    table.set(name, typeof m === 'function' ? { name, evaluate: m } : m);
  return table;
}

/** adk-python's MetricInfo, as `GET /apps/{app}/eval_metrics` returns it. */
export interface MetricInfo {
  metricName: string;
  description: string;
  metricValueInfo: {
    interval: { minValue: number; maxValue: number; openAtMin: boolean; openAtMax: boolean };
  };
}

export function metricInfo(metric: Metric): MetricInfo {
  return {
    metricName: metric.name,
    description: metric.description ?? '',
    metricValueInfo: {
      interval: {
        minValue: metric.range?.min ?? 0,
        maxValue: metric.range?.max ?? 1,
        openAtMin: false,
        openAtMax: false,
      },
    },
  };
}

export function listMetricInfo(custom: Record<string, Metric | MetricFunction> = {}): MetricInfo[] {
  return [...metricTable(custom).values()].map(metricInfo);
}
