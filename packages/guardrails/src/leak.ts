import type { Guardrail } from '@adk/core';
import { collectStrings } from './text.js';

export interface PromptLeakGuardrailOptions {
  name?: string;
  /** Consecutive words of the instruction that count as a quote (default 8). */
  windowWords?: number;
  /** Instruction texts to protect besides the request's system instruction. */
  protect?: string[];
}

const words = (text: string) => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];

/** Word shingles of an instruction, cached per text (instructions rarely change between turns). */
const cache = new Map<string, Set<string>>();
function shinglesOf(text: string, n: number): Set<string> {
  const key = `${n}\u0000${text}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const w = words(text);
  const out = new Set<string>();
  for (let i = 0; i + n <= w.length; i++) out.add(w.slice(i, i + n).join(' '));
  if (cache.size > 256) cache.clear();
  cache.set(key, out);
  return out;
}

/** Whether `output` quotes `windowWords` consecutive words of `instruction`. */
export function quotesInstruction(output: string, instruction: string, windowWords = 8): boolean {
  const protectedShingles = shinglesOf(instruction, windowWords);
  if (protectedShingles.size === 0) return false;
  const w = words(output);
  for (let i = 0; i + windowWords <= w.length; i++)
    if (protectedShingles.has(w.slice(i, i + windowWords).join(' '))) return true;
  return false;
}

/**
 * System-prompt leak: trips when the model's answer quotes the agent's instruction (the request's
 * system instruction, plus any `protect` texts). For the output point only.
 */
export function promptLeakGuardrail(options: PromptLeakGuardrailOptions = {}): Guardrail {
  const n = options.windowWords ?? 8;
  return {
    name: options.name ?? 'prompt_leak',
    points: ['output'],
    check(subject) {
      if (subject.point !== 'output') return;
      const sources = [subject.request.systemInstruction ?? '', ...(options.protect ?? [])];
      const text = collectStrings(subject.content.parts.filter((p) => !p.thought)).join('\n');
      for (const source of sources)
        if (source && quotesInstruction(text, source, n))
          return { action: 'tripwire', reason: 'the answer quotes the system instruction' };
    },
  };
}
