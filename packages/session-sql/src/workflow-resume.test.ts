import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type Content,
  type Event,
  FunctionTool,
  LlmAgent,
  Runner,
  SequentialAgent,
  userContent,
} from '@adk/core';
import { functionCallResponse, ScriptedModel } from '@adk/core/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { SqlSessionService } from './index.js';

const dir = mkdtempSync(join(tmpdir(), 'adk-session-sql-workflow-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function collect(iterable: AsyncIterable<Event>): Promise<Event[]> {
  const out: Event[] = [];
  for await (const event of iterable) out.push(event);
  return out;
}

/** One "process": a fresh service on the PGlite database, a fresh agent tree and runner. */
async function boot(url: string, scripts: { research: string[]; review: unknown[]; report: string[] }) {
  const sessionService = await SqlSessionService.fromUrl(url);
  const askEditor = new FunctionTool({
    name: 'ask_editor',
    description: 'Asks a human editor; the answer arrives later',
    parameters: z.object({ draft: z.string() }),
    isLongRunning: true,
    execute: () => undefined,
  });
  const research = new LlmAgent({
    name: 'research',
    model: new ScriptedModel(scripts.research),
    outputKey: 'notes',
  });
  const review = new LlmAgent({
    name: 'review',
    model: new ScriptedModel(scripts.review as ConstructorParameters<typeof ScriptedModel>[0]),
    tools: [askEditor],
  });
  const report = new LlmAgent({
    name: 'report',
    model: new ScriptedModel(scripts.report),
    instruction: 'Write the report from {notes}.',
  });
  const agent = new SequentialAgent({ name: 'pipeline', subAgents: [research, review, report] });
  const runner = new Runner({ appName: 'workflow', agent, sessionService, autoCreateSession: true });
  const run = (newMessage: Content) => collect(runner.run({ userId: 'u', sessionId: 's', newMessage }));
  return { sessionService, run };
}

const texts = (events: Event[]) =>
  events
    .filter((e) => e.content?.parts[0]?.text && e.author !== 'user')
    .map((e) => `${e.author}: ${e.content?.parts[0]?.text}`);

describe('pglite: a paused step of a SequentialAgent resumes after a restart and the workflow goes on', () => {
  it('runs the steps after the resumed one, and only those', async () => {
    const url = `pglite://${join(dir, 'pgdata')}`;
    const first = await boot(url, {
      research: ['notes on tides'],
      review: [functionCallResponse('ask_editor', { draft: 'notes on tides' })],
      report: [],
    });
    const paused = await first.run(userContent('Write about tides'));
    expect(texts(paused)).toEqual(['research: notes on tides']);
    const callId = paused.at(-1)?.content?.parts[0]?.functionCall?.id as string;
    expect(paused.at(-1)?.longRunningToolIds).toEqual([callId]);
    await first.sessionService.close();

    // A new process: research must not run again (its script is empty), review resumes, report runs.
    const second = await boot(url, {
      research: [],
      review: ['The editor approved.'],
      report: ['Tides: a report.'],
    });
    const resumed = await second.run({
      role: 'user',
      parts: [{ functionResponse: { id: callId, name: 'ask_editor', response: { approved: true } } }],
    });
    expect(texts(resumed)).toEqual(['review: The editor approved.', 'report: Tides: a report.']);
    const session = await second.sessionService.getSession({
      appName: 'workflow',
      userId: 'u',
      sessionId: 's',
    });
    expect(session?.state.notes).toBe('notes on tides');
    expect(session?.events.map((e) => e.author)).toEqual([
      'user',
      'research',
      'review',
      'user',
      'review',
      'report',
    ]);
    await second.sessionService.close();
  });
});
