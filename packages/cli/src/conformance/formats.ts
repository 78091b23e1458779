import { readFile } from 'node:fs/promises';
import { isPlainObject } from './wire.js';
import type { YamlPath } from './yaml-file.js';
import { YamlFile } from './yaml-file.js';

/** One user turn of a case: text, or a content (a function response answers a long-running call). */
export interface UserMessageSpec {
  text?: string;
  /** ADK's `types.UserContent`, snake_case as in the file. */
  content?: Record<string, unknown>;
  /** State changes sent with this message. */
  state_delta?: Record<string, unknown>;
}

/** `spec.yaml`: the human-written part of a case (adk-python's `TestSpec`). */
export interface TestSpec {
  description: string;
  /** The app (folder under the agents folder) to run. */
  agent: string;
  initial_state: Record<string, unknown>;
  user_messages: UserMessageSpec[];
}

/** adk-python's `LlmRecording`; `llm_response` is the older single-response spelling. */
export interface LlmRecordingFile {
  llm_request?: Record<string, unknown>;
  llm_response?: Record<string, unknown>;
  llm_responses?: Record<string, unknown>[];
}

export interface ToolRecordingFile {
  tool_call?: Record<string, unknown>;
  tool_response?: Record<string, unknown>;
}

export interface RecordingFile {
  user_message_index: number;
  agent_name: string;
  llm_recording?: LlmRecordingFile;
  tool_recording?: ToolRecordingFile;
}

/** `generated-recordings[-sse].yaml` (adk-python's `Recordings`). */
export interface RecordingsFile {
  recordings: RecordingFile[];
}

/** `generated-session[-sse].yaml`: adk-python's `Session`, snake_case. */
export interface SessionFile {
  id?: string;
  app_name?: string;
  user_id?: string;
  state?: Record<string, unknown>;
  events?: Record<string, unknown>[];
  last_update_time?: number;
}

class Checker {
  constructor(private readonly yaml: YamlFile) {}

  mapping(value: unknown, path: YamlPath, allowed: readonly string[]): Record<string, unknown> {
    if (!isPlainObject(value)) throw this.yaml.error(path, 'a mapping', value);
    for (const key of Object.keys(value))
      if (!allowed.includes(key))
        throw this.yaml.error(
          [...path, key],
          `one of the keys ${allowed.join(', ')}`,
          key,
          `the unknown key ${JSON.stringify(key)}`,
        );
    return value;
  }

  required(object: Record<string, unknown>, key: string, path: YamlPath): unknown {
    if (object[key] === undefined || object[key] === null)
      throw this.yaml.error(path, `a value for ${key}`, undefined, `no ${key}`);
    return object[key];
  }

  string(value: unknown, path: YamlPath): string {
    if (typeof value !== 'string') throw this.yaml.error(path, 'a string', value);
    return value;
  }

  integer(value: unknown, path: YamlPath): number {
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 0)
      throw this.yaml.error(path, 'a whole number, 0 or more', value);
    return value;
  }

  optionalMapping(value: unknown, path: YamlPath): Record<string, unknown> | undefined {
    if (value === undefined || value === null) return undefined;
    if (!isPlainObject(value)) throw this.yaml.error(path, 'a mapping', value);
    return value;
  }

  list(value: unknown, path: YamlPath): unknown[] {
    if (value === undefined || value === null) return [];
    if (!Array.isArray(value)) throw this.yaml.error(path, 'a list', value);
    return value;
  }
}

/** Parses and checks a `spec.yaml` text; errors name the file, line and YAML path. */
export function parseTestSpec(text: string, file: string): TestSpec {
  const yaml = new YamlFile(file, text);
  const c = new Checker(yaml);
  const top = c.mapping(yaml.data, [], ['description', 'agent', 'initial_state', 'user_messages']);
  const description = c.string(c.required(top, 'description', []), ['description']);
  const agent = c.string(c.required(top, 'agent', []), ['agent']);
  const initial_state = c.optionalMapping(top.initial_state, ['initial_state']) ?? {};
  const user_messages = c.list(top.user_messages, ['user_messages']).map((raw, i) => {
    const path = ['user_messages', i];
    const m = c.mapping(raw, path, ['text', 'content', 'state_delta']);
    const message: UserMessageSpec = {};
    if (m.text !== undefined && m.text !== null) message.text = c.string(m.text, [...path, 'text']);
    const content = c.optionalMapping(m.content, [...path, 'content']);
    if (content) {
      const parts = c.list(c.required(content, 'parts', [...path, 'content']), [...path, 'content', 'parts']);
      for (const [j, p] of parts.entries())
        if (!isPlainObject(p)) throw yaml.error([...path, 'content', 'parts', j], 'a part mapping', p);
      message.content = content;
    }
    if ((message.text === undefined) === (message.content === undefined))
      throw yaml.error(path, 'exactly one of text or content', m, message.text ? 'both' : 'neither');
    const delta = c.optionalMapping(m.state_delta, [...path, 'state_delta']);
    if (delta) message.state_delta = delta;
    return message;
  });
  return { description, agent, initial_state, user_messages };
}

/** Parses and checks a recordings text with adk-python's field names (anything else is refused). */
export function parseRecordings(text: string, file: string): RecordingsFile {
  const yaml = new YamlFile(file, text);
  const c = new Checker(yaml);
  if (yaml.data === null || yaml.data === undefined) return { recordings: [] };
  const top = c.mapping(yaml.data, [], ['recordings']);
  const recordings = c.list(top.recordings, ['recordings']).map((raw, i): RecordingFile => {
    const path = ['recordings', i];
    const r = c.mapping(raw, path, ['user_message_index', 'agent_name', 'llm_recording', 'tool_recording']);
    const recording: RecordingFile = {
      user_message_index: c.integer(c.required(r, 'user_message_index', path), [
        ...path,
        'user_message_index',
      ]),
      agent_name: c.string(c.required(r, 'agent_name', path), [...path, 'agent_name']),
    };
    if (r.llm_recording !== undefined && r.llm_recording !== null) {
      const lp = [...path, 'llm_recording'];
      const l = c.mapping(r.llm_recording, lp, ['llm_request', 'llm_response', 'llm_responses']);
      const llm: LlmRecordingFile = {};
      const request = c.optionalMapping(l.llm_request, [...lp, 'llm_request']);
      if (request) llm.llm_request = request;
      const single = c.optionalMapping(l.llm_response, [...lp, 'llm_response']);
      if (single) llm.llm_response = single;
      if (l.llm_responses !== undefined && l.llm_responses !== null)
        llm.llm_responses = c
          .list(l.llm_responses, [...lp, 'llm_responses'])
          .map((x, j) => c.optionalMapping(x, [...lp, 'llm_responses', j]) ?? {});
      recording.llm_recording = llm;
    }
    if (r.tool_recording !== undefined && r.tool_recording !== null) {
      const tp = [...path, 'tool_recording'];
      const t = c.mapping(r.tool_recording, tp, ['tool_call', 'tool_response']);
      const tool: ToolRecordingFile = {};
      const call = c.optionalMapping(t.tool_call, [...tp, 'tool_call']);
      if (call) {
        c.string(c.required(call, 'name', [...tp, 'tool_call']), [...tp, 'tool_call', 'name']);
        tool.tool_call = call;
      }
      const response = c.optionalMapping(t.tool_response, [...tp, 'tool_response']);
      if (response) tool.tool_response = response;
      recording.tool_recording = tool;
    }
    return recording;
  });
  return { recordings };
}

/** Parses and checks a recorded session text (the fields replay compares). */
export function parseSessionFile(text: string, file: string): SessionFile {
  const yaml = new YamlFile(file, text);
  const c = new Checker(yaml);
  const top = c.mapping(yaml.data, [], ['id', 'app_name', 'user_id', 'state', 'events', 'last_update_time']);
  c.optionalMapping(top.state, ['state']);
  for (const [i, e] of c.list(top.events, ['events']).entries()) {
    const event = c.optionalMapping(e, ['events', i]);
    if (!event) throw yaml.error(['events', i], 'an event mapping', e);
    c.string(c.required(event, 'author', ['events', i]), ['events', i, 'author']);
  }
  return top as SessionFile;
}

export async function readTestSpec(file: string): Promise<TestSpec> {
  return parseTestSpec(await readFile(file, 'utf8'), file);
}

export async function readRecordings(file: string): Promise<RecordingsFile> {
  return parseRecordings(await readFile(file, 'utf8'), file);
}

export async function readSessionFile(file: string): Promise<SessionFile> {
  return parseSessionFile(await readFile(file, 'utf8'), file);
}

/** The responses of an LLM recording, whichever spelling the file uses. */
export function recordedResponses(recording: LlmRecordingFile): Record<string, unknown>[] {
  return recording.llm_responses ?? (recording.llm_response ? [recording.llm_response] : []);
}

/** The generated files of a case for a streaming mode. */
export function generatedFiles(streaming: StreamingMode): { recordings: string; session: string } {
  const suffix = streaming === 'sse' ? '-sse' : '';
  return { recordings: `generated-recordings${suffix}.yaml`, session: `generated-session${suffix}.yaml` };
}

export type StreamingMode = 'none' | 'sse';
