import { MissingApiKeyError } from '../errors/errors.js';
import { runtimeEnv } from '../utils/runtime.js';

export interface ResolveApiKeyOptions {
  /** The key given in options; wins over the environment. */
  apiKey?: string | undefined;
  /** Environment variables to try, in order (e.g. ['GEMINI_API_KEY', 'GOOGLE_API_KEY']). */
  envVars: readonly string[];
  /** What the key is for, for the error message (e.g. 'Gemini API'). */
  description: string;
  /** Defaults to process.env. */
  env?: Record<string, string | undefined>;
}

/**
 * The API key from options or the first non-empty environment variable. Throws a MissingApiKeyError (a ConfigError, code `MISSING_API_KEY`) that
 * names the variables (never their values) when there is none.
 */
export function resolveApiKey(options: ResolveApiKeyOptions): string {
  const key = loadSetting(options.apiKey, options.envVars, options.env);
  if (key === undefined) {
    throw new MissingApiKeyError(
      `${options.description} key is missing. Pass it as the \`apiKey\` option or set ${options.envVars
        .map((name) => `\`${name}\``)
        .join(' or ')}.`,
      options.envVars,
    );
  }
  return key;
}

/** A setting from options, else the first non-empty environment variable, else undefined. */
export function loadSetting(
  value: string | undefined,
  envVars: readonly string[],
  env: Record<string, string | undefined> = runtimeEnv(),
): string | undefined {
  if (value !== undefined && value !== '') return value;
  for (const name of envVars) {
    const fromEnv = env[name];
    if (fromEnv !== undefined && fromEnv.trim() !== '') return fromEnv.trim();
  }
  return undefined;
}

/** Header names whose values are credentials; they are redacted from anything we report. */
export const SECRET_HEADERS: ReadonlySet<string> = new Set([
  'authorization',
  'proxy-authorization',
  'x-api-key',
  'x-goog-api-key',
  'api-key',
  'cookie',
]);

/** The secret values among request headers (the bearer token without its scheme too). */
export function secretsOf(headers: Record<string, string | undefined>): string[] {
  const secrets: string[] = [];
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || !SECRET_HEADERS.has(name.toLowerCase())) continue;
    secrets.push(value);
    const token = /^\s*\S+\s+(\S+)\s*$/.exec(value)?.[1];
    if (token !== undefined) secrets.push(token);
  }
  return secrets.filter((s) => s.length >= 4);
}

/** Replaces every occurrence of each secret (and `key=` URL parameters) with `[REDACTED]`. */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (secret) out = out.split(secret).join('[REDACTED]');
  return out.replace(/([?&](?:key|api_key|apiKey|access_token)=)[^&#\s"']+/g, '$1[REDACTED]');
}
