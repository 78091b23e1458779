import type { CallbackContext, LlmRequest, LlmResponse } from '@adk/core';

/** Counts the agent's runs in state before the agent runs. */
export function count_visit({ context }: { context: CallbackContext }): undefined {
  context.state.set('visits', Number(context.state.get('visits') ?? 0) + 1);
  return undefined;
}

/** Answers instead of the model when the user asks for the canned answer. */
export function canned_answer({
  context,
  request,
}: {
  context: CallbackContext;
  request: LlmRequest;
}): LlmResponse | undefined {
  const last =
    request.contents
      .at(-1)
      ?.parts.map((p) => p.text ?? '')
      .join(' ') ?? '';
  if (!/\bcanned\b/i.test(last)) return undefined;
  context.state.set('answered_by', 'callback');
  return { content: { role: 'model', parts: [{ text: 'This is the canned answer from a callback.' }] } };
}

/** Records the length of the model's reply in state. */
export function remember_reply({
  context,
  response,
}: {
  context: CallbackContext;
  response: LlmResponse;
}): undefined {
  const text = response.content?.parts.map((p) => p.text ?? '').join('') ?? '';
  context.state.set('answered_by', 'model');
  context.state.set('reply_length', text.length);
  return undefined;
}
