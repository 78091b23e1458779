import type { MiddlewareHandler } from 'hono';
import { routePath } from 'hono/route';
import { serverVersion } from '../server/version.js';

type OtelApi = typeof import('@opentelemetry/api');
type OtelContext = import('@opentelemetry/api').Context;

/** Runs `fn` inside the request's span context, so core's spans of a run become its children. */
export type RequestContextBinder = <T>(request: Request, fn: () => Promise<T>) => Promise<T>;

/**
 * A SERVER span per HTTP request (HTTP semantic conventions: method, route, status), and a binder
 * that runs a request's work inside it. Used when spans are exported (`OTEL_EXPORTER_OTLP_ENDPOINT`).
 */
export async function httpSpans(): Promise<{ middleware: MiddlewareHandler; bind: RequestContextBinder }> {
  const api: OtelApi = await import('@opentelemetry/api');
  const tracer = api.trace.getTracer('@adk/server', serverVersion());
  const contexts = new WeakMap<Request, OtelContext>();
  const middleware: MiddlewareHandler = async (c, next) => {
    const url = new URL(c.req.url);
    const span = tracer.startSpan(c.req.method, {
      kind: api.SpanKind.SERVER,
      attributes: {
        'http.request.method': c.req.method,
        'url.path': url.pathname,
        'url.scheme': url.protocol.replace(':', ''),
        'server.address': url.hostname,
        ...(url.port ? { 'server.port': Number(url.port) } : {}),
      },
    });
    const ctx = api.trace.setSpan(api.context.active(), span);
    contexts.set(c.req.raw, ctx);
    try {
      await api.context.with(ctx, next);
    } finally {
      const route = routePath(c, -1);
      span.updateName(`${c.req.method} ${route}`);
      span.setAttribute('http.route', route);
      span.setAttribute('http.response.status_code', c.res.status);
      if (c.res.status >= 500) span.setStatus({ code: api.SpanStatusCode.ERROR });
      span.end();
    }
  };
  const bind: RequestContextBinder = (request, fn) => {
    const ctx = contexts.get(request);
    return ctx ? api.context.with(ctx, fn) : fn();
  };
  return { middleware, bind };
}
