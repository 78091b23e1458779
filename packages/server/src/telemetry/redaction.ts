/**
 * Masks secrets and personal data in span attributes before they are stored or exported. Uses
 * `@adk/guardrails`' detectors (`detectPii`: secrets, payment cards, national ids, e-mail, phone,
 * IBAN…) when that optional peer is installed, else the built-in secret and payment-card detector
 * below.
 */

/** Replaces what must not be kept in a text; returns the text unchanged when nothing matched. */
export type TextRedactor = (text: string) => string;

/** What span content is captured (OpenTelemetry GenAI's opt-in for message content). */
export type TraceContentCapture = 'off' | 'metadata' | 'full';

interface BuiltInPattern {
  entity: string;
  pattern: RegExp;
  valid?: (value: string) => boolean;
}

function luhn(digits: string): boolean {
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return sum % 10 === 0;
}

const BUILT_IN: BuiltInPattern[] = [
  {
    entity: 'private_key',
    pattern: /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----/g,
  },
  { entity: 'jwt', pattern: /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g },
  { entity: 'api_key', pattern: /\b(?:sk|pk|rk)-(?:[a-z]+-)*[A-Za-z0-9_]{16,}/g },
  { entity: 'api_key', pattern: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g },
  { entity: 'api_key', pattern: /\bAIza[0-9A-Za-z_-]{35}/g },
  { entity: 'api_key', pattern: /\bgh[pousr]_[A-Za-z0-9]{30,}/g },
  { entity: 'api_key', pattern: /\bxox[abposr]-[A-Za-z0-9-]{10,}/g },
  { entity: 'api_key', pattern: /\bBearer\s+[A-Za-z0-9._~+/=-]{16,}/g },
  {
    entity: 'payment_card',
    pattern: /(?<![\d-])\d(?:[ -]?\d){12,18}(?![\d-])/g,
    valid: (value) => luhn(value.replace(/\D/g, '')),
  },
];

/** The built-in detector: secrets (keys, tokens, private keys, JWTs) and payment card numbers. */
export const builtInRedactor: TextRedactor = (text) => {
  let out = text;
  for (const { entity, pattern, valid } of BUILT_IN) {
    pattern.lastIndex = 0;
    out = out.replace(pattern, (match) => (valid && !valid(match) ? match : `[REDACTED:${entity}]`));
  }
  return out;
};

/**
 * `redact` with its answers for short texts kept, the least recently used going first, within a
 * budget of characters: span attributes repeat the same descriptions, arguments and results turn after turn,
 * a conversation's earlier turns repeat in every model request, and each detector pass costs a scan
 * of the text.
 */
export function rememberingRedactor(
  redact: TextRedactor,
  budgetChars = 4_000_000,
  longest = 4096,
): TextRedactor {
  // Two generations: answers used since the last turnover live in `recent`; when it is full it
  // becomes `older` and the previous `older` is dropped. A hit in `older` moves to `recent`. This
  // keeps what is in use, with no per-hit reordering.
  let recent = new Map<string, string>();
  let older = new Map<string, string>();
  let chars = 0;
  const half = budgetChars / 2;
  return (text) => {
    if (text.length > longest) return redact(text);
    const hit = recent.get(text);
    if (hit !== undefined) return hit;
    const masked = older.get(text) ?? redact(text);
    recent.set(text, masked);
    chars += text.length;
    if (chars > half) {
      older = recent;
      recent = new Map();
      chars = 0;
    }
    return masked;
  };
}

interface PiiMatchLike {
  entity: string;
  start: number;
  end: number;
}

/** A redactor over `@adk/guardrails`' `detectPii`, or undefined when it is not installed. */
export async function guardrailsRedactor(): Promise<TextRedactor | undefined> {
  let detect: ((text: string) => PiiMatchLike[]) | undefined;
  try {
    // Optional peer, loaded lazily: its detectors are the ones the guardrails use.
    const name = '@adk/guardrails';
    const mod = (await import(name)) as { detectPii?: (text: string) => PiiMatchLike[] };
    detect = mod.detectPii;
  } catch {
    return undefined;
  }
  if (!detect) return undefined;
  const find = detect;
  return (text) => {
    const matches = find(text);
    let out = '';
    let at = 0;
    for (const m of matches) {
      out += `${text.slice(at, m.start)}[REDACTED:${m.entity}]`;
      at = m.end;
    }
    // Its detectors and ours: a secret shape only one of them knows is masked too.
    return builtInRedactor(matches.length === 0 ? text : out + text.slice(at));
  };
}

/** Attributes that carry text of the app or its users, dropped when content capture is `off`. */
export const DESCRIPTIVE_ATTRIBUTES = ['gen_ai.tool.description', 'gen_ai.agent.description'];

/** Identifiers and names (ids, models, agent and tool names): never rewritten, lookups use them. */
const IDENTIFIER = /(?:^|[._])ids?$|\.name$|\.model$|^adk\.(?:app_name|user_id)$/;

/** Whether each attribute key seen so far is an identifier: spans repeat the same few keys. */
const identifierKeys = new Map<string, boolean>();

function isIdentifier(key: string): boolean {
  let known = identifierKeys.get(key);
  if (known === undefined) {
    known = IDENTIFIER.test(key);
    // Keys are the instrumentation's own names; a bound keeps an app that invents keys in check.
    if (identifierKeys.size < 1000) identifierKeys.set(key, known);
  }
  return known;
}

/** The redacted value of every string (and string array element) that changed; identifiers are left alone. */
export function redactAttributes(
  attributes: Record<string, unknown>,
  redact: TextRedactor,
): Record<string, string | string[]> {
  const changed: Record<string, string | string[]> = {};
  // `for…in`, not `Object.entries`: span attribute maps are built key by key, and listing their
  // entries as pairs cost more than the redaction of the cached values.
  for (const key in attributes) {
    if (!Object.hasOwn(attributes, key) || isIdentifier(key)) continue;
    const value = attributes[key];
    if (typeof value === 'string') {
      // An empty text (an agent without a description) has nothing to mask.
      if (value === '') continue;
      const masked = redact(value);
      if (masked !== value) changed[key] = masked;
    } else if (Array.isArray(value)) {
      const masked = redactList(value, redact);
      if (masked) changed[key] = masked;
    }
  }
  return changed;
}

/**
 * A list attribute with its texts masked, or undefined when none changed. A plain loop that copies
 * the list only at its first change: this runs for every list attribute of every span.
 */
function redactList(list: readonly unknown[], redact: TextRedactor): string[] | undefined {
  let out: unknown[] | undefined;
  for (let i = 0; i < list.length; i++) {
    const item = list[i];
    if (typeof item !== 'string' || item === '') continue;
    const masked = redact(item);
    if (masked === item) continue;
    out ??= list.slice();
    out[i] = masked;
  }
  return out as string[] | undefined;
}

/** The content capture mode from the environment: `ADK_TRACE_CONTENT`, else OpenTelemetry's GenAI opt-in. */
export function traceContentFromEnv(env: NodeJS.ProcessEnv = process.env): TraceContentCapture | undefined {
  const own = env.ADK_TRACE_CONTENT?.trim().toLowerCase();
  if (own === 'off' || own === 'metadata' || own === 'full') return own;
  const otel = env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT?.trim().toLowerCase();
  if (otel === 'true') return 'full';
  if (otel === 'false') return 'metadata';
  return undefined;
}
