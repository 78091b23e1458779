import { tryParseJson } from '../utils/json.js';
import type { SchemaLike } from '../utils/zod.js';
import { ApiCallError } from './api-call-error.js';

/** One dispatched server-sent event. `data` joins multi-line `data:` fields with '\n'. */
export interface SseEvent {
  /** The `event:` field; undefined means the default type ("message"). */
  event?: string;
  data: string;
  id?: string;
  retry?: number;
}

/**
 * Incremental parser for the `text/event-stream` format (WHATWG HTML §9.2.6). Feed it text in any
 * chunking; it handles LF, CR and CRLF line ends (also a CRLF split across two chunks), comments,
 * multi-line data and a leading BOM. An event still pending when the stream ends is discarded, as
 * the spec requires (it was cut off).
 */
export class SseParser {
  private buffer = '';
  private skipLeadingLf = false;
  private started = false;
  /** The data lines so far, joined with '\n'. */
  private data = '';
  private event: string | undefined;
  private id: string | undefined;
  private retry: number | undefined;
  private hasData = false;

  /** Parses a chunk of text and returns the events it completed. */
  feed(chunk: string): SseEvent[] {
    let text = chunk;
    if (!this.started && text.length > 0) {
      this.started = true;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    if (this.skipLeadingLf && text.startsWith('\n')) text = text.slice(1);
    this.skipLeadingLf = false;
    this.buffer += text;

    const events: SseEvent[] = [];
    const buffer = this.buffer;
    let start = 0;
    // Line breaks are found with indexOf (native), not a per-character loop.
    let lf = buffer.indexOf('\n', start);
    let cr = buffer.indexOf('\r', start);
    // Without any CR (the usual stream), only LFs end lines.
    while (cr === -1 && lf !== -1) {
      this.readLine(buffer, start, lf, events);
      start = lf + 1;
      lf = buffer.indexOf('\n', start);
    }
    while (lf !== -1 || cr !== -1) {
      let end: number;
      let next: number;
      if (cr === -1 || (lf !== -1 && lf < cr)) {
        end = lf;
        next = lf + 1;
      } else {
        end = cr;
        if (cr + 1 < buffer.length) next = buffer.charCodeAt(cr + 1) === 10 ? cr + 2 : cr + 1;
        else {
          // CR at the end of the chunk: a following LF belongs to the same line break.
          this.skipLeadingLf = true;
          next = cr + 1;
        }
      }
      this.readLine(buffer, start, end, events);
      start = next;
      if (lf !== -1 && lf < start) lf = buffer.indexOf('\n', start);
      if (cr !== -1 && cr < start) cr = buffer.indexOf('\r', start);
    }
    this.buffer = start === 0 ? buffer : buffer.slice(start);
    return events;
  }

  /**
   * The line `buffer[start, end)`. The usual lines (`data: …`, `event: …`, the blank line) are read
   * in place, without first cutting the line out of the buffer.
   */
  private readLine(buffer: string, start: number, end: number, events: SseEvent[]): void {
    if (end === start) {
      const event = this.dispatch();
      if (event) events.push(event);
    } else if (buffer.startsWith('data: ', start)) {
      this.addData(buffer.slice(start + 6, end));
    } else if (buffer.startsWith('event: ', start)) {
      this.event = buffer.slice(start + 7, end);
    } else {
      const event = this.processLine(buffer.slice(start, end));
      if (event) events.push(event);
    }
  }

  private processLine(line: string): SseEvent | undefined {
    if (line === '') return this.dispatch();
    // The usual line, `data: …`, without the generic field split.
    if (line.startsWith('data: ')) {
      this.addData(line.slice(6));
      return undefined;
    }
    if (line.startsWith(':')) return undefined;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    switch (field) {
      case 'data':
        this.addData(value);
        break;
      case 'event':
        this.event = value;
        break;
      case 'id':
        if (!value.includes('\0')) this.id = value;
        break;
      case 'retry':
        if (/^\d+$/.test(value)) this.retry = Number(value);
        break;
      default:
        break;
    }
    return undefined;
  }

  private addData(value: string): void {
    this.data = this.hasData ? `${this.data}\n${value}` : value;
    this.hasData = true;
  }

  private dispatch(): SseEvent | undefined {
    const hasData = this.hasData;
    const type = this.event;
    // One object literal per shape (no property added afterwards, which would change its shape).
    const event: SseEvent =
      type !== undefined && type !== '' ? { data: this.data, event: type } : { data: this.data };
    if (this.id !== undefined) event.id = this.id;
    if (this.retry !== undefined) event.retry = this.retry;
    this.data = '';
    this.hasData = false;
    this.event = undefined;
    this.retry = undefined;
    // Per spec an event with an empty data buffer is not dispatched.
    return hasData ? event : undefined;
  }
}

/** Reads a byte stream (a fetch body) as server-sent events. */
export async function* parseSseStream(
  stream: ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>,
): AsyncGenerator<SseEvent> {
  const parser = new SseParser();
  const decoder = new TextDecoder();
  for await (const chunk of stream as AsyncIterable<Uint8Array>) {
    for (const event of parser.feed(decoder.decode(chunk, { stream: true }))) yield event;
  }
  const rest = decoder.decode();
  if (rest) for (const event of parser.feed(rest)) yield event;
}

export interface JsonSseEvent<T> {
  event?: string;
  value: T;
}

/**
 * Parses each event's data as JSON (validated with `schema` when given), skipping `[DONE]` and
 * ending there. Invalid JSON or a schema mismatch becomes an {@link ApiCallError} with failure
 * 'invalid-response', never a crash.
 */
export async function* parseJsonEventStream<T = unknown>(
  events: AsyncIterable<SseEvent>,
  options: { url: string; schema?: SchemaLike<T> },
): AsyncGenerator<JsonSseEvent<T>> {
  for await (const sse of events) {
    const decoded = decodeJsonEvent(sse, options);
    if (decoded === DONE) return;
    if (decoded !== SKIP) yield decoded;
  }
}

/**
 * {@link parseSseStream} and {@link parseJsonEventStream} in one loop: the same results with one
 * async step per event instead of three (this is the hot path of every streamed model call).
 */
export async function* parseJsonSseStream<T = unknown>(
  stream: ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>,
  options: { url: string; schema?: SchemaLike<T> },
): AsyncGenerator<JsonSseEvent<T>> {
  const parser = new SseParser();
  const decoder = new TextDecoder();
  for await (const chunk of stream as AsyncIterable<Uint8Array>) {
    for (const sse of parser.feed(decoder.decode(chunk, { stream: true }))) {
      const decoded = decodeJsonEvent(sse, options);
      if (decoded === DONE) return;
      if (decoded !== SKIP) yield decoded;
    }
  }
  const rest = decoder.decode();
  if (rest) {
    for (const sse of parser.feed(rest)) {
      const decoded = decodeJsonEvent(sse, options);
      if (decoded === DONE) return;
      if (decoded !== SKIP) yield decoded;
    }
  }
}

/**
 * {@link parseJsonSseStream}, yielding the events of each network chunk together: one async step per
 * chunk instead of one per event, for a provider's hot loop (it still yields one response per event).
 * The first events of a stream go out in batches of 1, 2, 4, … (and the head of the first chunk is
 * parsed before its rest), so the first response never waits for a whole network chunk — often
 * 64 KiB, hundreds of events — to be parsed.
 */
export async function* parseJsonSseBatches<T = unknown>(
  stream: ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>,
  options: { url: string; schema?: SchemaLike<T> },
): AsyncGenerator<JsonSseEvent<T>[]> {
  const parser = new SseParser();
  const decoder = new TextDecoder();
  let batch: JsonSseEvent<T>[] = [];
  // Events per batch while the stream starts; it doubles after each batch up to a whole chunk.
  let limit = 1;
  for await (const chunk of stream as AsyncIterable<Uint8Array>) {
    const text = decoder.decode(chunk, { stream: true });
    const pieces =
      limit <= STARTUP_BATCH_LIMIT && text.length > FIRST_PIECE_CHARS
        ? [text.slice(0, FIRST_PIECE_CHARS), text.slice(FIRST_PIECE_CHARS)]
        : [text];
    for (const piece of pieces) {
      for (const sse of parser.feed(piece)) {
        const decoded = decodeJsonEvent(sse, options);
        if (decoded === DONE) {
          if (batch.length > 0) yield batch;
          return;
        }
        if (decoded === SKIP) continue;
        batch.push(decoded);
        if (batch.length >= limit) {
          yield batch;
          batch = [];
          limit = limit < STARTUP_BATCH_LIMIT ? limit * 2 : Number.POSITIVE_INFINITY;
        }
      }
    }
    if (batch.length > 0) {
      yield batch;
      batch = [];
    }
  }
  const rest = decoder.decode();
  if (rest) {
    for (const sse of parser.feed(rest)) {
      const decoded = decodeJsonEvent(sse, options);
      if (decoded === DONE) break;
      if (decoded !== SKIP) batch.push(decoded);
    }
  }
  if (batch.length > 0) yield batch;
}

/** The largest batch of the startup phase of {@link parseJsonSseBatches}; then one per chunk. */
const STARTUP_BATCH_LIMIT = 64;
/** How much of a chunk is parsed first while the stream starts (characters; any cut is safe). */
const FIRST_PIECE_CHARS = 4096;

const DONE = Symbol('done');
const SKIP = Symbol('skip');

function decodeJsonEvent<T>(
  sse: SseEvent,
  options: { url: string; schema?: SchemaLike<T> },
): JsonSseEvent<T> | typeof DONE | typeof SKIP {
  // An object or array as sent (the usual data) needs no trimming.
  const raw = sse.data;
  const first = raw.charCodeAt(0);
  const last = raw.charCodeAt(raw.length - 1);
  const data = (first === 123 || first === 91) && (last === 125 || last === 93) ? raw : raw.trim();
  if (data === '[DONE]') return DONE;
  if (data === '') return SKIP;
  const parsed = tryParseJson(data);
  if (parsed === undefined) {
    throw new ApiCallError(`Malformed server-sent event from ${options.url}: ${preview(data)}`, {
      url: options.url,
      failure: 'invalid-response',
      responseBody: data,
    });
  }
  let value = parsed as T;
  if (options.schema) {
    const result = options.schema.safeParse(parsed);
    if (!result.success) {
      throw new ApiCallError(
        `Unexpected server-sent event from ${options.url}: ${result.error.issues
          .map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`)
          .join('; ')} in ${preview(data)}`,
        { url: options.url, failure: 'invalid-response', responseBody: data, cause: result.error },
      );
    }
    value = result.data;
  }
  return sse.event === undefined ? { value } : { event: sse.event, value };
}

function preview(text: string): string {
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}
