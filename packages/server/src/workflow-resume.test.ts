import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JoinNode, type NodeContext, RequestInput, START, Workflow } from '@adk/core';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { readSse, startServer } from './__fixtures__/apps.js';

// A graph workflow served by the api_server pauses on a question and resumes through /run_sse,
// also after the server restarted on the same data folder.

const folders: string[] = [];
afterAll(() => {
  for (const f of folders) rmSync(f, { recursive: true, force: true });
});

let prepared = 0;
function approvals(): Workflow {
  const prepare = (_ctx: NodeContext, input: unknown) => {
    prepared++;
    return `refund ${input}`;
  };
  const ask = (_ctx: NodeContext, what: unknown) =>
    new RequestInput({
      interruptId: 'approve',
      message: `Approve ${what}?`,
      responseSchema: z.object({ approved: z.boolean() }),
    });
  const audit = (_ctx: NodeContext, what: unknown) => `audited ${what}`;
  const decide = (_ctx: NodeContext, all: unknown) => {
    const { ask: answer, audit: note } = all as { ask: { approved: boolean }; audit: string };
    return `${answer.approved ? 'approved' : 'rejected'} (${note})`;
  };
  return new Workflow({
    name: 'approvals',
    description: 'asks a human before refunding',
    edges: [START, prepare, [ask, audit], new JoinNode('join'), decide],
  });
}

type SseEvent = {
  author?: string;
  output?: unknown;
  nodeInfo?: { path: string; outputFor?: string[] };
  longRunningToolIds?: string[];
  errorCode?: string;
  errorMessage?: string;
  content?: { parts: { functionCall?: { id: string; name: string; args: Record<string, unknown> } }[] };
};

async function runSse(url: string, newMessage: unknown): Promise<SseEvent[]> {
  const response = await fetch(`${url}/run_sse`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ appName: 'approvals', userId: 'u1', sessionId: 'wf', newMessage }),
  });
  expect(response.status).toBe(200);
  return (await readSse(response)).events as SseEvent[];
}

describe('a workflow over /run_sse', () => {
  it('asks with adk_request_input, refuses a malformed reply, and resumes after a restart', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'adk-server-workflow-'));
    folders.push(dataDir);
    const first = await startServer({ dataDir, apps: { approvals: approvals() } }, true);
    await fetch(`${first.url}/apps/approvals/users/u1/sessions`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ sessionId: 'wf' }),
    });
    const paused = await runSse(first.url, { role: 'user', parts: [{ text: '30 EUR' }] });
    const question = paused.find((e) => e.longRunningToolIds?.includes('approve'));
    expect(question?.content?.parts[0]?.functionCall).toMatchObject({
      id: 'approve',
      name: 'adk_request_input',
      args: {
        interruptId: 'approve',
        message: 'Approve refund 30 EUR?',
        response_schema: { type: 'object' },
      },
    });
    expect(question?.nodeInfo?.path).toBe('approvals@1/ask@1');
    expect(paused.find((e) => e.nodeInfo?.path === 'approvals@1/audit@1')?.output).toBe(
      'audited refund 30 EUR',
    );
    await first.close();

    const second = await startServer({ dataDir, apps: { approvals: approvals() } }, true);
    try {
      const reply = (response: unknown) => ({
        role: 'user',
        parts: [{ functionResponse: { id: 'approve', name: 'adk_request_input', response } }],
      });
      const wrong = await runSse(second.url, reply({ approved: 'maybe' }));
      expect(wrong.at(-1)?.errorCode).toBe('WORKFLOW_RESUME');
      const done = await runSse(second.url, reply({ approved: true }));
      expect(prepared).toBe(1);
      const last = done.at(-1);
      // The terminal node's event carries the workflow's output; the workflow adds none.
      expect(last?.nodeInfo).toEqual({
        path: 'approvals@1/decide@1',
        outputFor: ['approvals@1/decide@1', 'approvals@1'],
      });
      expect(last?.output).toBe('approved (audited refund 30 EUR)');
    } finally {
      await second.close();
    }
  }, 150_000); // two server starts on PGlite: tens of seconds on a loaded machine
});
