import { newFunctionCallId, type Part } from '@adk/core';
import type { GeminiPart } from './wire.js';

type WireCall = NonNullable<GeminiPart['functionCall']>;
type PartialArg = NonNullable<WireCall['partialArgs']>[number];

/** `$.a.b[0]['c d']` → ['a', 'b', 0, 'c d'] (the RFC 9535 subset Gemini uses for argument paths). */
export function parseJsonPath(path: string): (string | number)[] | undefined {
  if (!path.startsWith('$')) return undefined;
  const out: (string | number)[] = [];
  let i = 1;
  while (i < path.length) {
    const c = path[i];
    if (c === '.') {
      const m = /^[^.[\]]+/.exec(path.slice(i + 1));
      if (!m) return undefined;
      out.push(m[0]);
      i += 1 + m[0].length;
    } else if (c === '[') {
      const rest = path.slice(i);
      const index = /^\[(\d+)\]/.exec(rest);
      const quoted = /^\[(['"])((?:\\.|(?!\1).)*)\1\]/.exec(rest);
      if (index) {
        out.push(Number(index[1]));
        i += index[0].length;
      } else if (quoted) {
        out.push((quoted[2] ?? '').replace(/\\(.)/g, '$1'));
        i += quoted[0].length;
      } else return undefined;
    } else return undefined;
  }
  return out;
}

function pieceOf(arg: PartialArg): { value: unknown } | undefined {
  if (arg.stringValue !== undefined) return { value: arg.stringValue };
  if (arg.numberValue !== undefined) return { value: arg.numberValue };
  if (arg.boolValue !== undefined) return { value: arg.boolValue };
  if ('nullValue' in arg) return { value: null };
  return undefined;
}

/**
 * Assembles one function call whose arguments Gemini streams in pieces (`partialArgs` with a JSON
 * path each, `willContinue` until the last piece). String pieces of the same path are joined.
 */
export class StreamedCall {
  private readonly args: Record<string, unknown> = {};
  /** Paths whose string value is still being streamed. */
  private readonly open = new Set<string>();
  private id: string | undefined;
  private name = '';
  private signature: string | undefined;
  private invalid: string | undefined;

  add(call: WireCall, thoughtSignature: string | undefined): void {
    if (call.id && !this.id) this.id = call.id;
    if (call.name && !this.name) this.name = call.name;
    if (thoughtSignature !== undefined) this.signature = thoughtSignature;
    if (call.args) Object.assign(this.args, call.args);
    for (const arg of call.partialArgs ?? []) this.apply(arg);
  }

  private apply(arg: PartialArg): void {
    const path = parseJsonPath(arg.jsonPath);
    const piece = pieceOf(arg);
    if (!path || path.length === 0 || !piece) {
      this.invalid ??= `unusable streamed argument at ${arg.jsonPath}`;
      return;
    }
    let target: Record<string | number, unknown> = this.args;
    for (let k = 0; k < path.length - 1; k++) {
      const key = path[k] as string | number;
      const nextIsIndex = typeof path[k + 1] === 'number';
      let child = target[key];
      if (typeof child !== 'object' || child === null) {
        child = nextIsIndex ? [] : {};
        target[key] = child;
      }
      target = child as Record<string | number, unknown>;
    }
    const last = path.at(-1) as string | number;
    const current = target[last];
    if (typeof piece.value === 'string' && typeof current === 'string' && this.open.has(arg.jsonPath))
      target[last] = current + piece.value;
    else target[last] = piece.value;
    if (arg.willContinue) this.open.add(arg.jsonPath);
    else this.open.delete(arg.jsonPath);
  }

  /** The assembled call; `complete: false` when the stream ended before its last piece. */
  part(complete: boolean): Part {
    const invalid = this.invalid ?? (complete ? undefined : 'the stream ended before the call was complete');
    return {
      functionCall: {
        id: this.id ?? newFunctionCallId(),
        name: this.name,
        args: invalid === undefined ? this.args : {},
        ...(invalid !== undefined ? { invalidArgs: `${invalid}: ${JSON.stringify(this.args)}` } : {}),
      },
      ...(this.signature !== undefined ? { thoughtSignature: this.signature } : {}),
    };
  }
}
