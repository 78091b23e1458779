import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { unknownKeys } from './__fixtures__/adk-recording-fields.js';
import { runCli } from './__fixtures__/cli.js';

const SUITE = fileURLToPath(new URL('../conformance', import.meta.url));
const AGENTS = join(SUITE, 'agents');
const TESTS = join(SUITE, 'tests');

async function caseDirs(root: string): Promise<string[]> {
  const out: string[] = [];
  for (const category of await readdir(root, { withFileTypes: true })) {
    if (!category.isDirectory()) continue;
    for (const item of await readdir(join(root, category.name), { withFileTypes: true }))
      if (item.isDirectory()) out.push(`${category.name}/${item.name}`);
  }
  return out.sort();
}

let work: string;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'adk-conformance-'));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

/** A copy of YAML-only apps and some cases, to change without touching the suite. */
async function copyOf(
  name: string,
  apps: string[],
  cases: string[],
): Promise<{ agents: string; tests: string }> {
  const root = join(work, name);
  for (const app of apps) await cp(join(AGENTS, app), join(root, 'agents', app), { recursive: true });
  for (const c of cases) await cp(join(TESTS, c), join(root, 'tests', c), { recursive: true });
  return { agents: join(root, 'agents'), tests: join(root, 'tests') };
}

describe('adk conformance test on the committed suite', () => {
  it('replays every case in both streaming modes with strict request comparison', async () => {
    const report = join(work, 'suite-report.md');
    const result = await runCli(['conformance', 'test', AGENTS, TESTS, '--report', report], {
      timeoutMs: 90_000,
    });
    const cases = await caseDirs(TESTS);
    expect(cases.length).toBeGreaterThanOrEqual(17);
    expect(result.stderr).toBe('');
    expect(result.stdout).toContain(
      `${cases.length * 2} case runs: ${cases.length * 2} passed, 0 failed, 0 skipped`,
    );
    expect(result.code).toBe(0);
    const markdown = await readFile(report, 'utf8');
    for (const c of cases) {
      expect(markdown).toContain(`| ${c} | none | ✓ PASS |`);
      expect(markdown).toContain(`| ${c} | sse | ✓ PASS |`);
    }
    expect(markdown).not.toContain('## Failures');
  }, 120_000);

  it('every recordings file of the suite (written by `adk conformance record`) uses only adk-python field names', async () => {
    const kinds = new Set<string>();
    for (const c of await caseDirs(TESTS)) {
      for (const file of ['generated-recordings.yaml', 'generated-recordings-sse.yaml']) {
        const data = parse(await readFile(join(TESTS, c, file), 'utf8'));
        for (const r of data.recordings) for (const k of Object.keys(r)) kinds.add(k);
        expect(unknownKeys(data), `${c}/${file}`).toEqual([]);
      }
    }
    expect([...kinds].sort()).toEqual([
      'agent_name',
      'llm_recording',
      'tool_recording',
      'user_message_index',
    ]);
  });

  it('every session file of the suite uses only the field names of adk-python 2.x Session and Event', async () => {
    const seen = new Set<string>();
    for (const c of await caseDirs(TESTS)) {
      for (const file of ['generated-session.yaml', 'generated-session-sse.yaml']) {
        const session = parse(await readFile(join(TESTS, c, file), 'utf8'));
        expect(unknownKeys(session, 'Session'), `${c}/${file}`).toEqual([]);
        for (const e of session.events) for (const k of Object.keys(e)) seen.add(k);
      }
    }
    // A key adk-python does not have is caught, at any depth.
    expect(
      unknownKeys(
        { id: 's', events: [{ author: 'a', actions: { state_delta: {}, message_as_output: true } }] },
        'Session',
      ),
    ).toEqual(['events[0].actions.message_as_output: EventActions has no field "message_as_output"']);
    // The workflow cases carry ADK 2.x's node fields, so the check covers them too.
    expect([...seen]).toEqual(expect.arrayContaining(['actions', 'node_info', 'output', 'branch']));
  });
});

describe('adk conformance test catches differences', () => {
  it('fails a case whose agent instruction changed, with the first difference as a diff', async () => {
    const copy = await copyOf('changed-instruction', ['single_llm'], ['llm_agent/greeting']);
    const file = join(copy.agents, 'single_llm', 'root_agent.yaml');
    await writeFile(
      file,
      (await readFile(file, 'utf8')).replace('Greet the user by name', 'Greet the user warmly by name'),
    );
    // adk-python's report flags: --generate_report into --report_dir.
    const reportDir = join(work, 'changed-report');
    const report = join(reportDir, 'adk-conformance-report.md');
    const result = await runCli([
      'conformance',
      'test',
      copy.agents,
      copy.tests,
      '--streaming-mode',
      'none',
      '--generate_report',
      '--report_dir',
      reportDir,
    ]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('✗ llm_agent/greeting [none]');
    expect(result.stdout).toContain(
      'Model request mismatch for agent "greeter", user message 0, model call 0',
    );
    expect(result.stdout).toContain('The model request differs first at config.system_instruction');
    expect(result.stdout).toContain("-    Greet the user by name. The user's name is Ada.");
    expect(result.stdout).toContain("+    Greet the user warmly by name. The user's name is Ada.");
    expect(result.stdout).toContain('1 case runs: 0 passed, 1 failed, 0 skipped');
    const markdown = await readFile(report, 'utf8');
    expect(markdown).toContain('| llm_agent/greeting | none | ✗ FAIL |');
    expect(markdown).toContain('### llm_agent/greeting (none)');
    expect(markdown).toContain('```diff');
  });

  it('fails a case whose recorded tool call no longer matches the one the runtime makes', async () => {
    const copy = await copyOf('changed-tool-call', ['transfer_app'], ['transfer/to_sub_agent']);
    const file = join(copy.tests, 'transfer/to_sub_agent/generated-recordings.yaml');
    const text = await readFile(file, 'utf8');
    // The recorded model still asks for billing; the recorded tool call now says support.
    const changed = text.replace(/(tool_call:\n(?:.*\n)*?\s+agent_name: )billing/, '$1support');
    expect(changed).not.toBe(text);
    await writeFile(file, changed);
    const result = await runCli(['conformance', 'test', copy.agents, copy.tests, '--streaming-mode', 'none']);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(
      'Tool call mismatch for agent "coordinator", user message 0, tool call 0',
    );
    expect(result.stdout).toContain('The tool call differs first at args.agent_name');
  });

  it('fails a case whose recorded session has an event the replay does not produce', async () => {
    const copy = await copyOf('changed-session', ['single_llm'], ['llm_agent/greeting']);
    const file = join(copy.tests, 'llm_agent/greeting/generated-session.yaml');
    const text = await readFile(file, 'utf8');
    await writeFile(file, text.replace('- text: Say it again', '- text: Say it once more'));
    const result = await runCli(['conformance', 'test', copy.agents, copy.tests, '--streaming-mode', 'none']);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('Event 2 (author user) differs first at content.parts[0].text');
  });
});

describe('adk conformance test replays as adk-python replays', () => {
  it('answers an AgentTool call from the recording without running its agent', async () => {
    const copy = await copyOf('agent-tool-replay', ['agent_tool_app'], ['agent_tool/summarize']);
    const file = join(copy.tests, 'agent_tool/summarize/generated-recordings.yaml');
    const recordings = parse(await readFile(file, 'utf8'));
    // Without the nested agent's model calls, a replay that ran it would ask for more than recorded.
    recordings.recordings = recordings.recordings.filter(
      (r: { agent_name: string }) => r.agent_name !== 'summarizer',
    );
    expect(recordings.recordings.length).toBeGreaterThan(1);
    await writeFile(file, stringify(recordings));
    const result = await runCli(['conformance', 'test', copy.agents, copy.tests], { timeoutMs: 90_000 });
    expect(result.stdout).toContain('2 case runs: 2 passed, 0 failed, 0 skipped');
    expect(result.code).toBe(0);
  }, 120_000);

  it("passes hand-written cases in adk-python 1.x's recording shape under --lenient-requests only", async () => {
    // genai `parameters` declarations (upper-case types, nullable, $refs inlined, a response
    // schema) and an unfenced relayed turn ("For context:", "[writer] said: …"), against the suite's apps.
    const cases = fileURLToPath(new URL('./__fixtures__/adk1-cases/tests', import.meta.url));
    const lenient = await runCli(['conformance', 'test', AGENTS, cases, '--lenient-requests'], {
      timeoutMs: 90_000,
    });
    expect(lenient.stdout).toContain('✓ tool_schemas/refs_and_nullables_1x [none]');
    expect(lenient.stdout).toContain('✓ sequential/draft_and_review_1x [none]');
    expect(lenient.stdout).toContain('2 passed, 0 failed, 2 skipped');
    expect(lenient.code).toBe(0);
    const strict = await runCli(['conformance', 'test', AGENTS, cases, '--streaming-mode', 'none'], {
      timeoutMs: 90_000,
    });
    expect(strict.code).toBe(1);
    expect(strict.stdout).toContain('2 case runs: 0 passed, 2 failed, 0 skipped');
  }, 200_000);
});

describe('adk conformance record', () => {
  it('records a failed tool call with its error response, and replays it', async () => {
    const agents = fileURLToPath(new URL('./__fixtures__/conformance-agents', import.meta.url));
    const tests = join(work, 'failing-tool', 'tests');
    await mkdir(join(tests, 'tools', 'fails'), { recursive: true });
    await writeFile(
      join(tests, 'tools', 'fails', 'spec.yaml'),
      'description: A tool call fails.\nagent: failing_tool_app\nuser_messages:\n  - text: What is the weather forecast in Paris?\n',
    );
    const recorded = await runCli(['conformance', 'record', agents, tests], { timeoutMs: 90_000 });
    expect(recorded.stdout).toContain('1 case runs: 1 recorded, 0 failed, 0 skipped');
    const recordings = parse(
      await readFile(join(tests, 'tools', 'fails', 'generated-recordings.yaml'), 'utf8'),
    );
    const tool = recordings.recordings.find((r: { tool_recording?: unknown }) => r.tool_recording);
    expect(tool.tool_recording.tool_response).toMatchObject({
      name: 'get_weather',
      response: { error: 'Tool "get_weather" failed: the weather service is down' },
    });
    const replayed = await runCli(['conformance', 'test', agents, tests, '--streaming-mode', 'none'], {
      timeoutMs: 90_000,
    });
    expect(replayed.stdout).toContain('1 case runs: 1 passed, 0 failed, 0 skipped');
  }, 200_000);

  it('writes recordings and a session that replay, with adk-python field names only', async () => {
    const copy = await copyOf('record', ['transfer_app'], ['transfer/to_peer']);
    const dir = join(copy.tests, 'transfer/to_peer');
    await rm(join(dir, 'generated-recordings.yaml'));
    await rm(join(dir, 'generated-session.yaml'));
    const recorded = await runCli(['conformance', 'record', copy.agents, copy.tests]);
    expect(recorded.stdout).toContain('recorded transfer/to_peer [none]');
    expect(recorded.code).toBe(0);
    const recordings = parse(await readFile(join(dir, 'generated-recordings.yaml'), 'utf8'));
    expect(unknownKeys(recordings)).toEqual([]);
    expect(recordings.recordings.map((r: { agent_name: string }) => r.agent_name)).toEqual([
      'coordinator',
      'coordinator',
      'billing',
      'billing',
      'billing',
      'support',
    ]);
    const session = parse(await readFile(join(dir, 'generated-session.yaml'), 'utf8'));
    expect(Object.keys(session)).toEqual(['id', 'app_name', 'user_id', 'events', 'last_update_time']);
    expect(unknownKeys(session, 'Session')).toEqual([]);
    expect(JSON.stringify(session)).not.toContain('_adk_recordings_config');
    const replayed = await runCli([
      'conformance',
      'test',
      copy.agents,
      copy.tests,
      '--streaming-mode',
      'none',
    ]);
    expect(replayed.stdout).toContain('1 case runs: 1 passed, 0 failed, 0 skipped');
    expect(replayed.code).toBe(0);
  });
});

describe('malformed conformance files', () => {
  it('fails the case whose spec.yaml has an unknown key, naming the file, line and YAML path', async () => {
    const root = join(work, 'malformed');
    await cp(join(AGENTS, 'single_llm'), join(root, 'agents', 'single_llm'), { recursive: true });
    const dir = join(root, 'tests', 'broken', 'typo');
    await cp(join(TESTS, 'llm_agent/greeting'), dir, { recursive: true });
    await writeFile(
      join(dir, 'spec.yaml'),
      'description: A typo in a user message\nagent: single_llm\nuser_messages:\n  - txt: Hello\n',
    );
    const result = await runCli([
      'conformance',
      'test',
      join(root, 'agents'),
      join(root, 'tests'),
      '--streaming-mode',
      'none',
    ]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(
      `${join(dir, 'spec.yaml')}:4:5: at user_messages[0].txt: expected one of the keys text, content, state_delta, found the unknown key "txt"`,
    );
  });

  it('fails the case whose recordings use a key adk-python does not have', async () => {
    const copy = await copyOf('malformed-recordings', ['single_llm'], ['llm_agent/greeting']);
    const file = join(copy.tests, 'llm_agent/greeting/generated-recordings.yaml');
    await writeFile(file, (await readFile(file, 'utf8')).replace('llm_recording:', 'llm_recordings:'));
    const result = await runCli(['conformance', 'test', copy.agents, copy.tests, '--streaming-mode', 'none']);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(
      /generated-recordings\.yaml:\d+:\d+: at recordings\[0\]\.llm_recordings: expected one of the keys user_message_index, agent_name, llm_recording, tool_recording/,
    );
  });
});
