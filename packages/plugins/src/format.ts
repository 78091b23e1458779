import { type Content, contentText, describeError, type LlmResponse } from '@adk/core';

/** Shortens text for one-line logs. */
export function clip(text: string, max = 120): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** JSON for logs: never throws (cycles, BigInt), errors described. */
export function safeJson(value: unknown): string {
  const seen = new WeakSet<object>();
  try {
    return (
      JSON.stringify(value, (_key, v: unknown) => {
        if (typeof v === 'bigint') return v.toString();
        if (v instanceof Error) return { name: v.name, message: describeError(v) };
        if (typeof v === 'object' && v !== null) {
          if (seen.has(v)) return '[circular]';
          seen.add(v);
        }
        return v;
      }) ?? 'undefined'
    );
  } catch {
    return String(value);
  }
}

/** "text …" or "calls add, search" — what a content says, in a few words. */
export function summarizeContent(content: Content | undefined): string {
  if (!content) return 'no content';
  const calls = content.parts.filter((p) => p.functionCall).map((p) => p.functionCall?.name);
  const responses = content.parts.filter((p) => p.functionResponse).map((p) => p.functionResponse?.name);
  const files = content.parts.filter((p) => p.inlineData || p.fileData).length;
  const out: string[] = [];
  const text = contentText(content);
  if (text) out.push(JSON.stringify(clip(text, 80)));
  if (calls.length > 0) out.push(`calls ${calls.join(', ')}`);
  if (responses.length > 0) out.push(`responses ${responses.join(', ')}`);
  if (files > 0) out.push(`${files} file(s)`);
  return out.length > 0 ? out.join('; ') : 'empty';
}

export function summarizeResponse(response: LlmResponse): string {
  const out = [summarizeContent(response.content)];
  if (response.finishReason) out.push(`finish=${response.finishReason}`);
  const u = response.usageMetadata;
  if (u) out.push(`tokens in=${u.promptTokenCount ?? 0} out=${u.candidatesTokenCount ?? 0}`);
  if (response.errorCode) out.push(`error=${response.errorCode}: ${clip(response.errorMessage ?? '', 80)}`);
  return out.join(' ');
}
