import { cp, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { type Served, startServer } from './__fixtures__/serve.js';
import { DEMO_NOTICE } from './index.js';

const AGENTS = fileURLToPath(new URL('../conformance/agents', import.meta.url));
const USER = 'adk_conformance_test_user';

let work: string;
let server: Served;
let caseDir: string;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'adk-conformance-server-'));
  await cp(join(AGENTS, 'single_llm'), join(work, 'agents', 'single_llm'), { recursive: true });
  caseDir = join(work, 'tests', 'llm_agent', 'greeting');
  await mkdir(caseDir, { recursive: true });
  server = await startServer('api_server', join(work, 'agents'), join(work, 'data'), [
    '--conformance',
    '--no-a2a',
  ]);
}, 40_000);

afterAll(async () => {
  await server?.stop();
  await rm(work, { recursive: true, force: true });
});

async function post(path: string, body: unknown): Promise<Response> {
  return fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

async function createSession(): Promise<string> {
  const res = await post(`/apps/single_llm/users/${USER}/sessions`, { state: { user_name: 'Ada' } });
  expect(res.status).toBe(200);
  return ((await res.json()) as { id: string }).id;
}

/** One `/run_sse` as adk-python's conformance client sends it: the mode's config in `stateDelta`. */
async function runSse(sessionId: string, text: string, stateDelta?: Record<string, unknown>) {
  const res = await post('/run_sse', {
    appName: 'single_llm',
    userId: USER,
    sessionId,
    newMessage: { role: 'user', parts: [{ text }] },
    streaming: false,
    ...(stateDelta ? { stateDelta } : {}),
  });
  expect(res.status).toBe(200);
  return (await res.text())
    .split('\n')
    .filter((l) => l.startsWith('data:'))
    .map(
      (l) => JSON.parse(l.slice(5)) as Record<string, unknown> & { content?: { parts: { text?: string }[] } },
    );
}

describe('adk api_server --conformance (for adk-python’s conformance client)', () => {
  it('records a run whose state carries _adk_recordings_config, and replays it with _adk_replay_config', async () => {
    const config = { dir: caseDir, user_message_index: 0, streaming_mode: 'none' };
    const recorded = await runSse(await createSession(), 'Hello there', { _adk_recordings_config: config });
    const recordedText = recorded.at(-1)?.content?.parts[0]?.text;
    expect(recordedText).toContain(DEMO_NOTICE);

    const file = parse(await readFile(join(caseDir, 'generated-recordings.yaml'), 'utf8'));
    expect(file.recordings).toHaveLength(1);
    expect(file.recordings[0]).toMatchObject({
      user_message_index: 0,
      agent_name: 'greeter',
      llm_recording: {
        llm_request: { model: 'gemini-2.5-flash' },
        llm_responses: [{ content: { role: 'model' } }],
      },
    });

    const replayed = await runSse(await createSession(), 'Hello there', { _adk_replay_config: config });
    expect(replayed.at(-1)?.content?.parts[0]?.text).toBe(recordedText);

    // Another message makes another request than the recorded one: the run ends with the mismatch.
    const mismatched = await runSse(await createSession(), 'Goodbye', { _adk_replay_config: config });
    expect(mismatched.at(-1)).toMatchObject({ errorCode: 'CONFORMANCE_MISMATCH' });
    expect(String(mismatched.at(-1)?.errorMessage)).toContain('differs first at contents[0].parts[0].text');
  });

  it('answers runs without a conformance config with the model the agent names', async () => {
    const events = await runSse(await createSession(), 'Hello');
    expect(events.at(-1)?.content?.parts[0]?.text).toContain('You said: "Hello"');
  });
});
