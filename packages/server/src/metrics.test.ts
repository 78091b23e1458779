import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FunctionTool, InMemorySessionService, LlmAgent, type LlmRequest } from '@adk/core';
import { functionCallResponse, ScriptedModel } from '@adk/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startServer, type TestServer } from './__fixtures__/apps.js';
import { GEN_AI_SEMCONV_VERSION, GenAiMetricNames } from './index.js';

// GenAI metrics reach an OTLP/HTTP receiver (through @opentelemetry/sdk-node), decoded here; and
// every GenAI name the server emits is one the declared semantic-conventions version publishes.

interface DataPoint {
  attributes: { key: string; value: Record<string, unknown> }[];
  count: string | number;
  sum?: number;
}
interface OtlpMetric {
  name: string;
  unit?: string;
  histogram?: { dataPoints: DataPoint[] };
}

const metrics: OtlpMetric[] = [];
let collector: Server;
let t: TestServer;

/** A model that calls the tool once, then answers; each response reports its token usage. */
function meteredAgent(): LlmAgent {
  return new LlmAgent({
    name: 'metered',
    model: new ScriptedModel({
      model: 'claude-sonnet-4-5',
      respond: (request: LlmRequest) => {
        const last = request.contents.at(-1);
        const usageMetadata = { promptTokenCount: 12, candidatesTokenCount: 5, totalTokenCount: 17 };
        if (last?.parts.some((p) => p.functionResponse))
          return { content: { role: 'model', parts: [{ text: 'done' }] }, usageMetadata };
        return { ...functionCallResponse('lookup', { q: 'x' }), usageMetadata };
      },
    }),
    tools: [
      new FunctionTool({
        name: 'lookup',
        description: 'Looks up',
        parameters: z.object({ q: z.string() }),
        execute: ({ q }) => ({ q, found: true }),
      }),
    ],
  });
}

beforeAll(async () => {
  collector = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.url === '/v1/metrics') {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
          resourceMetrics: { scopeMetrics: { metrics: OtlpMetric[] }[] }[];
        };
        for (const rm of body.resourceMetrics) for (const sm of rm.scopeMetrics) metrics.push(...sm.metrics);
      }
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
  process.env.OTEL_EXPORTER_OTLP_ENDPOINT = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;
  process.env.OTEL_EXPORTER_OTLP_PROTOCOL = 'http/json';
  process.env.OTEL_TRACES_EXPORTER = 'none';
  process.env.OTEL_LOGS_EXPORTER = 'none';
  process.env.OTEL_METRIC_EXPORT_INTERVAL = '200';
  t = await startServer({ sessionService: new InMemorySessionService(), apps: { metered: meteredAgent() } });
}, 60_000);
afterAll(async () => {
  await t?.close();
  await new Promise((resolve) => collector.close(resolve));
});

const attr = (point: DataPoint | undefined, key: string) =>
  point?.attributes.find((a) => a.key === key)?.value;

/** The latest export of a metric (exports are cumulative). */
function latest(name: string): OtlpMetric | undefined {
  return metrics.filter((m) => m.name === name).at(-1);
}

describe('GenAI metrics over OTLP', () => {
  it('exports token usage, operation duration and per-run call counts', { timeout: 90_000 }, async () => {
    await fetch(`${t.url}/apps/metered/users/u1/sessions/m1`, { method: 'POST' });
    const run = await fetch(`${t.url}/run`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        appName: 'metered',
        userId: 'u1',
        sessionId: 'm1',
        newMessage: { role: 'user', parts: [{ text: 'look it up' }] },
      }),
    });
    expect(run.status).toBe(200);

    await expect
      .poll(() => latest(GenAiMetricNames.runToolCalls) !== undefined, { timeout: 30_000, interval: 100 })
      .toBe(true);

    const tokens = latest(GenAiMetricNames.tokenUsage);
    expect(tokens?.unit).toBe('{token}');
    const input = tokens?.histogram?.dataPoints.find(
      (p) => attr(p, 'gen_ai.token.type')?.stringValue === 'input',
    );
    const output = tokens?.histogram?.dataPoints.find(
      (p) => attr(p, 'gen_ai.token.type')?.stringValue === 'output',
    );
    // Two model calls of 12 input and 5 output tokens each.
    expect(Number(input?.count)).toBe(2);
    expect(input?.sum).toBe(24);
    expect(output?.sum).toBe(10);
    expect(attr(input, 'gen_ai.provider.name')).toEqual({ stringValue: 'anthropic' });
    expect(attr(input, 'gen_ai.request.model')).toEqual({ stringValue: 'claude-sonnet-4-5' });
    expect(attr(input, 'gen_ai.operation.name')).toEqual({ stringValue: 'chat' });

    const duration = latest(GenAiMetricNames.operationDuration);
    expect(duration?.unit).toBe('s');
    expect(Number(duration?.histogram?.dataPoints[0]?.count)).toBe(2);

    const modelCalls = latest(GenAiMetricNames.runModelCalls)?.histogram?.dataPoints[0];
    const toolCalls = latest(GenAiMetricNames.runToolCalls)?.histogram?.dataPoints[0];
    expect(Number(modelCalls?.count)).toBe(1);
    expect(modelCalls?.sum).toBe(2);
    expect(toolCalls?.sum).toBe(1);
    expect(attr(modelCalls, 'adk.app_name')).toEqual({ stringValue: 'metered' });

    // Cost from the default price table: 2 × (12 × $3 + 5 × $15) per million tokens.
    const listed = (await (await fetch(`${t.url}/debug/traces?session=m1`)).json()) as {
      traces: { cost_usd: number; input_tokens: number }[];
    };
    expect(listed.traces[0]?.input_tokens).toBe(24);
    expect(listed.traces[0]?.cost_usd).toBeCloseTo(222e-6, 9);
    const spans = (await (await fetch(`${t.url}/debug/trace/session/m1`)).json()) as {
      name: string;
      attributes: Record<string, unknown>;
    }[];
    expect(spans.find((s) => s.name === 'call_llm')?.attributes['adk.usage.cost_usd']).toBeCloseTo(111e-6, 9);
  });
});

/**
 * Names the GenAI registry of semantic conventions v1.37.0 publishes (attributes and metrics),
 * written from that published version for this check; `gen_ai.system` is listed there as
 * deprecated, replaced by `gen_ai.provider.name`.
 */
const REGISTRY_1_37_0 = new Set([
  'gen_ai.agent.description',
  'gen_ai.agent.id',
  'gen_ai.agent.name',
  'gen_ai.conversation.id',
  'gen_ai.data_source.id',
  'gen_ai.input.messages',
  'gen_ai.operation.name',
  'gen_ai.output.messages',
  'gen_ai.output.type',
  'gen_ai.provider.name',
  'gen_ai.request.choice.count',
  'gen_ai.request.encoding_formats',
  'gen_ai.request.frequency_penalty',
  'gen_ai.request.max_tokens',
  'gen_ai.request.model',
  'gen_ai.request.presence_penalty',
  'gen_ai.request.seed',
  'gen_ai.request.stop_sequences',
  'gen_ai.request.temperature',
  'gen_ai.request.top_k',
  'gen_ai.request.top_p',
  'gen_ai.response.finish_reasons',
  'gen_ai.response.id',
  'gen_ai.response.model',
  'gen_ai.system_instructions',
  'gen_ai.token.type',
  'gen_ai.tool.call.id',
  'gen_ai.tool.description',
  'gen_ai.tool.name',
  'gen_ai.tool.type',
  'gen_ai.usage.input_tokens',
  'gen_ai.usage.output_tokens',
  'gen_ai.client.token.usage',
  'gen_ai.client.operation.duration',
  'gen_ai.server.request.duration',
  'gen_ai.server.time_per_output_token',
  'gen_ai.server.time_to_first_token',
]);
const DEPRECATED_1_37_0 = new Set(['gen_ai.system']);

describe('GenAI semantic conventions', () => {
  it(`emits only names of the declared registry version (${GEN_AI_SEMCONV_VERSION})`, async () => {
    expect(GEN_AI_SEMCONV_VERSION).toBe('1.37.0');
    const { GenAi } = await import('@adk/core');
    // Core's attribute names, but the deprecated one kept for OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai/dup.
    const emitted: string[] = Object.values(GenAi).filter((name) => !DEPRECATED_1_37_0.has(name));
    emitted.push('gen_ai.provider.name', 'gen_ai.token.type');
    emitted.push(GenAiMetricNames.tokenUsage, GenAiMetricNames.operationDuration);
    // Names seen on the wire too: every gen_ai.* attribute of the exported data points.
    for (const metric of metrics)
      for (const point of metric.histogram?.dataPoints ?? [])
        for (const a of point.attributes) if (a.key.startsWith('gen_ai.')) emitted.push(a.key);
    expect(emitted.filter((name) => !REGISTRY_1_37_0.has(name))).toEqual([]);
    expect(Object.values(GenAi)).not.toContain('gen_ai.provider.name');
  });
});
