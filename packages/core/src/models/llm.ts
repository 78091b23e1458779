import type { Content } from '../events/content.js';
import type { EventErrorCode, UsageMetadata } from '../events/event.js';
import type { ModelCapabilities } from './capabilities.js';
import type {
  ConnectOptions,
  LiveConnectConfig,
  LiveResponseFields,
  LlmConnection,
} from './llm-connection.js';
import type { ProviderOptions } from './provider-options.js';

/** A JSON Schema object (draft 2020-12 subset as produced by `z.toJSONSchema`). */
export type JsonSchema = { [key: string]: unknown };

export interface FunctionDeclaration {
  name: string;
  description?: string;
  /** JSON Schema of the arguments object. */
  parameters?: JsonSchema;
  /** JSON Schema of the result, when known. */
  response?: JsonSchema;
  /**
   * Live sessions: 'NON_BLOCKING' lets the model go on talking while the call runs (Gemini Live
   * `behavior`); its response then says when the model takes it up (`FunctionResponse.scheduling`).
   */
  behavior?: 'BLOCKING' | 'NON_BLOCKING';
}

/**
 * A tool the model's vendor runs on its side (Gemini googleSearch, Claude web_search, …), declared
 * next to function declarations. Providers send the kinds they know and reject the others.
 */
export interface BuiltInToolSpec {
  /** 'googleSearch' | 'urlContext' | 'codeExecution' | 'webSearch' | 'webFetch' | a vendor's own. */
  type: string;
  /** Vendor settings sent with the declaration (e.g. Claude's max_uses, allowed_domains). */
  config?: Record<string, unknown>;
}

export type ToolChoice = 'auto' | 'none' | 'required' | { name: string };

export interface ThinkingConfig {
  /** Include thought summaries in the response (Gemini `includeThoughts`). */
  includeThoughts?: boolean;
  /** Token budget for thinking (Gemini thinkingBudget, Claude budget_tokens). */
  budgetTokens?: number;
  /** Reasoning effort (OpenAI reasoning_effort, Gemini thinkingLevel). */
  effort?: 'minimal' | 'low' | 'medium' | 'high';
}

export interface GenerateConfig {
  temperature?: number;
  topP?: number;
  topK?: number;
  maxOutputTokens?: number;
  stopSequences?: string[];
  presencePenalty?: number;
  frequencyPenalty?: number;
  seed?: number;
  /** 'application/json' asks for JSON output; with responseSchema, JSON of that shape. */
  responseMimeType?: string;
  responseSchema?: JsonSchema;
  thinking?: ThinkingConfig;
  toolChoice?: ToolChoice;
  /**
   * Vendor request fields by provider namespace (`{ gemini: {…}, anthropic: {…}, openai: {…} }`),
   * each typed by its provider package; a provider merges only its own into the request body.
   */
  providerOptions?: ProviderOptions;
  labels?: Record<string, string>;
  /** Settings of a live session (only read by `Llm.connect`). */
  live?: LiveConnectConfig;
}

export interface LlmRequest {
  /**
   * The model the agent asked for (a registry name such as 'ollama/llama3' or the model object's
   * name). Providers send their own vendor model name, which may differ.
   */
  model: string;
  systemInstruction?: string;
  /**
   * The agent's `staticInstruction`. `systemInstruction` starts with it (followed by two newlines
   * when more follows) unless the root agent has a global instruction, which ADK's order puts
   * first; the agent's templated instruction then travels in `contents`. A provider may send it
   * separately where its vendor caches prompts (when it is the prefix); one that ignores it still
   * sends it, inside `systemInstruction`.
   */
  staticInstruction?: string;
  contents: Content[];
  tools?: FunctionDeclaration[];
  /** Vendor-run tools (see BuiltInToolSpec), added by built-in tool objects among the agent's tools. */
  builtInTools?: BuiltInToolSpec[];
  config: GenerateConfig;
}

export type FinishReason =
  | 'STOP'
  | 'MAX_TOKENS'
  | 'SAFETY'
  | 'RECITATION'
  | 'LANGUAGE'
  | 'BLOCKLIST'
  | 'PROHIBITED_CONTENT'
  | 'SPII'
  | 'MALFORMED_FUNCTION_CALL'
  | 'REFUSAL'
  | 'IMAGE_SAFETY'
  | 'UNEXPECTED_TOOL_CALL'
  | 'OTHER'
  | (string & {});

export interface LlmResponse extends LiveResponseFields {
  content?: Content;
  /** A streaming chunk; an aggregated, non-partial response always follows. */
  partial?: boolean;
  turnComplete?: boolean;
  interrupted?: boolean;
  finishReason?: FinishReason;
  usageMetadata?: UsageMetadata;
  errorCode?: EventErrorCode;
  errorMessage?: string;
  groundingMetadata?: unknown;
  citationMetadata?: unknown;
  customMetadata?: Record<string, unknown>;
  modelVersion?: string;
  /** The vendor's average log probability of the candidate (Gemini `avgLogprobs`). */
  avgLogprobs?: number;
  /** Log probabilities of the chosen and top candidate tokens (Gemini `logprobsResult`). */
  logprobsResult?: unknown;
  /** What the vendor's context cache served (ADK's `cacheMetadata`). */
  cacheMetadata?: unknown;
}

export interface GenerateOptions {
  /** Yield partial chunks before the aggregated response. */
  stream?: boolean;
  signal?: AbortSignal;
}

/**
 * A model. `generate` yields, when streaming, partial text/thought chunks and then one complete,
 * aggregated response; otherwise just the complete response. Transport failures are thrown as
 * typed errors (ApiCallError and friends); a response the model produced but that is unusable can
 * be returned with errorCode/errorMessage.
 */
export interface Llm {
  readonly model: string;
  /** What this model can do (see ModelCapabilities); absent means the safe defaults. */
  readonly capabilities?: ModelCapabilities;
  generate(request: LlmRequest, options?: GenerateOptions): AsyncIterable<LlmResponse>;
  /**
   * Throws a typed configuration error (e.g. `MissingApiKeyError`) when the model cannot be called
   * as configured. The Runner calls it before a run starts, so such errors throw instead of
   * becoming error events. Reads options and the environment only: no I/O.
   */
  validateConfiguration?(): void;
  /** Opens a live (bidirectional) session; models without live support leave it out. */
  connect?(request: LlmRequest, options?: ConnectOptions): Promise<LlmConnection>;
}
