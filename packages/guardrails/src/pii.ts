import type { Guardrail, GuardrailPoint, GuardrailResult } from '@adk/core';
import { collectStrings, FindingCounter, mapStrings, rewriteOrPass, subjectValue } from './text.js';

/** What the PII detector finds. */
export type PiiEntity =
  | 'email'
  | 'phone'
  | 'payment_card'
  | 'iban'
  | 'us_ssn'
  | 'uk_nino'
  | 'ca_sin'
  | 'es_dni'
  | 'br_cpf'
  | 'in_aadhaar'
  | 'it_fiscal_code'
  | 'ip_address'
  | 'api_key'
  | 'private_key'
  | 'jwt'
  | 'secret_token';

export const ALL_PII_ENTITIES: readonly PiiEntity[] = [
  'email',
  'phone',
  'payment_card',
  'iban',
  'us_ssn',
  'uk_nino',
  'ca_sin',
  'es_dni',
  'br_cpf',
  'in_aadhaar',
  'it_fiscal_code',
  'ip_address',
  'api_key',
  'private_key',
  'jwt',
  'secret_token',
];

/** One match: where and what. */
export interface PiiMatch {
  entity: PiiEntity;
  start: number;
  end: number;
}

interface Detector {
  entity: PiiEntity;
  /** Global regex; group 1, when present, is the value (the rest is context). */
  pattern: RegExp;
  /** A cheap test that must pass before the regex runs (a character the value must contain). */
  hint?: (text: string) => boolean;
  valid?: (value: string, text: string, start: number) => boolean;
}

const digitsOf = (s: string) => s.replace(/\D/g, '');

export function luhn(digits: string): boolean {
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

/** Issuer prefixes of the major card networks (Visa, Mastercard, Amex, Discover, JCB, Diners, UnionPay, Maestro). */
const CARD_PREFIX = /^(?:4|5[1-5]|2[2-7]|3[47]|6011|65|64[4-9]|35|30[0-5]|36|38|62|5018|5020|5038|6304|67)/;

function validCard(value: string): boolean {
  const d = digitsOf(value);
  if (d.length < 13 || d.length > 19) return false;
  if (!CARD_PREFIX.test(d)) return false;
  if (/^(\d)\1+$/.test(d)) return false;
  return luhn(d);
}

/** IBAN lengths of the countries that use one most (ISO 13616 registry). */
const IBAN_LENGTHS: Record<string, number> = {
  AD: 24,
  AT: 20,
  BE: 16,
  BG: 22,
  CH: 21,
  CY: 28,
  CZ: 24,
  DE: 22,
  DK: 18,
  EE: 20,
  ES: 24,
  FI: 18,
  FR: 27,
  GB: 22,
  GR: 27,
  HR: 21,
  HU: 28,
  IE: 22,
  IS: 26,
  IT: 27,
  LI: 21,
  LT: 20,
  LU: 20,
  LV: 21,
  MC: 27,
  MT: 31,
  NL: 18,
  NO: 15,
  PL: 28,
  PT: 25,
  RO: 24,
  SE: 24,
  SI: 19,
  SK: 24,
  SM: 27,
  TR: 26,
  AE: 23,
  SA: 24,
  IL: 23,
  BR: 29,
  QA: 29,
  UA: 29,
};

export function validIban(value: string): boolean {
  const iban = value.replace(/[\s-]/g, '').toUpperCase();
  const expected = IBAN_LENGTHS[iban.slice(0, 2)];
  if (expected === undefined || iban.length !== expected) return false;
  const moved = iban.slice(4) + iban.slice(0, 4);
  let remainder = 0;
  for (const ch of moved) {
    const code = ch.charCodeAt(0);
    const n = code >= 65 ? code - 55 : code - 48;
    if (n < 0 || n > 35) return false;
    remainder = n > 9 ? (remainder * 100 + n) % 97 : (remainder * 10 + n) % 97;
  }
  return remainder === 1;
}

function validSsn(value: string): boolean {
  const [area, group, serial] = value.split('-');
  if (!area || !group || !serial) return false;
  if (area === '000' || area === '666' || area[0] === '9') return false;
  return group !== '00' && serial !== '0000';
}

const DNI_LETTERS = 'TRWAGMYFPDXBNJZSQVHLCKE';
function validDni(value: string): boolean {
  const v = value.toUpperCase().replace(/[\s-]/g, '');
  let num = v.slice(0, -1);
  const first = num[0];
  if (first === 'X') num = `0${num.slice(1)}`;
  else if (first === 'Y') num = `1${num.slice(1)}`;
  else if (first === 'Z') num = `2${num.slice(1)}`;
  return DNI_LETTERS[Number(num) % 23] === v.at(-1);
}

function validCpf(value: string): boolean {
  const d = digitsOf(value);
  if (d.length !== 11 || /^(\d)\1+$/.test(d)) return false;
  for (const len of [9, 10]) {
    let sum = 0;
    for (let i = 0; i < len; i++) sum += Number(d[i]) * (len + 1 - i);
    const check = ((sum * 10) % 11) % 10;
    if (check !== Number(d[len])) return false;
  }
  return true;
}

function validSin(value: string): boolean {
  const d = digitsOf(value);
  return d.length === 9 && d[0] !== '0' && d[0] !== '8' && luhn(d);
}

// Verhoeff tables (Aadhaar's check digit).
const V_D = [
  [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
  [1, 2, 3, 4, 0, 6, 7, 8, 9, 5],
  [2, 3, 4, 0, 1, 7, 8, 9, 5, 6],
  [3, 4, 0, 1, 2, 8, 9, 5, 6, 7],
  [4, 0, 1, 2, 3, 9, 5, 6, 7, 8],
  [5, 9, 8, 7, 6, 0, 4, 3, 2, 1],
  [6, 5, 9, 8, 7, 1, 0, 4, 3, 2],
  [7, 6, 5, 9, 8, 2, 1, 0, 4, 3],
  [8, 7, 6, 5, 9, 3, 2, 1, 0, 4],
  [9, 8, 7, 6, 5, 4, 3, 2, 1, 0],
];
const V_P = [
  [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
  [1, 5, 7, 6, 2, 8, 3, 0, 9, 4],
  [5, 8, 0, 3, 7, 9, 6, 1, 4, 2],
  [8, 9, 1, 6, 0, 4, 3, 5, 2, 7],
  [9, 4, 5, 3, 1, 2, 6, 8, 7, 0],
  [4, 2, 8, 6, 5, 7, 3, 9, 0, 1],
  [2, 7, 9, 3, 8, 0, 6, 4, 1, 5],
  [7, 0, 4, 6, 9, 1, 3, 2, 5, 8],
];
export function verhoeff(digits: string): boolean {
  let c = 0;
  const rev = digits.split('').reverse();
  for (let i = 0; i < rev.length; i++) c = V_D[c]![V_P[i % 8]![Number(rev[i])]!]!;
  return c === 0;
}

function validAadhaar(value: string): boolean {
  const d = digitsOf(value);
  return d.length === 12 && d[0] !== '0' && d[0] !== '1' && verhoeff(d);
}

function validIpv4(value: string): boolean {
  const parts = value.split('.');
  if (parts.length !== 4) return false;
  for (const p of parts) {
    if (p.length > 1 && p[0] === '0') return false;
    if (Number(p) > 255) return false;
  }
  return true;
}

/** Words that, just before a number, make it a reference rather than a phone number. */
const REFERENCE_WORDS =
  /\b(?:order|invoice|ref(?:erence)?|tracking|ticket|case|account|acct|po|sku|isbn|id|no\.?|number|lot|batch|serial|part|model|build|version|code)\s*[:#]?\s*$|#\s*$/i;

function validPhone(value: string, text: string, start: number): boolean {
  const d = digitsOf(value);
  if (d.length < 9 || d.length > 15) return false;
  // Dates and times are not numbers to call.
  if (/^\d{4}[-/.]\d{1,2}[-/.]\d{1,2}$/.test(value) || /^\d{1,2}[-/.]\d{1,2}[-/.]\d{2,4}$/.test(value))
    return false;
  // The shape of a US SSN is not a phone number, whatever its digits.
  if (/^\d{3}-\d{2}-\d{4}$/.test(value)) return false;
  if (REFERENCE_WORDS.test(text.slice(Math.max(0, start - 16), start))) return false;
  const international = value.startsWith('+') || value.startsWith('00');
  // Without a country code, a separator-free run of digits is more often an id than a phone.
  if (!international && !/[\s().-]/.test(value)) return false;
  return true;
}

/** Shannon entropy per character. */
export function entropy(s: string): number {
  const counts = new Map<number, number>();
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    counts.set(c, (counts.get(c) ?? 0) + 1);
  }
  let h = 0;
  for (const n of counts.values()) {
    const p = n / s.length;
    h -= p * Math.log2(p);
  }
  return h;
}

function highEntropy(value: string): boolean {
  if (value.length < 32) return false;
  if (!/[A-Z]/.test(value) || !/[a-z]/.test(value) || !/\d/.test(value)) return false;
  return entropy(value) >= 4.2;
}

const hasAt = (t: string) => t.includes('@');
const hasDigit = (t: string) => /\d/.test(t);
const hasDot = (t: string) => t.includes('.');

const DETECTORS: Detector[] = [
  {
    entity: 'private_key',
    pattern: /-----BEGIN (?:[A-Z]+ )*PRIVATE KEY-----[\s\S]*?-----END (?:[A-Z]+ )*PRIVATE KEY-----/g,
    hint: (t) => t.includes('-----BEGIN'),
  },
  {
    entity: 'jwt',
    pattern: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g,
    hint: (t) => t.includes('eyJ'),
  },
  {
    entity: 'api_key',
    // OpenAI/Anthropic (sk-…), AWS access keys, Google API keys, GitHub, GitLab, Slack, Stripe,
    // Hugging Face, npm, SendGrid, Twilio.
    pattern:
      /\b(?:sk-(?:proj-|ant-(?:api\d\d-)?)?[A-Za-z0-9_-]{20,}|(?:AKIA|ASIA)[0-9A-Z]{16}|AIza[0-9A-Za-z_-]{35}|gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{40,}|glpat-[A-Za-z0-9_-]{20,}|xox[abposr]-[A-Za-z0-9-]{10,}|(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}|hf_[A-Za-z0-9]{30,}|npm_[A-Za-z0-9]{36}|SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}|SK[0-9a-f]{32})\b/g,
  },
  {
    entity: 'email',
    pattern: /\b[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,24}\b/g,
    hint: hasAt,
  },
  {
    entity: 'iban',
    pattern: /\b[A-Z]{2}\d{2}(?:[ ]?[A-Z0-9]{4}){2,7}(?:[ ]?[A-Z0-9]{1,4})?\b/g,
    valid: validIban,
  },
  {
    entity: 'payment_card',
    pattern: /\b(?:\d[ -]?){12,18}\d\b/g,
    hint: hasDigit,
    valid: validCard,
  },
  { entity: 'us_ssn', pattern: /\b\d{3}-\d{2}-\d{4}\b/g, hint: hasDigit, valid: validSsn },
  {
    entity: 'uk_nino',
    pattern: /\b(?!BG|GB|KN|NK|NT|TN|ZZ)[A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z] ?\d{2} ?\d{2} ?\d{2} ?[A-D]\b/g,
    hint: hasDigit,
  },
  { entity: 'ca_sin', pattern: /\b\d{3}[- ]\d{3}[- ]\d{3}\b/g, hint: hasDigit, valid: validSin },
  { entity: 'es_dni', pattern: /\b[XYZ0-9]\d{7}-?[A-Z]\b/g, hint: hasDigit, valid: validDni },
  { entity: 'br_cpf', pattern: /\b\d{3}\.\d{3}\.\d{3}-\d{2}\b/g, hint: hasDigit, valid: validCpf },
  {
    entity: 'in_aadhaar',
    pattern: /(?<![\w-])[2-9]\d{3} ?\d{4} ?\d{4}(?![\w-])/g,
    hint: hasDigit,
    valid: validAadhaar,
  },
  {
    entity: 'it_fiscal_code',
    pattern: /\b[A-Z]{6}\d{2}[A-EHLMPR-T]\d{2}[A-Z]\d{3}[A-Z]\b/g,
    hint: hasDigit,
  },
  {
    entity: 'ip_address',
    pattern:
      /\b(?:\d{1,3}\.){3}\d{1,3}\b|\b(?:[0-9a-fA-F]{1,4}:){7}[0-9a-fA-F]{1,4}\b|\b(?:[0-9a-fA-F]{1,4}:){1,6}:(?:[0-9a-fA-F]{1,4}:?){1,6}\b/g,
    hint: (t) => hasDot(t) || t.includes(':'),
    valid: (v, text, start) =>
      v.includes(':')
        ? v.split(':').length >= 4
        : validIpv4(v) &&
          !/^(?:0\.0\.0\.0|127\.)/.test(v) &&
          !/(?:v|version|section|chapter|§)\s*$/i.test(text.slice(Math.max(0, start - 10), start)),
  },
  {
    entity: 'phone',
    pattern:
      /(?<![\w#/.-])(?:(?:\+|00)\d{1,3}[ .-]?)?(?:\(\d{2,4}\)[ .-]?)?\d{1,5}(?:[ .-]\d{2,8}){1,4}(?![\w/-])|(?<![\w#])\+\d{8,15}\b/g,
    hint: hasDigit,
    valid: validPhone,
  },
  {
    entity: 'secret_token',
    pattern: /[A-Za-z0-9+/_=-]{32,}/g,
    valid: highEntropy,
  },
];

/** Finds PII in one text: non-overlapping matches, the earlier detectors (secrets first) winning. */
export function detectPii(text: string, entities: ReadonlySet<PiiEntity> = ALL_SET): PiiMatch[] {
  const matches: PiiMatch[] = [];
  for (const d of DETECTORS) {
    if (!entities.has(d.entity)) continue;
    if (d.hint && !d.hint(text)) continue;
    d.pattern.lastIndex = 0;
    for (let m = d.pattern.exec(text); m !== null; m = d.pattern.exec(text)) {
      const value = m[0];
      const start = m.index;
      const end = start + value.length;
      if (d.valid && !d.valid(value.trim(), text, start)) continue;
      if (matches.some((x) => start < x.end && end > x.start)) continue;
      matches.push({ entity: d.entity, start, end });
    }
  }
  return matches.sort((a, b) => a.start - b.start);
}

const ALL_SET: ReadonlySet<PiiEntity> = new Set(ALL_PII_ENTITIES);

export type PiiAction = 'redact' | 'mask' | 'hash' | 'block';

export interface PiiGuardrailOptions {
  name?: string;
  /** What to look for (default: every entity). */
  entities?: readonly PiiEntity[];
  /** `redact` (default): `[EMAIL]`; `mask`: keeps the last 4 characters; `hash`: a salted SHA-256 tag; `block`: tripwire. */
  action?: PiiAction;
  /** Per-entity actions overriding `action` (e.g. block private keys, mask cards). */
  actions?: Partial<Record<PiiEntity, PiiAction>>;
  /** Salt of `hash` (so the same value gives the same tag inside one deployment only). */
  salt?: string;
  /** Points it checks when placed where every point is possible (default: all). */
  points?: readonly GuardrailPoint[];
}

function mask(value: string): string {
  const keep = value.replace(/[\s-]/g, '').slice(-4);
  return `${'*'.repeat(Math.max(4, value.replace(/[\s-]/g, '').length - 4))}${keep}`;
}

async function hashTag(entity: PiiEntity, value: string, salt: string): Promise<string> {
  const bytes = new TextEncoder().encode(`${salt}\u0000${value}`);
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
  let hex = '';
  for (let i = 0; i < 6; i++) hex += (digest[i] as number).toString(16).padStart(2, '0');
  return `[${entity.toUpperCase()}:${hex}]`;
}

/**
 * The PII and secrets guardrail: finds the entities in every text of the subject (message, answer,
 * arguments, results) and redacts, masks, hashes or blocks them. Findings name kinds and counts,
 * never values.
 */
export function piiGuardrail(options: PiiGuardrailOptions = {}): Guardrail {
  const entities = new Set(options.entities ?? ALL_PII_ENTITIES);
  const action = options.action ?? 'redact';
  const perEntity = options.actions ?? {};
  const salt = options.salt ?? '';
  const actionOf = (e: PiiEntity) => perEntity[e] ?? action;
  const needsHash = action === 'hash' || Object.values(perEntity).includes('hash');
  return {
    name: options.name ?? 'pii',
    ...(options.points ? { points: options.points } : {}),
    async check(subject): Promise<GuardrailResult | undefined> {
      const value = subjectValue(subject);
      const found = new FindingCounter();
      const hashes = new Map<string, string>();
      if (needsHash) {
        // Hash tags are computed first (Web Crypto is asynchronous), then substituted.
        for (const text of collectStrings(value))
          for (const m of detectPii(text, entities))
            if (actionOf(m.entity) === 'hash') {
              const v = text.slice(m.start, m.end);
              if (!hashes.has(v)) hashes.set(v, await hashTag(m.entity, v, salt));
            }
      }
      let blocked: PiiEntity | undefined;
      const rewritten = mapStrings(value, (text) => {
        const matches = detectPii(text, entities);
        if (matches.length === 0) return text;
        let out = '';
        let at = 0;
        for (const m of matches) {
          const v = text.slice(m.start, m.end);
          const a = actionOf(m.entity);
          found.add(m.entity);
          if (a === 'block') blocked ??= m.entity;
          out += text.slice(at, m.start);
          out +=
            a === 'mask'
              ? mask(v)
              : a === 'hash'
                ? (hashes.get(v) ?? `[${m.entity.toUpperCase()}]`)
                : `[${m.entity.toUpperCase()}]`;
          at = m.end;
        }
        return out + text.slice(at);
      });
      if (blocked)
        return {
          action: 'tripwire',
          reason: `personal data or a secret found (${found.entities().join(', ')})`,
          details: { findings: found.list() },
        };
      return rewriteOrPass(value, rewritten, found);
    },
  };
}
