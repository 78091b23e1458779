import { readFile } from 'node:fs/promises';
import { formatIssues } from '@adk/core';
import { EvalFormatError } from '../errors.js';
import { type KeyStyle, parseJsonText, writeInvocation } from './eval-set-io.js';
import { toCamelKeys, toSnakeKeys } from './keys.js';
import { evalSchemas } from './schemas.js';
import type { EvalCaseResult, EvalSetResult } from './types.js';

/**
 * Reads an EvalSetResult. adk-python's local history files hold the result JSON *as a JSON
 * string* (it dumps the model to text, then dumps that text again); both that and a plain
 * object are accepted.
 */
export function parseEvalSetResult(value: unknown): EvalSetResult {
  let v = value;
  if (typeof v === 'string') v = parseJsonText(v, 'eval set result');
  const parsed = evalSchemas().evalSetResult.safeParse(toCamelKeys(v));
  if (!parsed.success)
    throw new EvalFormatError(`Not an eval set result: ${formatIssues(parsed.error.issues)}`);
  return parsed.data as unknown as EvalSetResult;
}

export async function loadEvalSetResultFile(path: string): Promise<EvalSetResult> {
  return parseEvalSetResult(parseJsonText(await readFile(path, 'utf8'), 'eval set result'));
}

function writeCaseResult(r: EvalCaseResult): Record<string, unknown> {
  return {
    ...r,
    evalMetricResultPerInvocation: r.evalMetricResultPerInvocation.map((p) => ({
      ...p,
      actualInvocation: writeInvocation(p.actualInvocation),
      ...(p.expectedInvocation ? { expectedInvocation: writeInvocation(p.expectedInvocation) } : {}),
    })),
  };
}

/**
 * The result as a JSON-ready object. adk-python dumps results with all fields (by name, i.e.
 * snake_case, in files; camelCase over HTTP).
 */
export function serializeEvalSetResult(result: EvalSetResult, options: { keys?: KeyStyle } = {}): unknown {
  const camel = JSON.parse(
    JSON.stringify({ ...result, evalCaseResults: result.evalCaseResults.map(writeCaseResult) }),
  ) as unknown;
  return options.keys === 'camel' ? camel : toSnakeKeys(camel);
}
