export {
  BaseEnvironment,
  defaultLimits,
  type EnvironmentLimits,
  type ExecOptions,
  type ExecResult,
  type KillReason,
  resolveLimits,
  type WorkspaceFile,
} from './base-environment.js';
export {
  CodeExecutionTool,
  type CodeExecutionToolOptions,
  type CodeLanguage,
  defaultLanguages,
  execResponse,
  mimeTypeOf,
} from './code-execution-tool.js';
export { ContainerEnvironment, type ContainerEnvironmentOptions } from './container-environment.js';
export { EnvironmentClosedError, EnvironmentUnavailableError, WorkspacePathError } from './errors.js';
export { HostEnvironment, type HostEnvironmentOptions } from './host-environment.js';
export {
  LocalSandboxEnvironment,
  type LocalSandboxOptions,
  SANDBOX_WORKSPACE,
} from './local-sandbox-environment.js';
export { UnsafeLocalEnvironment } from './unsafe-local-environment.js';
