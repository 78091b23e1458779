import type { FunctionCall } from '../events/content.js';
import { isPlainObject } from '../utils/json.js';

/**
 * The call an `adk_request_confirmation` call asks about (its `args.originalFunctionCall`), or
 * undefined when that is missing or malformed (no string id and name). Arguments that are not an
 * object read as `{}`.
 */
export function originalCallOf(
  call: Pick<FunctionCall, 'args'>,
): { id: string; name: string; args: Record<string, unknown> } | undefined {
  const original = call.args.originalFunctionCall;
  if (!isPlainObject(original) || typeof original.id !== 'string' || typeof original.name !== 'string')
    return undefined;
  return { id: original.id, name: original.name, args: isPlainObject(original.args) ? original.args : {} };
}
