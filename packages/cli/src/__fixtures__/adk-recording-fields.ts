/**
 * The field names of the adk-python pydantic models a recordings file holds (Recordings,
 * Recording, LlmRecording, ToolRecording, LlmRequest, LlmResponse), of those a session file holds
 * (Session, Event with the 2.x workflow fields, EventActions, NodeInfo), and of the google-genai
 * types inside them, as their snake_case field names. A file our `record` writes must use these
 * and nothing else, so that adk-python (whose recording and session models forbid extra keys)
 * reads it. The 2.x event fields (`output`, `node_info`, `isolation_scope`, `turn_id`, the newer
 * `EventActions` keys) follow adk-python 2.x's documented models.
 *
 * Each entry maps a field to the type of its value: another entry, `scalar`, `opaque` (user data
 * such as tool arguments or a JSON Schema, whose keys are not field names), or a list of a type.
 */
type FieldType = string | { list: string };
type Model = Record<string, FieldType>;

const s = 'scalar';
const o = 'opaque';

export const ADK_MODELS: Record<string, Model> = {
  Recordings: { recordings: { list: 'Recording' } },
  Recording: {
    user_message_index: s,
    agent_name: s,
    llm_recording: 'LlmRecording',
    tool_recording: 'ToolRecording',
  },
  // The current adk-python spelling; the older single `llm_response` is read but never written.
  LlmRecording: { llm_request: 'LlmRequest', llm_responses: { list: 'LlmResponse' } },
  ToolRecording: { tool_call: 'FunctionCall', tool_response: 'FunctionResponse' },
  LlmRequest: {
    model: s,
    contents: { list: 'Content' },
    config: 'GenerateContentConfig',
    live_connect_config: o,
    cache_config: o,
    cache_metadata: o,
    cacheable_contents_token_count: s,
    previous_interaction_id: s,
  },
  LlmResponse: {
    model_version: s,
    content: 'Content',
    grounding_metadata: o,
    partial: s,
    turn_complete: s,
    finish_reason: s,
    error_code: s,
    error_message: s,
    interrupted: s,
    custom_metadata: o,
    usage_metadata: 'UsageMetadata',
    live_session_resumption_update: o,
    input_transcription: o,
    output_transcription: o,
    avg_logprobs: s,
    logprobs_result: o,
    cache_metadata: o,
    citation_metadata: o,
    interaction_id: s,
    turn_complete_reason: s,
    interaction_status: s,
  },
  Session: {
    id: s,
    app_name: s,
    user_id: s,
    state: o,
    events: { list: 'Event' },
    last_update_time: s,
  },
  // Event extends LlmResponse; its own fields are added to a copy of those below.
  Event: {
    invocation_id: s,
    turn_id: s,
    author: s,
    actions: 'EventActions',
    output: o,
    node_info: 'NodeInfo',
    long_running_tool_ids: { list: s },
    branch: s,
    isolation_scope: s,
    id: s,
    timestamp: s,
  },
  EventActions: {
    skip_summarization: s,
    state_delta: o,
    artifact_delta: o,
    transfer_to_agent: s,
    transfer_reason: s,
    escalate: s,
    requested_auth_configs: o,
    requested_tool_confirmations: o,
    compaction: 'EventCompaction',
    end_of_agent: s,
    agent_state: o,
    rewind_before_invocation_id: s,
    route: o,
    render_ui_widgets: o,
    set_model_response: o,
  },
  EventCompaction: { start_timestamp: s, end_timestamp: s, compacted_content: 'Content' },
  NodeInfo: { path: s, output_for: { list: s }, message_as_output: s },
  Content: { role: s, parts: { list: 'Part' } },
  Part: {
    media_resolution: o,
    code_execution_result: 'CodeExecutionResult',
    executable_code: 'ExecutableCode',
    file_data: 'FileData',
    function_call: 'FunctionCall',
    function_response: 'FunctionResponse',
    inline_data: 'Blob',
    text: s,
    thought: s,
    thought_signature: s,
    video_metadata: o,
    part_metadata: o,
  },
  Blob: { data: s, display_name: s, mime_type: s },
  FileData: { display_name: s, file_uri: s, mime_type: s },
  ExecutableCode: { code: s, language: s },
  CodeExecutionResult: { outcome: s, output: s },
  FunctionCall: { id: s, args: o, name: s, partial_args: o, will_continue: s },
  FunctionResponse: { will_continue: s, scheduling: s, parts: o, id: s, name: s, response: o },
  GenerateContentConfig: {
    http_options: o,
    should_return_http_response: s,
    system_instruction: s,
    temperature: s,
    top_p: s,
    top_k: s,
    candidate_count: s,
    max_output_tokens: s,
    stop_sequences: { list: s },
    response_logprobs: s,
    logprobs: s,
    presence_penalty: s,
    frequency_penalty: s,
    seed: s,
    response_mime_type: s,
    response_schema: o,
    response_json_schema: o,
    routing_config: o,
    model_selection_config: o,
    safety_settings: o,
    tools: { list: 'Tool' },
    tool_config: 'ToolConfig',
    labels: o,
    cached_content: s,
    response_modalities: { list: s },
    media_resolution: s,
    speech_config: o,
    audio_timestamp: s,
    automatic_function_calling: o,
    thinking_config: 'ThinkingConfig',
    image_config: o,
    enable_enhanced_civic_answers: s,
  },
  Tool: {
    function_declarations: { list: 'FunctionDeclaration' },
    retrieval: o,
    google_search_retrieval: o,
    computer_use: o,
    file_search: o,
    code_execution: o,
    enterprise_web_search: o,
    google_maps: o,
    google_search: o,
    url_context: o,
    mcp_servers: o,
  },
  FunctionDeclaration: {
    behavior: s,
    description: s,
    name: s,
    parameters: o,
    parameters_json_schema: o,
    response: o,
    response_json_schema: o,
  },
  ToolConfig: { function_calling_config: 'FunctionCallingConfig', retrieval_config: o },
  FunctionCallingConfig: { mode: s, allowed_function_names: { list: s }, stream_function_call_arguments: s },
  ThinkingConfig: { include_thoughts: s, thinking_budget: s, thinking_level: s },
  UsageMetadata: {
    cache_tokens_details: o,
    cached_content_token_count: s,
    candidates_token_count: s,
    candidates_tokens_details: o,
    prompt_token_count: s,
    prompt_tokens_details: o,
    thoughts_token_count: s,
    tool_use_prompt_token_count: s,
    tool_use_prompt_tokens_details: o,
    total_token_count: s,
    traffic_type: s,
  },
};
Object.assign(ADK_MODELS.Event!, { ...ADK_MODELS.LlmResponse, ...ADK_MODELS.Event });

/** Every key of `value` (read as `type`) that adk-python's models do not have, as YAML paths. */
export function unknownKeys(value: unknown, type: FieldType = 'Recordings', path = '$'): string[] {
  if (typeof type === 'object') {
    if (!Array.isArray(value)) return [`${path}: expected a list`];
    return value.flatMap((v, i) => unknownKeys(v, type.list, `${path}[${i}]`));
  }
  if (type === s) {
    return value !== null && typeof value === 'object' ? [`${path}: expected a scalar`] : [];
  }
  if (type === o) return [];
  const model = ADK_MODELS[type];
  if (!model) throw new Error(`No model ${type}`);
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    return [`${path}: expected a ${type}`];
  return Object.entries(value as Record<string, unknown>).flatMap(([key, v]) => {
    const child = model[key];
    const at = path === '$' ? key : `${path}.${key}`;
    return child === undefined ? [`${at}: ${type} has no field "${key}"`] : unknownKeys(v, child, at);
  });
}
