import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { InMemorySessionService } from '@adk/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from './__fixtures__/apps.js';

// With OTEL_EXPORTER_OTLP_ENDPOINT set, spans of the HTTP routes and of core go out over OTLP
// (through @opentelemetry/sdk-node) and still feed the in-process trace routes.

interface OtlpSpan {
  name: string;
  spanId: string;
  parentSpanId?: string;
  attributes: { key: string; value: Record<string, unknown> }[];
}

const received: OtlpSpan[] = [];
let collector: Server;
let t: TestServer;

beforeAll(async () => {
  collector = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.url === '/v1/traces') {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
          resourceSpans: { scopeSpans: { spans: OtlpSpan[] }[] }[];
        };
        for (const rs of body.resourceSpans) for (const ss of rs.scopeSpans) received.push(...ss.spans);
      }
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
  process.env.OTEL_EXPORTER_OTLP_ENDPOINT = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;
  process.env.OTEL_EXPORTER_OTLP_PROTOCOL = 'http/json';
  process.env.OTEL_METRICS_EXPORTER = 'none';
  process.env.OTEL_LOGS_EXPORTER = 'none';
  process.env.OTEL_BSP_SCHEDULE_DELAY = '50';
  t = await startServer({ sessionService: new InMemorySessionService() });
});
afterAll(async () => {
  await t?.close();
  await new Promise((resolve) => collector.close(resolve));
});

const attr = (span: OtlpSpan | undefined, key: string) => span?.attributes.find((a) => a.key === key)?.value;

describe('OTLP export', () => {
  it('exports route spans with core spans as their children, and keeps serving /debug/trace', async () => {
    await fetch(`${t.url}/apps/assistant/users/u1/sessions/otel`, { method: 'POST' });
    const run = await fetch(`${t.url}/run`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        appName: 'assistant',
        userId: 'u1',
        sessionId: 'otel',
        newMessage: { role: 'user', parts: [{ text: 'weather in Lima' }] },
      }),
    });
    expect(run.status).toBe(200);
    const local = (await (await fetch(`${t.url}/debug/trace/session/otel`)).json()) as { name: string }[];
    expect(local.map((s) => s.name)).toContain('call_llm');

    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline && !received.some((s) => s.name === 'POST /run'))
      await new Promise((r) => setTimeout(r, 50));
    const route = received.find((s) => s.name === 'POST /run');
    expect(route).toBeDefined();
    expect(attr(route, 'http.route')).toEqual({ stringValue: '/run' });
    expect(attr(route, 'http.response.status_code')).toEqual({ intValue: 200 });
    const invocation = received.find((s) => s.name === 'invocation');
    expect(invocation?.parentSpanId).toBe(route?.spanId);
    const llm = received.find((s) => s.name === 'call_llm');
    expect(attr(llm, 'gen_ai.operation.name')).toEqual({ stringValue: 'chat' });
    expect(attr(llm, 'gen_ai.request.model')).toEqual({ stringValue: 'gemini-2.5-flash' });
    expect(attr(llm, 'gen_ai.provider.name')).toEqual({ stringValue: 'gcp.gemini' });
    expect(received.some((s) => s.name === 'execute_tool get_weather')).toBe(true);
  });
});
