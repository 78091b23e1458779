import type { ScoreStore, TraceStore } from '@adk/core';
import type { Context } from 'hono';
import { validate } from '../http/body.js';
import { requestSchemas } from '../http/schemas.js';
import type { AppRegistry } from '../server/apps.js';
import type { AdkServerLogger } from '../server/logger.js';
import type { RunTracker } from '../server/run-tracker.js';
import type { Stores } from '../server/stores.js';
import type { RequestContextBinder } from '../telemetry/http-spans.js';
import type { InMemorySpanStore } from '../telemetry/span-store.js';

/** What the route groups share. */
export interface RouteContext {
  apps: AppRegistry;
  stores: Stores;
  runs: RunTracker;
  logger: AdkServerLogger;
  bodyLimit: number;
  /** Set when spans are collected (the trace routes and event links use it). */
  spans: InMemorySpanStore | undefined;
  /** Where the trace routes read spans from when they are persisted (the sessions' database). */
  traces?: TraceStore | undefined;
  /** Where scorer results are read from (the `/apps/{app}/scores` routes). */
  scores?: ScoreStore | undefined;
  /** The protocols an app is served over, by name, with their paths (for `/list-apps?detailed=true`). */
  protocols?: (appName: string) => Record<string, string>;
  /** Runs a request's work in its HTTP span's context (when spans are exported). */
  bind: RequestContextBinder | undefined;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what we reject
const PLAIN_ID = /^[^\u0000-\u001f\u007f]{1,256}$/;

/** A validated id path parameter (app, user, session, event): 1–256 characters, no control characters. */
export function idParam(c: Context, name: string): string {
  const value = c.req.param(name);
  // The schema's rule, checked directly on the hot path; the schema words the refusal.
  if (typeof value === 'string' && PLAIN_ID.test(value)) return value;
  return validate(requestSchemas().id, value, `path parameter ${name}`);
}

/** `app`, `user` and `session` path parameters, with the app checked to exist. */
export async function sessionKey(
  ctx: RouteContext,
  c: Context,
): Promise<{ appName: string; userId: string; sessionId: string }> {
  const appName = idParam(c, 'app');
  const userId = idParam(c, 'user');
  const sessionId = idParam(c, 'session');
  await ctx.apps.assertApp(appName);
  return { appName, userId, sessionId };
}
