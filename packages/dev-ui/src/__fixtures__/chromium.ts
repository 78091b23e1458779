/**
 * Whether a browser suite can run here. Outside CI a suite whose Chromium (or other prerequisite)
 * is missing is skipped with the reason printed; in CI (CI=true) it fails the run with that reason
 * instead. Every browser suite (the dev UI's and the bench's) decides through `browserSuiteSkip`.
 * No vitest import here, so the bench can use it outside the test runner.
 */
import { existsSync } from 'node:fs';

/** Debian's Chromium (the `chromium` package), or CHROMIUM_PATH; never a downloaded browser. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** True when the environment says this is a CI run (CI=true, as CI services set it, or CI=1). */
export function isCi(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.CI === 'true' || env.CI === '1';
}

/** Thrown in CI when a browser suite cannot run. */
export class BrowserSuiteUnavailableError extends Error {
  override readonly name = 'BrowserSuiteUnavailableError';
  constructor(
    readonly suite: string,
    readonly reason: string,
  ) {
    super(`${suite} cannot run in CI (CI=true) and is not skipped there: ${reason}`);
  }
}

export interface BrowserSuiteOptions {
  /** Other prerequisites of the suite that are missing (a build, a folder), each said in words. */
  missing?: (string | false | undefined)[];
  /** The browser binary; CHROMIUM by default. */
  chromiumPath?: string;
  /** The environment to read CI from; process.env by default. */
  env?: NodeJS.ProcessEnv;
  /** Where the skip reason is printed outside CI; console.warn by default. */
  warn?: (message: string) => void;
}

/**
 * Why `suite` cannot run here, or undefined when it can. Outside CI the reason is printed (the
 * caller skips the suite with it); in CI this throws BrowserSuiteUnavailableError with the reason.
 */
export function browserSuiteSkip(suite: string, options: BrowserSuiteOptions = {}): string | undefined {
  const chromiumPath = options.chromiumPath ?? CHROMIUM;
  const missing = [
    !existsSync(chromiumPath) &&
      `Chromium at ${chromiumPath} (install the chromium package or set CHROMIUM_PATH)`,
    ...(options.missing ?? []),
  ].filter((item): item is string => typeof item === 'string' && item.length > 0);
  if (missing.length === 0) return undefined;
  const reason = `missing ${missing.join(', ')}`;
  if (isCi(options.env ?? process.env)) throw new BrowserSuiteUnavailableError(suite, reason);
  (options.warn ?? ((message: string) => console.warn(message)))(`${suite} skipped: ${reason}`);
  return reason;
}
