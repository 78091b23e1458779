export {
  type CreatedProject,
  type CreateOptions,
  createProject,
  type PackagesOption,
} from './commands/create.js';
export type { ReloadStatus } from './commands/reload-route.js';
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
