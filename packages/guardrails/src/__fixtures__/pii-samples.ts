// Labelled PII samples written for this project: positives built by generators (valid check digits)
// placed in sentences, negatives hand-written near-misses (order numbers, dates, versions, ids).
import type { PiiEntity } from '../pii.js';

export interface PiiSample {
  text: string;
  /** Entities a correct detector finds (empty: none). */
  expected: PiiEntity[];
}

/** A small seeded PRNG (mulberry32), so the set is the same on every run. */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const rand = rng(20261128);
const digit = () => String(Math.floor(rand() * 10));
const digits = (n: number) => Array.from({ length: n }, digit).join('');
const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)] as T;
const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const alnum = (n: number) => Array.from({ length: n }, () => pick(ALNUM.split(''))).join('');

function luhnDigit(body: string): string {
  for (let d = 0; d < 10; d++) {
    const s = body + d;
    let sum = 0;
    let double = false;
    for (let i = s.length - 1; i >= 0; i--) {
      let n = Number(s[i]);
      if (double) {
        n *= 2;
        if (n > 9) n -= 9;
      }
      sum += n;
      double = !double;
    }
    if (sum % 10 === 0) return String(d);
  }
  return '0';
}

function card(prefix: string, length: number, style: 'space' | 'dash' | 'plain'): string {
  const body = prefix + digits(length - prefix.length - 1);
  const full = body + luhnDigit(body);
  if (style === 'plain') return full;
  const sep = style === 'space' ? ' ' : '-';
  return length === 15
    ? `${full.slice(0, 4)}${sep}${full.slice(4, 10)}${sep}${full.slice(10)}`
    : (full.match(/.{1,4}/g) ?? []).join(sep);
}

function mod97(s: string): number {
  let r = 0;
  for (const ch of s) {
    const n = ch >= 'A' ? ch.charCodeAt(0) - 55 : Number(ch);
    r = n > 9 ? (r * 100 + n) % 97 : (r * 10 + n) % 97;
  }
  return r;
}

function iban(country: string, bbanLength: number, spaced: boolean): string {
  const bban = digits(bbanLength);
  const check = String(98 - mod97(`${bban}${country}00`)).padStart(2, '0');
  const raw = `${country}${check}${bban}`;
  return spaced ? (raw.match(/.{1,4}/g) ?? []).join(' ') : raw;
}

function ssn(): string {
  const area = String(1 + Math.floor(rand() * 665)).padStart(3, '0');
  const group = String(1 + Math.floor(rand() * 98)).padStart(2, '0');
  const serial = String(1 + Math.floor(rand() * 9998)).padStart(4, '0');
  return `${area}-${group}-${serial}`;
}

function cpf(): string {
  const d = digits(9).split('').map(Number);
  for (const len of [9, 10]) {
    let sum = 0;
    for (let i = 0; i < len; i++) sum += (d[i] as number) * (len + 1 - i);
    d.push(((sum * 10) % 11) % 10);
  }
  const s = d.join('');
  return `${s.slice(0, 3)}.${s.slice(3, 6)}.${s.slice(6, 9)}-${s.slice(9)}`;
}

function sin(): string {
  const body = String(1 + Math.floor(rand() * 7)) + digits(7);
  const s = body + luhnDigit(body);
  return `${s.slice(0, 3)}-${s.slice(3, 6)}-${s.slice(6)}`;
}

const DNI_LETTERS = 'TRWAGMYFPDXBNJZSQVHLCKE';
function dni(): string {
  const n = digits(8);
  return `${n}${DNI_LETTERS[Number(n) % 23]}`;
}

// Verhoeff check digit for Aadhaar-format numbers.
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
function aadhaar(): string {
  const body = String(2 + Math.floor(rand() * 8)) + digits(10);
  for (let d = 0; d < 10; d++) {
    const s = body + d;
    let c = 0;
    const rev = s.split('').reverse();
    for (let i = 0; i < rev.length; i++) c = V_D[c]![V_P[i % 8]![Number(rev[i])]!]!;
    if (c === 0) return `${s.slice(0, 4)} ${s.slice(4, 8)} ${s.slice(8)}`;
  }
  return body;
}

function nino(): string {
  const first = pick('ABCEGHJKLMNPRSTWXYZ'.split(''));
  const second = pick('ABCEGHJKLMNPRSTWXYZ'.split(''));
  const prefix = `${first}${second}`;
  const safe = ['BG', 'GB', 'KN', 'NK', 'NT', 'TN', 'ZZ'].includes(prefix) ? 'AB' : prefix;
  return `${safe} ${digits(2)} ${digits(2)} ${digits(2)} ${pick(['A', 'B', 'C', 'D'])}`;
}

function b64url(s: string): string {
  return btoa(s).replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_');
}

const NAMES = ['ana', 'li.wei', 'j.smith', 'marta_r', 'k.osei', 'priya+news', 'tom', 'sofia.m'];
const DOMAINS = ['example.com', 'mail.example.org', 'corp.example.net', 'uni.example.edu', 'example.co.uk'];
const SENTENCES: [string, string][] = [
  ['Please charge ', ' for the order.'],
  ['my details: ', ''],
  ['Here it is -> ', ' <- keep it safe'],
  ['', ' is what I have on file.'],
  ['Can you update the record to ', '? Thanks'],
  ['The customer wrote: "use ', ' please"'],
];
const wrap = (value: string) => {
  const [a, b] = pick(SENTENCES);
  return `${a}${value}${b}`;
};

function positives(): PiiSample[] {
  const out: PiiSample[] = [];
  const add = (entity: PiiEntity, value: string) => out.push({ text: wrap(value), expected: [entity] });
  const cards: [string, number][] = [
    ['4', 16],
    ['51', 16],
    ['55', 16],
    ['2221', 16],
    ['34', 15],
    ['37', 15],
    ['6011', 16],
    ['35', 16],
  ];
  for (let i = 0; i < 16; i++) {
    const [p, n] = cards[i % cards.length] as [string, number];
    add('payment_card', card(p, n, (['space', 'dash', 'plain'] as const)[i % 3] as 'space'));
  }
  const ibans: [string, number][] = [
    ['DE', 18],
    ['GB', 18],
    ['FR', 23],
    ['NL', 14],
    ['ES', 20],
    ['IT', 23],
    ['BE', 12],
    ['CH', 17],
  ];
  // GB and NL carry letters in their bank code; digits-only BBANs are still valid checksums.
  for (let i = 0; i < 12; i++) {
    const [c, n] = ibans[i % ibans.length] as [string, number];
    add('iban', iban(c, n, i % 2 === 0));
  }
  for (let i = 0; i < 12; i++) add('email', `${pick(NAMES)}@${pick(DOMAINS)}`);
  const phones = [
    () => `+1 (${digits(3).replace(/^[01]/, '5')}) ${digits(3)}-${digits(4)}`,
    () => `+44 20 ${digits(4)} ${digits(4)}`,
    () => `+49 30 ${digits(8)}`,
    () => `(${digits(3).replace(/^[01]/, '4')}) ${digits(3)}-${digits(4)}`,
    () => `${digits(3).replace(/^[01]/, '6')}-${digits(3)}-${digits(4)}`,
    () => `+33 6 ${digits(2)} ${digits(2)} ${digits(2)} ${digits(2)}`,
    () => `+91 ${digits(5)} ${digits(5)}`,
    () => `0044 7${digits(3)} ${digits(6)}`,
  ];
  for (let i = 0; i < 14; i++) add('phone', (phones[i % phones.length] as () => string)());
  for (let i = 0; i < 10; i++) add('us_ssn', ssn());
  for (let i = 0; i < 6; i++) add('uk_nino', nino());
  for (let i = 0; i < 6; i++) add('ca_sin', sin());
  for (let i = 0; i < 6; i++) add('es_dni', dni());
  for (let i = 0; i < 6; i++) add('br_cpf', cpf());
  for (let i = 0; i < 6; i++) add('in_aadhaar', aadhaar());
  for (const cf of ['RSSMRA85T10A562S', 'BNCLRA90E45F205Z', 'VRDGPP70A01H501X', 'CNTFNC88C22L219K'])
    add('it_fiscal_code', cf);
  for (let i = 0; i < 8; i++)
    add(
      'ip_address',
      i % 4 === 3
        ? `2001:db8:${alnum(4).toLowerCase().replace(/[g-z]/g, 'a')}::${Math.floor(rand() * 9000 + 1000)}`
        : `${Math.floor(rand() * 223) + 1}.${Math.floor(rand() * 256)}.${Math.floor(rand() * 256)}.${Math.floor(rand() * 254) + 1}`,
    );
  const keys = [
    () => `sk-proj-${alnum(48)}`,
    () => `sk-ant-api03-${alnum(40)}`,
    () => `AKIA${alnum(16).toUpperCase().replace(/[a-z]/g, 'Q')}`,
    () => `AIza${alnum(35)}`,
    () => `ghp_${alnum(36)}`,
    () => `xoxb-${digits(12)}-${digits(12)}-${alnum(24)}`,
    () => `sk_live_${alnum(24)}`,
    () => `glpat-${alnum(20)}`,
    () => `hf_${alnum(34)}`,
    () => `npm_${alnum(36)}`,
  ];
  for (let i = 0; i < 14; i++) add('api_key', (keys[i % keys.length] as () => string)());
  for (let i = 0; i < 6; i++) {
    const header = b64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));
    const payload = b64url(JSON.stringify({ sub: digits(8), name: pick(NAMES), iat: 1700000000 + i }));
    add('jwt', `${header}.${payload}.${alnum(43)}`);
  }
  for (let i = 0; i < 4; i++)
    add(
      'private_key',
      `-----BEGIN ${i % 2 ? 'RSA ' : ''}PRIVATE KEY-----\n${alnum(64)}\n${alnum(64)}\n-----END ${i % 2 ? 'RSA ' : ''}PRIVATE KEY-----`,
    );
  for (let i = 0; i < 8; i++) add('secret_token', `${alnum(20)}${digits(4)}${alnum(16)}`);
  // Two entities in one text.
  for (let i = 0; i < 6; i++)
    out.push({
      text: `Contact ${pick(NAMES)}@${pick(DOMAINS)} and bill ${card('4', 16, 'space')}.`,
      expected: ['email', 'payment_card'],
    });
  return out;
}

/** Near-misses: things that look like PII and are not. */
const NEGATIVES: string[] = [
  'Your order #4111-2222-3333 has shipped.',
  'Order number 1234567890123456 is on its way.',
  'Invoice INV-2024-000123 is due on 2024-03-15.',
  'The meeting is on 15/03/2024 at 10:30.',
  'Timestamp: 2024-01-15T10:30:00Z',
  'Tracking number 1Z999AA10123456784',
  'The card ending 4242 was declined.',
  'Card 4111 1111 1111 1112 failed the check digit.',
  'Try 1234 5678 9012 3456 as a test value.',
  'IBAN DE00 1234 5678 9012 3456 78 has a wrong checksum.',
  'Reference GB99XXXX00000000000000',
  'SSN format is XXX-XX-XXXX.',
  'The code 000-12-3456 is not a real SSN.',
  'Call 911 in an emergency.',
  'Room 1204, building 7.',
  'Population: 1,234,567 people.',
  'It costs $1,299.99 or €1.099,00.',
  'Upgrade to version 1.2.3.4 today.',
  'Use v10.0.0.1 of the firmware.',
  'ISBN 978-3-16-148410-0',
  'The commit 3f2a9c1e4b5d6f7a8b9c0d1e2f3a4b5c6d7e8f90 fixed it.',
  'Request id 550e8400-e29b-41d4-a716-446655440000',
  'Colour #ff8800 looks good.',
  'Pi is 3.14159265358979.',
  'Coordinates 48.8566, 2.3522',
  'The task-list is long and the desk-lamp is broken.',
  'My skills: sk-learning and sk-etching.',
  'Send it to the team at the office.',
  'Email me at name at example dot com.',
  'The @mention feature works in channels.',
  'Score was 12-10 in the final.',
  'Lot 2024-0567-89 expired.',
  'Serial SN-000123456789',
  'Part number 12-3456-7890-12',
  'Zip code 94103 and 10001.',
  'Flight BA 2490 leaves at 18:45.',
  'Bank holiday on 25.12.2024.',
  'Chapter 3.2.1 explains it.',
  'The ratio is 16:9 on screen.',
  'Temperature 21.5 °C.',
  'My username is alice_1990.',
  'The password must be 12 characters long.',
  'Call me tomorrow at noon.',
  'Build 20240315.1 passed.',
  'Error code 0x80070005.',
  'Ticket #123-456-7890 was closed.',
  'Case number 555-123-4567 is open.',
  'Account no. 12345678 is closed.',
  'Page 212 of 500.',
  'The year 2023 was busy; 2024 more so.',
  'Matrix 1 2 3 4 5 6 7 8 9 10 11 12 13',
  'Values: 10, 20, 30, 40, 50, 60.',
  'Date range 2024-01-01 to 2024-12-31.',
  'Phone extension 4521.',
  'The recipe needs 250 g flour and 2 eggs.',
  'Use localhost:8080 for development.',
  'Docker image node:22-alpine',
  'Version string 22.11.0',
  'The base64 word aGVsbG8= means hello.',
  'eyJ is how a base64 JSON object starts.',
  'The AWS region eu-west-1 is closest.',
  'Set LOG_LEVEL=debug for more.',
  'A lowercase hex digest: 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
  'The UUID 123e4567-e89b-12d3-a456-426614174000 identifies it.',
  'Train 4821 departs from platform 9.',
  'HTTP 404 and 500 errors were logged.',
  'The sum is 1 + 2 + 3 = 6.',
  'Grade: 95/100.',
  'CVE-2024-3094 affected xz.',
  'RFC 9110 defines HTTP semantics.',
  'See section 4.5.6.7 of the spec.',
  'Apartment 12B, floor 3.',
  'The box weighs 12.345 kg.',
  'Budget 2024: 1 500 000 EUR.',
  'Invoice total 4 111 EUR.',
  'Tel.: see the website.',
  'Price list 2024-Q1-0042.',
  'Order ORD-5555-4444-3333-2222 confirmed.',
  'Batch 0000 0000 0000 0000',
  'The PIN is four digits long.',
  'Ask the help desk about your SIN card renewal process.',
  'She studied at MIT from 2010 to 2014.',
  'The function returns 0.0.0.0 on failure.',
  'Ports 8080-8090 are open.',
  'Meeting ID 845 2231 9087',
  'Gate A12, seat 14C.',
  'Tax year 2023/2024.',
  'Model gpt-4o-mini is cheaper.',
  'Her handle is @ana_dev on the forum.',
  'A short token abc123 is not a secret.',
  'Math: 12345678 * 9 = 111111102.',
  'The number 4000 appears twice: 4000 and 4000.',
  'Postcode SW1A 1AA is Westminster.',
  'The DNI format has 8 digits and a letter.',
  'CPF has eleven digits with two check digits.',
  'Call extension 2-1234 for support.',
  'Quantity: 1 2 3 4',
  'Revision r1234567 merged.',
  'Product key XXXXX-XXXXX-XXXXX-XXXXX-XXXXX',
  'Hash prefix sha256: only.',
  'Lorem ipsum dolor sit amet, consectetur adipiscing elit.',
];

export const PII_SAMPLES: PiiSample[] = [
  ...positives(),
  ...NEGATIVES.map((text) => ({ text, expected: [] as PiiEntity[] })),
];
