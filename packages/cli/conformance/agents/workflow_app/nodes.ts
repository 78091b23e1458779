/** Routes a message that ends with a question mark to the answerer. */
export function classify(ctx: { route?: string }, input: unknown): unknown {
  const text = typeof input === 'string' ? input : JSON.stringify(input);
  ctx.route = text.trim().endsWith('?') ? 'question' : 'other';
  return input;
}

/** Anything that is not a question is noted. */
export function note(_ctx: unknown, input: unknown): string {
  return `noted: ${typeof input === 'string' ? input : JSON.stringify(input)}`;
}
