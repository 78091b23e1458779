import { AdkError, type AdkErrorOptions } from '@adk/core';

/**
 * The environment cannot run here: its program (bwrap, docker, podman) is missing, or the kernel
 * refuses what it needs (user namespaces). Thrown by `start()`, before any command runs.
 */
export class EnvironmentUnavailableError extends AdkError {
  constructor(message: string, options?: AdkErrorOptions) {
    super('ENVIRONMENT_UNAVAILABLE', message, options);
  }
}

/** A path given to an environment leaves its workspace (`..`, absolute, or through a symlink). */
export class WorkspacePathError extends AdkError {
  constructor(message: string, options?: AdkErrorOptions) {
    super('WORKSPACE_PATH', message, options);
  }
}

/** The environment was used before `start()` or after `close()`. */
export class EnvironmentClosedError extends AdkError {
  constructor(message: string, options?: AdkErrorOptions) {
    super('ENVIRONMENT_CLOSED', message, options);
  }
}
