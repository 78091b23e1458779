import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EXAMPLES, FIXTURE_APPS, runCli } from './__fixtures__/cli.js';

const dataDir = mkdtempSync(join(tmpdir(), 'adk-run-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe.concurrent('adk run', () => {
  it('chats through a pipe: streamed reply, tool call and result, offline demo model', async () => {
    const result = await runCli(['run', join(EXAMPLES, 'assistant'), '--data-dir', dataDir], {
      input: 'What is (12 + 3) * 7?\nhello\n',
    });
    expect(result.stderr).toContain('offline demo model');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('[user]: What is (12 + 3) * 7?');
    expect(result.stdout).toContain('→ calculate({"expression":"(12 + 3) * 7"})');
    expect(result.stdout).toContain('← calculate: {"expression":"(12 + 3) * 7","result":105}');
    expect(result.stdout).toMatch(/\[assistant\]: \[offline demo model[^\n]*\n[^\n]*\n[^\n]*result: 105/);
    // Streamed: the reply to "hello" arrives over several writes, not in one piece.
    const start = result.chunks.findIndex((c) => c.includes('You said'));
    const replyChunks = result.chunks.slice(Math.max(0, start - 3)).filter((c) => c.trim().length > 0);
    expect(replyChunks.length).toBeGreaterThan(3);
  });

  it('asks y/n for a tool that needs confirmation, reading the answer from the pipe', async () => {
    const result = await runCli(['run', join(EXAMPLES, 'approval'), '--data-dir', dataDir], {
      input: 'Please refund order 1001\ny\nRefund order 1003\nno\n',
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('? refund_order({"order_id":"1001"}) needs your confirmation');
    expect(result.stdout).toContain('← refund_order: {"order_id":"1001","refunded":249,"currency":"EUR"}');
    expect(result.stdout).toContain(
      '← refund_order: {"error":"The user rejected this call of \\"refund_order\\"."}',
    );
  });

  it('transfers between agents and shows who answers', async () => {
    const result = await runCli(['run', join(EXAMPLES, 'router'), '--data-dir', dataDir], {
      input: 'What is 2^10 in math?\n',
    });
    expect(result.stdout).toContain('→ transfer_to_agent({"agent_name":"math_tutor"})');
    expect(result.stdout).toContain('← calculate: {"expression":"2^10","result":1024}');
    expect(result.stdout).toContain('[math_tutor]: ');
  });

  it('resumes a session with --session, with its state', async () => {
    const args = ['run', join(EXAMPLES, 'assistant'), '--data-dir', dataDir, '--session', 'resume-me'];
    const first = await runCli(args, { input: 'What is the weather in Paris?\n' });
    expect(first.code).toBe(0);
    const second = await runCli(args, { input: 'hello\n' });
    expect(second.stderr).toContain('Session resume-me resumed (4 events)');
    // The instruction reads {user:last_city?}, written by the weather tool in the first run.
    expect(second.stdout).toContain('The user last asked about: Paris');
    const saved = JSON.parse(
      readFileSync(join(dataDir, 'run', 'assistant', 'user', 'resume-me.json'), 'utf8'),
    );
    expect(saved.events.length).toBeGreaterThan(4);
  });

  it('replays an ADK replay file: initial state, then each query', async () => {
    const file = join(dataDir, 'replay.json');
    writeFileSync(
      file,
      JSON.stringify({ state: { 'user:last_city': 'Tokyo' }, queries: ['hi', 'What is 6 * 7?'] }),
    );
    const result = await runCli([
      'run',
      join(EXAMPLES, 'assistant'),
      '--data-dir',
      dataDir,
      '--replay',
      file,
    ]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('[user]: hi');
    expect(result.stdout).toContain('The user last asked about: Tokyo');
    expect(result.stdout).toContain('result: 42');
  });

  it('rejects a malformed replay file with a clear message', async () => {
    const file = join(dataDir, 'bad-replay.json');
    writeFileSync(file, JSON.stringify({ queries: 'not a list' }));
    const result = await runCli(['run', join(EXAMPLES, 'assistant'), '--replay', file]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`Invalid replay file ${file}`);
    expect(result.stderr).toContain('queries');
  });

  it('names the file when an agent module fails to load', async () => {
    const file = join(FIXTURE_APPS, 'broken', 'agent.ts');
    const result = await runCli(['run', join(FIXTURE_APPS, 'broken')]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`Failed to load agent module ${file}: boom while building the agent`);
    expect(result.stderr).not.toContain('    at ');
  });

  it('names the file and its exports when a module exports no agent', async () => {
    const result = await runCli(['run', join(FIXTURE_APPS, 'no_export')]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `${join(FIXTURE_APPS, 'no_export', 'agent.ts')} exports no agent: export the root agent as \`rootAgent\``,
    );
    expect(result.stderr).toContain('Its exports: helper, myAgent');
  });

  it('accepts a default export, loads .env, and serves a named model with the demo model when no key is set', async () => {
    const result = await runCli(['run', join(FIXTURE_APPS, 'good'), '--data-dir', dataDir], {
      input: 'hi\n',
    });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(
      'offline demo model (the agent asks for "gemini-2.5-flash"; no key for it is set)',
    );
    expect(result.stdout).toContain('[good]: [offline demo model');
    // ADK_FIXTURE_GREETING comes from the agent folder's .env.
    expect(result.stdout).toContain('My instructions: "Say bonjour."');
  });
});
