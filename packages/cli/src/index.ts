export {
  type CreatedProject,
  type CreateOptions,
  createProject,
  type PackagesOption,
} from './commands/create.js';
export type { ReloadStatus } from './commands/reload-route.js';
export {
  ConformanceFileError,
  type ConformanceFileErrorInit,
  ReplayMismatchError,
  ReplaySetupError,
} from './conformance/errors.js';
export {
  generatedFiles,
  type LlmRecordingFile,
  parseRecordings,
  parseSessionFile,
  parseTestSpec,
  type RecordingFile,
  type RecordingsFile,
  type SessionFile,
  type StreamingMode,
  type TestSpec,
  type ToolRecordingFile,
  type UserMessageSpec,
} from './conformance/formats.js';
export {
  ConformancePlugin,
  type ConformancePluginOptions,
  capabilitiesBeneathReplay,
  RECORDINGS_CONFIG_KEY,
  REPLAY_CONFIG_KEY,
  REPLAY_PROVIDER_NAME,
  ReplayModel,
  replayModelProvider,
} from './conformance/plugin.js';
export { markdownReport } from './conformance/report.js';
export {
  comparableRequest,
  type RequestComparison,
  toAdkRequest,
  toAdkResponse,
} from './conformance/request-shape.js';
export {
  type CaseResult,
  type CaseStatus,
  CONFORMANCE_USER,
  type ConformanceCase,
  type ConformanceRun,
  type ConformanceRunOptions,
  compareSessions,
  discoverCases,
  runConformance,
} from './conformance/run-cases.js';
export { type Checkout, findCheckout } from './create/checkout.js';
export { AgentLoadError, CliUsageError } from './errors.js';
export {
  AGENT_EXPORTS,
  AppLoader,
  type AppLoaderOptions,
  type AppLoadIssue,
  type AppReloadState,
  createAppLoader,
  ENTRY_FILES,
  findEntry,
  loadAgentModule,
} from './loader/app-loader.js';
export {
  type AppReloadEvent,
  type AppWatcher,
  type AppWatcherOptions,
  watchApps,
} from './loader/app-watcher.js';
export { loadEnvFile } from './loader/env-file.js';
export { DEMO_NOTICE, DemoModel, type DemoModelOptions } from './models/demo-model.js';
export {
  describeModelChoice,
  type ModelChoice,
  type PickModelOptions,
  PROVIDER_KEYS,
  pickModel,
  registerModelsFromEnv,
  registerProviders,
} from './models/pick-model.js';
