import type { Llm, LlmResponse } from '@adk/core';

/** Asks a model a yes/no style question and reads the JSON object it answers with. */
export async function askJudge(
  model: Llm,
  instruction: string,
  text: string,
  signal: AbortSignal | undefined,
): Promise<Record<string, unknown> | undefined> {
  let final: LlmResponse | undefined;
  for await (const r of model.generate(
    {
      model: model.model,
      systemInstruction: instruction,
      // The text to judge travels fenced as data, never as instructions to follow.
      contents: [{ role: 'user', parts: [{ text: `<text_to_classify>\n${text}\n</text_to_classify>` }] }],
      config: { temperature: 0, responseMimeType: 'application/json' },
    },
    { stream: false, ...(signal ? { signal } : {}) },
  ))
    if (!r.partial) final = r;
  const answer = (final?.content?.parts ?? [])
    .filter((p) => !p.thought)
    .map((p) => p.text ?? '')
    .join('');
  const json = /\{[\s\S]*\}/.exec(answer)?.[0];
  if (!json) return undefined;
  try {
    const parsed: unknown = JSON.parse(json);
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
