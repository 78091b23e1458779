import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FunctionTool, LlmAgent, type LlmRequest } from '@adk/core';
import { functionCallResponse, ScriptedModel } from '@adk/core/testing';
import { kyselyFromUrl } from '@adk/session-sql';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startServer, type TestServer } from './__fixtures__/apps.js';
import { builtInRedactor } from './index.js';

// A secret and a card number put in a tool result (and in a tool's error) appear in no span stored
// in the database and in no span exported over OTLP; content capture full keeps the (masked)
// payloads, metadata none.

const SECRET = 'sk-live-A1b2C3d4E5f6G7h8J9k0L1m2';
const CARD = '4111 1111 1111 1111';

let exported = '';
let collector: Server;
let t: TestServer;
let dataDir: string;

function leakyAgent(): LlmAgent {
  return new LlmAgent({
    name: 'leaky',
    model: new ScriptedModel({
      model: 'gemini-2.5-flash',
      respond: (request: LlmRequest) => {
        const last = request.contents.at(-1);
        const response = last?.parts.find((p) => p.functionResponse)?.functionResponse;
        if (response) return `Got ${JSON.stringify(response.response)}`;
        const text = last?.parts.map((p) => p.text ?? '').join('') ?? '';
        return functionCallResponse(/boom/.test(text) ? 'boom' : 'account', {});
      },
    }),
    tools: [
      new FunctionTool({
        name: 'account',
        description: 'Account details',
        parameters: z.object({}),
        execute: () => ({ apiKey: SECRET, card: CARD }),
      }),
      new FunctionTool({
        name: 'boom',
        description: 'Fails',
        parameters: z.object({}),
        execute: () => {
          throw new Error(`rejected key ${SECRET} for card ${CARD}`);
        },
      }),
    ],
  });
}

beforeAll(async () => {
  collector = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.url === '/v1/traces') exported += Buffer.concat(chunks).toString('utf8');
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
  process.env.OTEL_EXPORTER_OTLP_ENDPOINT = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;
  process.env.OTEL_EXPORTER_OTLP_PROTOCOL = 'http/json';
  process.env.OTEL_METRICS_EXPORTER = 'none';
  process.env.OTEL_LOGS_EXPORTER = 'none';
  process.env.OTEL_BSP_SCHEDULE_DELAY = '50';
  dataDir = mkdtempSync(join(tmpdir(), 'adk-server-redaction-'));
  t = await startServer({ dataDir, apps: { leaky: leakyAgent() }, traceContent: 'full' }, true);
}, 60_000);
afterAll(async () => {
  await t?.close();
  await new Promise((resolve) => collector.close(resolve));
  rmSync(dataDir, { recursive: true, force: true });
});

async function run(sessionId: string, text: string): Promise<string> {
  await fetch(`${t.url}/apps/leaky/users/u1/sessions/${sessionId}`, { method: 'POST' });
  const response = await fetch(`${t.url}/run`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({
      appName: 'leaky',
      userId: 'u1',
      sessionId,
      newMessage: { role: 'user', parts: [{ text }] },
    }),
  });
  expect(response.status).toBe(200);
  return response.text();
}

describe('redaction before storage and export', () => {
  it('masks a secret and a card number from a tool result and a tool error in stored and exported spans', async () => {
    // The run itself is not changed: the client gets the tool's result.
    expect(await run('r1', 'show my account')).toContain(SECRET);
    await run('r2', 'boom');
    await expect
      .poll(() => exported.includes('execute_tool boom') && exported.includes('execute_tool account'), {
        timeout: 30_000,
      })
      .toBe(true);
    // The server's own view (the routes) is masked too, with the payload kept (content full).
    const spans = JSON.stringify(await (await fetch(`${t.url}/debug/trace/session/r1`)).json());
    expect(spans).toContain('gcp.vertex.agent.llm_request');
    expect(spans).toContain('[REDACTED:');
    await t.close();

    expect(exported).not.toContain(SECRET);
    expect(exported).not.toContain(CARD);
    expect(exported).toContain('[REDACTED:'); // the failed tool's status and exception event
    const db = await kyselyFromUrl(`pglite://${join(dataDir, 'pglite')}`);
    try {
      const { rows } = await sql<{
        text: string;
      }>`select attributes::text || coalesce(status_message, '') as text
        from adk_spans`.execute(db);
      const stored = rows.map((r) => r.text).join('\n');
      expect(rows.length).toBeGreaterThan(5);
      expect(stored).toContain('gcp.vertex.agent.llm_request');
      expect(stored).toContain('[REDACTED:');
      expect(stored).not.toContain(SECRET);
      expect(stored).not.toContain(CARD);
      expect(stored).not.toContain(SECRET.slice(8));
    } finally {
      await db.destroy();
    }
  }, 120_000);

  it('has a built-in detector for keys, tokens and Luhn-valid card numbers only', () => {
    expect(builtInRedactor(`key ${SECRET} card ${CARD} end`)).toBe(
      'key [REDACTED:api_key] card [REDACTED:payment_card] end',
    );
    expect(builtInRedactor('order 1234 5678 9012 3456')).toBe('order 1234 5678 9012 3456');
    expect(builtInRedactor('AKIAABCDEFGHIJKLMNOP')).toBe('[REDACTED:api_key]');
  });
});
