import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  type AfterModelArgs,
  type AfterToolArgs,
  AgentTool,
  type BeforeModelArgs,
  type BeforeToolArgs,
  type Event,
  type GenerateOptions,
  type Llm,
  type LlmRequest,
  type LlmResponse,
  type ModelCapabilities,
  type ModelProvider,
  type ModelRegistry,
  type Plugin,
  type RunHookArgs,
} from '@adk/core';
import { describeDifference } from './diff.js';
import { ReplayMismatchError, ReplaySetupError } from './errors.js';
import {
  generatedFiles,
  parseRecordings,
  type RecordingFile,
  recordedResponses,
  type StreamingMode,
} from './formats.js';
import {
  comparableRequest,
  fromAdkResponse,
  type RequestComparison,
  toAdkRequest,
  toAdkResponse,
} from './request-shape.js';
import { isPlainObject } from './wire.js';
import { toYaml } from './yaml-file.js';

/** State keys adk-python's client sends in `state_delta` to switch a run into record or replay. */
export const RECORDINGS_CONFIG_KEY = '_adk_recordings_config';
export const REPLAY_CONFIG_KEY = '_adk_replay_config';

interface ModeConfig {
  dir: string;
  userMessageIndex: number;
  streaming: StreamingMode;
}

function readConfig(state: Record<string, unknown>, key: string): ModeConfig | undefined {
  const config = state[key];
  if (!isPlainObject(config)) return undefined;
  const dir = config.dir;
  const index = config.user_message_index;
  if (typeof dir !== 'string' || !dir || typeof index !== 'number') return undefined;
  return { dir, userMessageIndex: index, streaming: config.streaming_mode === 'sse' ? 'sse' : 'none' };
}

interface PendingRecording {
  recording: RecordingFile;
  complete: boolean;
}

interface RecordState {
  mode: 'record';
  config: ModeConfig;
  depth: number;
  earlier: RecordingFile[];
  order: PendingRecording[];
  pendingLlm: Map<string, { pending: PendingRecording; responses: Record<string, unknown>[] }>;
  pendingTool: Map<string, PendingRecording>;
}

interface ReplayState {
  mode: 'replay';
  config: ModeConfig;
  depth: number;
  recordings: RecordingFile[];
  llmIndex: Map<string, number>;
  toolIndex: Map<string, number>;
  toolResponses: Map<string, Record<string, unknown>>;
}

type CaseState = RecordState | ReplayState;

/** Where the replay model finds the run a request belongs to (set by the plugin before the call). */
const REPLAY_SLOT = Symbol.for('adk.conformance.replay');

interface ReplaySlot {
  state: ReplayState;
  agentName: string;
}

export interface ConformancePluginOptions {
  /** How model requests are compared during replay (default strict). */
  requestComparison?: RequestComparison;
}

/**
 * Records and replays a run when its session state carries adk-python's `_adk_recordings_config`
 * or `_adk_replay_config` (`dir`, `user_message_index`, `streaming_mode`).
 *
 * Record: every model request and response and every tool call and result, per agent, in the order
 * the requests were made, appended to the case's `generated-recordings[-sse].yaml` when the
 * top-level invocation ends. Replay: each tool call is checked (name and arguments) against the
 * next one recorded for its agent and answered with the recorded result (the tool still runs, for
 * its side effects, except an `AgentTool`, whose agent is not run, as in adk-python's replay);
 * model calls go to {@link ReplayModel}. Mismatches are kept per case folder for
 * {@link ConformancePlugin.takeFailures}.
 */
export class ConformancePlugin implements Plugin {
  readonly name = 'adk_conformance';
  readonly requestComparison: RequestComparison;
  private readonly cases = new Map<string, CaseState>();
  private readonly byInvocation = new Map<string, CaseState>();
  private readonly failures = new Map<string, Error[]>();

  constructor(options: ConformancePluginOptions = {}) {
    this.requestComparison = options.requestComparison ?? 'strict';
  }

  /** The mismatches seen for a case folder since the last call, oldest first. */
  takeFailures(dir: string): Error[] {
    const list = this.failures.get(dir) ?? [];
    this.failures.delete(dir);
    return list;
  }

  fail(dir: string, error: Error): void {
    const list = this.failures.get(dir) ?? [];
    list.push(error);
    this.failures.set(dir, list);
  }

  async beforeRun({ context }: RunHookArgs): Promise<undefined> {
    const state = context.session.state;
    const record = readConfig(state, RECORDINGS_CONFIG_KEY);
    const replay = record ? undefined : readConfig(state, REPLAY_CONFIG_KEY);
    const config = record ?? replay;
    if (!config) return undefined;
    let current = this.cases.get(config.dir);
    if (!current || current.depth === 0) {
      const file = join(config.dir, generatedFiles(config.streaming).recordings);
      if (record) {
        const earlier = existsSync(file)
          ? parseRecordings(await readFile(file, 'utf8'), file).recordings
          : [];
        current = {
          mode: 'record',
          config,
          depth: 0,
          earlier,
          order: [],
          pendingLlm: new Map(),
          pendingTool: new Map(),
        };
      } else {
        if (!existsSync(file)) {
          this.fail(config.dir, new ReplaySetupError(`No recordings to replay: ${file} does not exist`));
          return undefined;
        }
        const recordings = parseRecordings(await readFile(file, 'utf8'), file).recordings.filter(
          (r) => r.user_message_index === config.userMessageIndex,
        );
        current = {
          mode: 'replay',
          config,
          depth: 0,
          recordings,
          llmIndex: new Map(),
          toolIndex: new Map(),
          toolResponses: new Map(),
        };
      }
      this.cases.set(config.dir, current);
    }
    current.depth++;
    this.byInvocation.set(context.invocationId, current);
    return undefined;
  }

  async afterRun({ context }: RunHookArgs): Promise<void> {
    const current = this.byInvocation.get(context.invocationId);
    if (!current) return;
    this.byInvocation.delete(context.invocationId);
    current.depth--;
    if (current.depth > 0) return;
    this.cases.delete(current.config.dir);
    if (current.mode !== 'record') return;
    const recordings = [
      ...current.earlier,
      ...current.order.filter((p) => p.complete).map((p) => p.recording),
    ];
    const file = join(current.config.dir, generatedFiles(current.config.streaming).recordings);
    await writeFile(file, toYaml({ recordings }));
  }

  async onEvent({ context, event }: RunHookArgs & { event: Event }): Promise<undefined> {
    const current = this.byInvocation.get(context.invocationId);
    if (current?.mode !== 'record') return undefined;
    if (!event.partial) {
      // A call that failed (invalid arguments, a throw) never reaches afterTool: its error
      // response is recorded from the function-response event that carries it.
      for (const part of event.content?.parts ?? []) {
        const answer = part.functionResponse;
        const pending = answer && current.pendingTool.get(answer.id);
        if (!answer || !pending?.recording.tool_recording) continue;
        current.pendingTool.delete(answer.id);
        pending.recording.tool_recording.tool_response = {
          id: answer.id,
          name: answer.name,
          response: structuredClone(answer.response),
        };
        pending.complete = true;
      }
      return undefined;
    }
    const pending = current.pendingLlm.get(event.author);
    if (pending && event.content)
      pending.responses.push(toAdkResponse({ content: event.content, partial: true }));
    return undefined;
  }

  async beforeModel({ context, request }: BeforeModelArgs): Promise<LlmResponse | undefined> {
    const current = this.byInvocation.get(context.invocationId);
    if (!current) return undefined;
    const agentName = context.agentName;
    if (current.mode === 'record') {
      const pending: PendingRecording = {
        recording: { user_message_index: current.config.userMessageIndex, agent_name: agentName },
        complete: false,
      };
      current.order.push(pending);
      current.pendingLlm.set(agentName, { pending, responses: [] });
      return undefined;
    }
    const model = (context.invocationContext.agent as { canonicalModel?: unknown }).canonicalModel;
    if (typeof model !== 'string') {
      const error = new ReplaySetupError(
        `Agent "${agentName}" gives its model as an object, so replay cannot put the recorded model in its place: name the model (model: gemini-2.5-flash), as YAML agents do`,
      );
      this.fail(current.config.dir, error);
      return { errorCode: error.code, errorMessage: error.message };
    }
    (request as LlmRequest & { [REPLAY_SLOT]?: ReplaySlot })[REPLAY_SLOT] = { state: current, agentName };
    return undefined;
  }

  async afterModel({ context, request, response }: AfterModelArgs): Promise<undefined> {
    const current = this.byInvocation.get(context.invocationId);
    if (current?.mode !== 'record') return undefined;
    const entry = current.pendingLlm.get(context.agentName);
    if (!entry) return undefined;
    current.pendingLlm.delete(context.agentName);
    entry.pending.recording.llm_recording = {
      llm_request: toAdkRequest(request),
      llm_responses: [...entry.responses, toAdkResponse(response)],
    };
    entry.pending.complete = true;
    return undefined;
  }

  async beforeTool({ tool, args, context }: BeforeToolArgs): Promise<Record<string, unknown> | undefined> {
    const current = this.byInvocation.get(context.invocationId);
    if (!current) return undefined;
    const agentName = context.agentName;
    if (current.mode === 'record') {
      const pending: PendingRecording = {
        recording: {
          user_message_index: current.config.userMessageIndex,
          agent_name: agentName,
          tool_recording: {
            tool_call: { id: context.functionCallId, name: tool.name, args: structuredClone(args) },
          },
        },
        complete: false,
      };
      current.order.push(pending);
      current.pendingTool.set(context.functionCallId, pending);
      return undefined;
    }
    const recorded = current.recordings.filter((r) => r.agent_name === agentName && r.tool_recording);
    const index = current.toolIndex.get(agentName) ?? 0;
    current.toolIndex.set(agentName, index + 1);
    const expected = recorded[index]?.tool_recording;
    const where = `agent "${agentName}", user message ${current.config.userMessageIndex}, tool call ${index}`;
    if (!expected?.tool_call) {
      this.fail(
        current.config.dir,
        new ReplayMismatchError(
          `More tool calls than recorded for ${where}: ${recorded.length} recorded, the runtime called "${tool.name}"`,
        ),
      );
      return undefined;
    }
    const want = { name: expected.tool_call.name, args: expected.tool_call.args ?? {} };
    const got = { name: tool.name, args };
    const diff = describeDifference('The tool call', want, got);
    if (diff) {
      this.fail(current.config.dir, new ReplayMismatchError(`Tool call mismatch for ${where}`, diff));
      return undefined;
    }
    const response = expected.tool_response?.response;
    if (isPlainObject(response)) current.toolResponses.set(context.functionCallId, response);
    // As adk-python's replay: an agent tool is answered from the recording without running its
    // agent (whose model calls were recorded, and are not replayed); other tools run for their
    // side effects and their result is replaced in afterTool.
    if (tool instanceof AgentTool && isPlainObject(response)) return structuredClone(response);
    return undefined;
  }

  async afterTool({ tool, context, result }: AfterToolArgs): Promise<Record<string, unknown> | undefined> {
    const current = this.byInvocation.get(context.invocationId);
    if (!current) return undefined;
    if (current.mode === 'replay') {
      const recorded = current.toolResponses.get(context.functionCallId);
      current.toolResponses.delete(context.functionCallId);
      return recorded ? structuredClone(recorded) : undefined;
    }
    const pending = current.pendingTool.get(context.functionCallId);
    if (!pending?.recording.tool_recording) return undefined;
    current.pendingTool.delete(context.functionCallId);
    pending.recording.tool_recording.tool_response = {
      id: context.functionCallId,
      name: tool.name,
      response: structuredClone(result),
    };
    pending.complete = true;
    return undefined;
  }
}

/**
 * The model every agent gets during replay: it answers each request with the responses recorded
 * for the same agent, user message and position, after checking that the request (in ADK's shape)
 * is the recorded one.
 */
export class ReplayModel implements Llm {
  readonly model = 'adk-conformance-replay';

  /**
   * @param fallback the model for a call outside a replayed run (a server that also serves normal
   *   runs); without it such a call fails.
   */
  constructor(
    private readonly plugin: ConformancePlugin,
    private readonly fallback?: (model: string) => Llm,
  ) {}

  async *generate(request: LlmRequest, options: GenerateOptions = {}): AsyncGenerator<LlmResponse> {
    const slot = (request as LlmRequest & { [REPLAY_SLOT]?: ReplaySlot })[REPLAY_SLOT];
    if (!slot && this.fallback) {
      yield* this.fallback(request.model).generate(request, options);
      return;
    }
    if (!slot)
      throw new ReplaySetupError(
        'A model was called outside a replayed run (its session has no _adk_replay_config)',
      );
    const { state, agentName } = slot;
    const recorded = state.recordings.filter((r) => r.agent_name === agentName && r.llm_recording);
    const index = state.llmIndex.get(agentName) ?? 0;
    state.llmIndex.set(agentName, index + 1);
    const where = `agent "${agentName}", user message ${state.config.userMessageIndex}, model call ${index}`;
    const expected = recorded[index]?.llm_recording;
    if (!expected) {
      const error = new ReplayMismatchError(
        `More model requests than recorded for ${where}: ${recorded.length} recorded`,
      );
      this.plugin.fail(state.config.dir, error);
      throw error;
    }
    const mode = this.plugin.requestComparison;
    const diff = describeDifference(
      'The model request',
      comparableRequest(expected.llm_request ?? {}, mode),
      comparableRequest(toAdkRequest(request), mode),
    );
    if (diff) {
      const error = new ReplayMismatchError(`Model request mismatch for ${where}`, diff);
      this.plugin.fail(state.config.dir, error);
      throw error;
    }
    for (const response of recordedResponses(expected)) yield fromAdkResponse(structuredClone(response));
  }
}

/** The registry name of {@link replayModelProvider}. */
export const REPLAY_PROVIDER_NAME = 'adk-conformance-replay';

/**
 * A registry provider that gives every model name the replay model (register it in the `override`
 * tier). With `capabilitiesOf`, the model a name gets reports the capabilities of the model it
 * stands in for, so the flow builds the requests it built when the case was recorded (e.g.
 * `set_model_response` or not).
 */
export function replayModelProvider(
  model: ReplayModel,
  capabilitiesOf?: (name: string) => ModelCapabilities | undefined,
): ModelProvider {
  return {
    name: REPLAY_PROVIDER_NAME,
    matches: () => true,
    create: (name) => {
      const capabilities = capabilitiesOf?.(name);
      if (!capabilities) return model;
      return {
        model: model.model,
        capabilities,
        generate: (request, options) => model.generate(request, options),
      } satisfies Llm;
    },
  };
}

/** The capabilities a name has in `registry` beneath the replay model (none when nothing serves it). */
export function capabilitiesBeneathReplay(
  registry: ModelRegistry,
): (name: string) => ModelCapabilities | undefined {
  return (name) => {
    try {
      return registry.resolve(name, { except: [REPLAY_PROVIDER_NAME] }).capabilities;
    } catch {
      return undefined;
    }
  };
}
