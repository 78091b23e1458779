import {
  type ConnectOptions,
  type Content,
  type FunctionDeclaration,
  type GenerateOptions,
  isDynamicInstructionContent,
  isOtherAgentContext,
  type Llm,
  type LlmConnection,
  type LlmRequest,
  type LlmResponse,
  newFunctionCallId,
} from '@adk/core';
import { sleep } from '@adk/core/http';
import { DEMO_HEARD_PHRASE, DemoLiveConnection } from './demo-live.js';

export interface DemoModelOptions {
  /** The name reported as the model (default 'adk-demo'). */
  model?: string;
  /** Pause between streamed tokens, in ms (default 25). */
  tokenDelayMs?: number;
  /** How long a "slow"/"long" reply streams for, in ms (default 10 000). */
  slowReplyMs?: number;
  /** Live sessions: what the demo "hears" in each spoken utterance (default a weather question). */
  heardPhrase?: string;
  /** Live sessions: send spoken audio at its playing speed (default true). */
  realtimeAudio?: boolean;
}

/** Said at the start of every text reply, so nobody mistakes the demo for a real model. */
export const DEMO_NOTICE = '[offline demo model: no API key is set]';

const TRANSFER = 'transfer_to_agent';
/** The tool an agent with an output schema and tools gets for its final answer (adk-python's name). */
const SET_MODEL_RESPONSE = 'set_model_response';
const STOPWORDS = new Set(
  'a an and are as at be by can do does for from get give how i in is it me my of on or please show tell that the this to was what when where which who why will with you your current returns return agent agents tool tools use user'.split(
    ' ',
  ),
);

type Plan =
  | { kind: 'text'; text: string; slow: boolean }
  | { kind: 'call'; name: string; args: Record<string, unknown> };

/**
 * An offline model for demos and tests of whole apps: it answers without a network, says plainly
 * that it is a demo, and streams its reply token by token. It can drive simple agents: it calls the
 * tool whose name or description best matches the user's words (arguments guessed from the
 * message), summarizes the tool's result, and transfers to the sub-agent whose name or description
 * matches. A message containing "slow" or "long" streams for about ten seconds, so a client can
 * stop a run midway. `connect` opens a live session with the same behaviour (see demo-live.ts).
 */
export class DemoModel implements Llm {
  readonly model: string;
  private readonly tokenDelayMs: number;
  private readonly slowReplyMs: number;
  private readonly heardPhrase: string;
  private readonly realtimeAudio: boolean;

  constructor(options: DemoModelOptions = {}) {
    this.model = options.model ?? 'adk-demo';
    this.tokenDelayMs = options.tokenDelayMs ?? 25;
    this.slowReplyMs = options.slowReplyMs ?? 10_000;
    this.heardPhrase = options.heardPhrase ?? DEMO_HEARD_PHRASE;
    this.realtimeAudio = options.realtimeAudio ?? true;
  }

  /**
   * A live session (see DemoLiveConnection): text answered like `generate`, speech "heard" as a
   * fixed phrase, answers spoken as tones with a transcription when the AUDIO modality is asked.
   */
  async connect(request: LlmRequest, options: ConnectOptions = {}): Promise<LlmConnection> {
    options.signal?.throwIfAborted();
    return new DemoLiveConnection(
      request,
      { tokenDelayMs: this.tokenDelayMs, heardPhrase: this.heardPhrase, realtimeAudio: this.realtimeAudio },
      options,
    );
  }

  async *generate(request: LlmRequest, options: GenerateOptions = {}): AsyncGenerator<LlmResponse> {
    const plan = planReply(request);
    const promptTokenCount = countTokens(
      `${request.systemInstruction ?? ''} ${request.contents.map(contentWords).join(' ')}`,
    );
    if (plan.kind === 'call') {
      await sleep(this.tokenDelayMs, options.signal);
      yield {
        content: {
          role: 'model',
          parts: [{ functionCall: { id: newFunctionCallId(), name: plan.name, args: plan.args } }],
        },
        finishReason: 'STOP',
        usageMetadata: usage(promptTokenCount, 8),
      };
      return;
    }
    const tokens = plan.text.match(/\s*\S+/g) ?? [plan.text];
    const delay = plan.slow
      ? Math.max(this.tokenDelayMs, Math.floor(this.slowReplyMs / tokens.length))
      : this.tokenDelayMs;
    if (options.stream) {
      for (const token of tokens) {
        await sleep(delay, options.signal);
        yield { content: { role: 'model', parts: [{ text: token }] }, partial: true };
      }
    } else {
      await sleep(plan.slow ? this.slowReplyMs : delay, options.signal);
    }
    yield {
      content: { role: 'model', parts: [{ text: plan.text }] },
      finishReason: 'STOP',
      turnComplete: true,
      usageMetadata: usage(promptTokenCount, tokens.length),
    };
  }
}

function usage(prompt: number, candidates: number) {
  return { promptTokenCount: prompt, candidatesTokenCount: candidates, totalTokenCount: prompt + candidates };
}

function countTokens(text: string): number {
  return text.split(/\s+/).filter(Boolean).length;
}

function contentWords(content: Content): string {
  return content.parts
    .map((p) => p.text ?? (p.functionCall || p.functionResponse ? JSON.stringify(p) : ''))
    .join(' ');
}

/** Another agent's turn re-phrased as context, or the instruction sent in contents: no user message. */
function isContext(content: Content): boolean {
  return isOtherAgentContext(content) || isDynamicInstructionContent(content);
}

function isUserMessage(content: Content): boolean {
  return (
    content.role === 'user' &&
    !isContext(content) &&
    content.parts.some((p) => p.text !== undefined && !p.thought)
  );
}

function textOf(content: Content | undefined): string {
  return (content?.parts ?? [])
    .filter((p) => p.text !== undefined && !p.thought)
    .map((p) => p.text)
    .join(' ')
    .trim();
}

function words(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length > 1 && !STOPWORDS.has(w));
}

/** Counts the distinct words of `candidate` that the message uses (a shared stem of 4+ letters counts). */
function score(message: string[], candidate: string): number {
  let n = 0;
  for (const w of new Set(words(candidate))) if (message.some((m) => sameWord(m, w))) n++;
  return n;
}

function sameWord(a: string, b: string): boolean {
  if (a === b) return true;
  const [short, long] = a.length <= b.length ? [a, b] : [b, a];
  return short.length >= 4 && long.startsWith(short.replace(/(es|s|e)$/, ''));
}

function agentName(request: LlmRequest): string | undefined {
  return /Your internal name is "([^"]+)"/.exec(request.systemInstruction ?? '')?.[1];
}

/** The agent's own instruction: what comes before the "You are an agent" line (ADK's order). */
function ownInstruction(request: LlmRequest): string | undefined {
  const system = request.systemInstruction ?? '';
  const i = system.startsWith('You are an agent.') ? 0 : system.indexOf('\n\nYou are an agent.');
  return i > 0 ? system.slice(0, i) : undefined;
}

export function planReply(request: LlmRequest): Plan {
  const contents = request.contents;
  const userIndex = contents.findLastIndex(isUserMessage);
  const message = textOf(contents[userIndex]);
  const since = contents.slice(userIndex + 1);
  const last = contents.at(-1);
  const name = agentName(request);
  const speaker = name ? ` (${name})` : '';

  // A tool answered: summarize what it returned.
  const responses = last?.parts.flatMap((p) => (p.functionResponse ? [p.functionResponse] : [])) ?? [];
  // An output schema with tools: the final answer is a set_model_response call, its arguments
  // taken from what the tools returned (and guessed from the message). Once: after a refusal, text.
  const answerTool = (request.tools ?? []).find((t) => t.name === SET_MODEL_RESPONSE);
  const refused = responses.some((r) => r.name === SET_MODEL_RESPONSE);
  if (answerTool && !refused && (responses.length > 0 || !hasMatchingTool(request, message))) {
    return { kind: 'call', name: SET_MODEL_RESPONSE, args: structuredArgs(answerTool, responses, message) };
  }
  if (responses.length > 0 && userIndex < contents.length - 1) {
    const lines = responses.map((r) => `- \`${r.name}\`: ${describeValue(r.response)}`);
    return {
      kind: 'text',
      text: `${DEMO_NOTICE}${speaker}\nHere is what the tool returned:\n${lines.join('\n')}`,
      slow: false,
    };
  }

  const asked = words(message);
  // Act once per user message: this agent's own call, or any transfer, since the message counts.
  const alreadyActed = since.some((c) => c.role === 'model' && c.parts.some((p) => p.functionCall));
  const transferred = since.some((c) => contentWords(c).includes(TRANSFER));
  const tools = (request.tools ?? []).filter((t) => t.name !== TRANSFER && t.name !== SET_MODEL_RESPONSE);
  const transfer = (request.tools ?? []).find((t) => t.name === TRANSFER);
  const arithmetic = /\d\s*[-+*/^%]\s*\(?\s*\d/.test(message);
  if (!alreadyActed && (asked.length > 0 || arithmetic)) {
    let best: { tool: FunctionDeclaration; score: number } | undefined;
    for (const tool of tools) {
      const about = `${tool.name.replace(/_/g, ' ')} ${tool.description ?? ''}`;
      // Arithmetic in the message is a strong hint for a calculator, whatever its words.
      const s =
        score(asked, about) + (arithmetic && /calculat|arithmetic|math|expression/i.test(about) ? 2 : 0);
      if (s > 0 && (!best || s > best.score)) best = { tool, score: s };
    }
    let target: { name: string; score: number } | undefined;
    if (transfer && !transferred) {
      for (const candidate of transferTargets(transfer, request)) {
        const description = targetDescription(request, candidate);
        const s = score(asked, `${candidate.replace(/_/g, ' ')} ${description}`);
        if (s > 0 && (!target || s > target.score)) target = { name: candidate, score: s };
      }
    }
    if (target && (!best || target.score > best.score)) {
      return { kind: 'call', name: TRANSFER, args: { agent_name: target.name } };
    }
    if (best) return { kind: 'call', name: best.tool.name, args: guessArgs(best.tool, message) };
  }

  const slow = /\b(slow|long)\b/i.test(message);
  const parts: string[] = [`${DEMO_NOTICE}${speaker}`];
  if (slow) {
    parts.push(
      `You asked for a long answer, so here is one that takes its time. ${'This sentence streams slowly, one word after another, so that you can stop the run before it ends. '.repeat(
        6,
      )}That is all.`,
    );
  } else {
    parts.push(message ? `You said: "${truncate(message, 200)}".` : 'Hello!');
    const instruction = ownInstruction(request);
    // Quoting the instruction shows what the agent was asked, including state it read ({key}).
    if (instruction) parts.push(`My instructions: "${truncate(withoutNotice(instruction), 200)}"`);
    if (tools.length > 0 && !alreadyActed)
      parts.push(`I can use these tools: ${tools.map((t) => t.name).join(', ')} — mention what you need.`);
  }
  return { kind: 'text', text: parts.join('\n'), slow };
}

/** The agents `transfer_to_agent` may name: its enum, else the ones the instruction lists. */
function transferTargets(tool: FunctionDeclaration, request: LlmRequest): string[] {
  const property = (tool.parameters?.properties as Record<string, { enum?: unknown[] }> | undefined)
    ?.agent_name;
  const listed = (property?.enum ?? []).filter((v): v is string => typeof v === 'string');
  if (listed.length > 0) return listed;
  return [...(request.systemInstruction ?? '').matchAll(/^Agent name: (.+)$/gm)].map((m) =>
    (m[1] ?? '').trim(),
  );
}

/** The description the transfer instructions give for a target ("Agent name:" / "Agent description:"). */
function targetDescription(request: LlmRequest, name: string): string {
  const lines = (request.systemInstruction ?? '').split('\n');
  const i = lines.indexOf(`Agent name: ${name}`);
  const line = i >= 0 ? lines[i + 1] : undefined;
  return line?.startsWith('Agent description: ') ? line.slice('Agent description: '.length) : '';
}

/** An earlier demo reply quoted again (e.g. through outputKey state) without its notice. */
function withoutNotice(text: string): string {
  return text
    .split(DEMO_NOTICE)
    .join('')
    .replace(/\s*\([A-Za-z_][A-Za-z0-9_]*\)\s*\n/g, ' ');
}

function truncate(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

function describeValue(value: unknown): string {
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.length === 1 && entries[0]?.[0] === 'result') return describeValue(entries[0][1]);
    return entries.map(([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`).join(', ');
  }
  return typeof value === 'string' ? value : JSON.stringify(value);
}

type PropertySchema = { type?: string | string[]; enum?: unknown[]; description?: string };

/** Arguments for a tool, guessed from the message and the parameter names and types. */
export function guessArgs(tool: FunctionDeclaration, message: string): Record<string, unknown> {
  const properties = (tool.parameters?.properties ?? {}) as Record<string, PropertySchema>;
  const required = new Set((tool.parameters?.required as string[] | undefined) ?? []);
  const numbers = [...message.matchAll(/-?\d+(?:\.\d+)?/g)].map((m) => Number(m[0]));
  const args: Record<string, unknown> = {};
  for (const [key, schema] of Object.entries(properties)) {
    const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
    const hint = `${key} ${schema.description ?? ''}`.toLowerCase();
    let value: unknown;
    if (schema.enum) {
      value =
        schema.enum.find((v) => typeof v === 'string' && message.toLowerCase().includes(v.toLowerCase())) ??
        (required.has(key) ? schema.enum[0] : undefined);
    } else if (type === 'number' || type === 'integer') {
      const n = numbers.shift();
      value = n === undefined ? undefined : type === 'integer' ? Math.trunc(n) : n;
    } else if (type === 'boolean') {
      value = required.has(key) ? /\b(yes|true|confirm)\b/i.test(message) : undefined;
    } else if (type === 'string' || type === undefined) {
      value = guessString(hint, message);
    }
    if (value === undefined && required.has(key))
      value = type === 'number' || type === 'integer' ? 0 : message;
    if (value !== undefined) args[key] = value;
  }
  return args;
}

function guessString(hint: string, message: string): string | undefined {
  if (/expression|formula|math|calculat/.test(hint)) {
    const expression = message
      .match(/[-+*/().\d\s^%]{3,}/g)
      ?.map((m) => m.trim())
      .sort((a, b) => b.length - a.length)[0];
    if (expression) return expression;
  }
  if (/city|location|place|town|country|where/.test(hint)) {
    const place = /\b(?:in|for|at|of)\s+((?:[A-Z][\p{L}-]*)(?:\s+[A-Z][\p{L}-]*)*)/u.exec(message)?.[1];
    if (place) return place;
    const capitalized = message
      .match(/\b[A-Z][\p{L}-]+/gu)
      ?.filter((w, i) => i > 0 || message.indexOf(w) > 0);
    if (capitalized?.[0]) return capitalized[0];
  }
  if (/zone|timezone/.test(hint)) {
    const zone = /\b[A-Z][a-z]+\/[A-Z][A-Za-z_]+\b/.exec(message)?.[0];
    return zone;
  }
  if (/\bid\b|_id\b|identifier|number|code/.test(hint)) {
    const id = /\b[A-Za-z]*-?\d[\w-]*\b/.exec(message)?.[0];
    if (id) return id;
  }
  const quoted = /["“']([^"”']+)["”']/.exec(message)?.[1];
  if (quoted) return quoted;
  return undefined;
}

/** Whether some tool (not transfer or set_model_response) matches the message's words. */
function hasMatchingTool(request: LlmRequest, message: string): boolean {
  const asked = words(message);
  return (request.tools ?? []).some(
    (t) =>
      t.name !== TRANSFER &&
      t.name !== SET_MODEL_RESPONSE &&
      score(asked, `${t.name.replace(/_/g, ' ')} ${t.description ?? ''}`) > 0,
  );
}

/** A JSON Schema type check, enough for the values tools return. */
function fitsType(value: unknown, type: string | undefined): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number';
    case 'integer':
      return Number.isInteger(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'array':
      return Array.isArray(value);
    case 'object':
      return typeof value === 'object' && value !== null && !Array.isArray(value);
    default:
      return value !== undefined;
  }
}

/** set_model_response's arguments: each field from a tool result of the same name and type, else guessed. */
function structuredArgs(
  tool: FunctionDeclaration,
  responses: { response: Record<string, unknown> }[],
  message: string,
): Record<string, unknown> {
  const found = new Map<string, unknown>();
  for (const r of responses) {
    const result = r.response.result;
    const fields = result && typeof result === 'object' && !Array.isArray(result) ? result : r.response;
    for (const [k, v] of Object.entries(fields as Record<string, unknown>))
      if (!found.has(k)) found.set(k, v);
  }
  const properties = (tool.parameters?.properties ?? {}) as Record<string, PropertySchema>;
  const required = new Set((tool.parameters?.required as string[] | undefined) ?? []);
  const guessed = guessArgs(tool, message);
  const summary = responses.map((r) => describeValue(r.response)).join('; ') || message;
  const args: Record<string, unknown> = {};
  for (const [key, schema] of Object.entries(properties)) {
    const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
    const value = found.get(key);
    if (fitsType(value, type)) args[key] = value;
    else if (key in guessed && fitsType(guessed[key], type)) args[key] = guessed[key];
    else if (required.has(key))
      args[key] =
        type === 'number' || type === 'integer'
          ? 0
          : type === 'boolean'
            ? false
            : type === 'array'
              ? []
              : type === 'object'
                ? {}
                : summary;
  }
  return args;
}
