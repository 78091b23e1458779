import { type Event, InMemoryRunner, LlmAgent, userContent } from '@adk/core';
import { functionCallResponse, ScriptedModel } from '@adk/core/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { CodeExecutionTool, LocalSandboxEnvironment, UnsafeLocalEnvironment } from './index.js';

async function collect(events: AsyncIterable<Event>): Promise<Event[]> {
  const out: Event[] = [];
  for await (const event of events) out.push(event);
  return out;
}

function responses(events: Event[]): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {};
  for (const event of events)
    for (const part of event.content?.parts ?? [])
      if (part.functionResponse) out[part.functionResponse.id] = part.functionResponse.response;
  return out;
}

describe('CodeExecutionTool', () => {
  const sandbox = new LocalSandboxEnvironment({ limits: { timeoutMs: 10_000 } });
  afterAll(() => sandbox.close());

  it('runs the model’s code in the sandbox; files it writes become artifacts of the session', async () => {
    const code = [
      'import csv',
      'rows = [("city", "temp"), ("Paris", 21), ("Oslo", 9)]',
      'with open("report.csv", "w", newline="") as f:',
      '    csv.writer(f).writerows(rows)',
      'print("rows:", len(rows) - 1)',
    ].join('\n');
    const model = new ScriptedModel({
      script: [
        functionCallResponse('execute_code', { language: 'python', code }, 'c1'),
        functionCallResponse(
          'execute_code',
          { language: 'shell', code: 'cat /proc/1/cmdline; sleep 30' },
          'c2',
        ),
        functionCallResponse('execute_code', { language: 'ruby', code: 'puts 1' }, 'c3'),
        'Done.',
      ],
    });
    const agent = new LlmAgent({
      name: 'coder',
      model,
      tools: [new CodeExecutionTool({ environment: sandbox, timeoutMs: 1_000 })],
    });
    const runner = new InMemoryRunner({ agent, appName: 'code' });
    const events = await collect(
      runner.run({ userId: 'u', sessionId: 's', newMessage: userContent('make a report') }),
    );
    const r = responses(events);
    expect(r.c1).toEqual({
      exit_code: 0,
      stdout: 'rows: 2\n',
      stderr: '',
      artifacts: [{ filename: 'report.csv', version: 0 }],
    });
    // The call's timeout is enforced; the server process is untouched.
    expect(r.c2).toMatchObject({ killed: 'timeout', signal: 'SIGKILL' });
    expect(r.c3?.error).toMatch(/Unknown language "ruby"; use one of: python, shell/);

    const artifact = await runner.artifactService.loadArtifact({
      appName: 'code',
      userId: 'u',
      sessionId: 's',
      filename: 'report.csv',
    });
    expect(artifact?.inlineData?.mimeType).toBe('text/csv');
    expect(Buffer.from(artifact?.inlineData?.data ?? '', 'base64').toString()).toBe(
      'city,temp\r\nParis,21\r\nOslo,9\r\n',
    );
    const withDelta = events.find((e) => e.actions.artifactDelta['report.csv'] !== undefined);
    expect(withDelta).toBeDefined();
  });

  it('declares the languages it offers', () => {
    const tool = new CodeExecutionTool({
      environment: sandbox,
      languages: { python: { argv: ['python3', '-'] } },
    });
    expect(tool.declaration().parameters).toMatchObject({
      properties: { language: { enum: ['python'] } },
      required: ['language', 'code'],
    });
  });
});

describe('UnsafeLocalEnvironment', () => {
  it('runs commands in its workspace with the timeout and output cap, and no isolation', async () => {
    const env = new UnsafeLocalEnvironment({ limits: { outputBytes: 1000, timeoutMs: 5_000 } });
    try {
      const result = await env.exec(['sh', '-c', 'echo hi > a.txt; cat a.txt; pwd']);
      expect(result.stdout).toBe(`hi\n${env.workspaceDir}\n`);
      expect((await env.exec(['sh', '-c', 'yes'])).killed).toBe('output_limit');
      expect((await env.exec(['sleep', '30'], { timeoutMs: 300 })).killed).toBe('timeout');
      expect((await env.exec(['/nonexistent/program'])).exitCode).toBe(127);
      // A process the command leaves behind, holding its output open, goes with the command.
      const background = await env.exec(['sh', '-c', 'sleep 60 & echo started'], { timeoutMs: 30_000 });
      expect(background).toMatchObject({ exitCode: 0, stdout: 'started\n' });
      expect(background.killed).toBeUndefined();
    } finally {
      await env.close();
    }
  });
});
