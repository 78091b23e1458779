export type { AgUiEvent, AgUiEventType, JsonPatchOperation } from './events.js';
export {
  FRONTEND_TOOLS_KEY,
  FrontendTool,
  type FrontendToolSpec,
  FrontendToolset,
  installFrontendTools,
} from './frontend-tools.js';
export {
  type AgUiHandler,
  type AgUiHandlerOptions,
  type AgUiRequestOptions,
  createAgUiHandler,
} from './handler.js';
export {
  type AgUiInputMessage,
  AgUiRequestError,
  type AgUiRunInput,
  openCalls,
  parseRunInput,
  runMessage,
  stateDelta,
} from './input.js';
export { toAgUiMessages } from './messages.js';
export {
  type AgUiEventsOptions,
  AgUiTranslator,
  RETRACT_EVENT,
  statePatch,
  toAgUiEvents,
} from './translate.js';
