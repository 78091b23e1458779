import { fileURLToPath } from 'node:url';
import {
  type Event,
  InMemorySessionService,
  LlmAgent,
  type LlmRequest,
  Runner,
  userContent,
} from '@adk/core';
import { functionCallResponse, functionCallsResponse, ScriptedModel } from '@adk/core/testing';
import { LocalSandboxEnvironment } from '@adk/environments';
import { afterAll, describe, expect, it } from 'vitest';
import {
  ACTIVE_SKILL_STATE_PREFIX,
  defineSkill,
  loadSkillsFromDir,
  SkillToolset,
  skillSystemInstruction,
  UNLOADED_SKILL_NOTE,
} from './index.js';

const SKILLS_DIR = fileURLToPath(new URL('./__fixtures__/skills', import.meta.url));

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

describe('SkillToolset', () => {
  const sandbox = new LocalSandboxEnvironment({ limits: { timeoutMs: 15_000 } });
  afterAll(() => sandbox.close());

  it('loads a skill, runs its script in the sandbox, and a resumed session keeps it loaded', async () => {
    const csv = 'city,temp,rain\nParis,21,2\nOslo,9,5\nRome,28,0\n';
    const requests: LlmRequest[] = [];
    const model = new ScriptedModel({
      script: [
        (request) => {
          requests.push(structuredClone(request));
          return functionCallResponse('load_skill', { name: 'csv-stats' }, 'c-load');
        },
        (request) => {
          requests.push(structuredClone(request));
          return functionCallResponse(
            'run_skill_script',
            { skill_name: 'csv-stats', path: 'scripts/stats.py', stdin: csv },
            'c-run',
          );
        },
        (request) => {
          requests.push(structuredClone(request));
          return '3 rows; mean temp 19.3.';
        },
      ],
    });
    const sessionService = new InMemorySessionService();
    const makeRunner = (m: ScriptedModel) =>
      new Runner({
        appName: 'skills',
        agent: new LlmAgent({
          name: 'analyst',
          model: m,
          tools: [new SkillToolset({ skills: SKILLS_DIR, environment: sandbox })],
        }),
        sessionService,
        autoCreateSession: true,
      });
    const events = await collect(
      makeRunner(model).run({
        userId: 'u',
        sessionId: 's',
        newMessage: userContent(`Stats please:\n${csv}`),
      }),
    );
    const r = responses(events);

    // The first request lists both skills by name and description, in ADK's text.
    const skills = await loadSkillsFromDir(SKILLS_DIR);
    expect(requests[0]?.systemInstruction).toContain(skillSystemInstruction(skills));
    expect(requests[0]?.systemInstruction).toContain('<name>\ncsv-stats\n</name>');
    expect(requests[0]?.tools?.map((t) => t.name).sort()).toEqual([
      'load_skill',
      'load_skill_resource',
      'run_skill_script',
      'unload_skill',
    ]);
    // load_skill puts the body into the conversation, and the record into the event.
    expect(r['c-load']).toMatchObject({
      skill_name: 'csv-stats',
      instructions: expect.stringContaining('Run `scripts/stats.py` with `run_skill_script`'),
      frontmatter: { name: 'csv-stats', license: 'Apache-2.0', metadata: { author: 'adk-ts' } },
    });
    const loadEvent = events.find((e) => e.content?.parts.some((p) => p.functionResponse?.id === 'c-load'));
    expect(loadEvent?.actions.stateDelta).toEqual({
      [`${ACTIVE_SKILL_STATE_PREFIX}analyst:csv-stats`]: true,
    });
    // The script ran in the sandbox and its result flowed back to the model.
    expect(r['c-run']).toMatchObject({ exit_code: 0, stderr: '' });
    expect(JSON.parse(String(r['c-run']?.stdout))).toEqual({
      rows: 3,
      means: { rain: 7 / 3, temp: 58 / 3 },
    });
    const sawResult = requests[2]?.contents.some((c) =>
      c.parts.some(
        (p) =>
          p.functionResponse?.id === 'c-run' &&
          String(p.functionResponse.response.stdout).includes('"rows": 3'),
      ),
    );
    expect(sawResult).toBe(true);

    // A new runner (a restarted server) on the same session: the skill is still loaded.
    const resumedRequests: LlmRequest[] = [];
    const resumedModel = new ScriptedModel({
      script: [
        (request) => {
          resumedRequests.push(structuredClone(request));
          return functionCallsResponse([
            { name: 'load_skill', args: { name: 'weather-report' }, id: 'c-load2' },
            {
              name: 'load_skill_resource',
              args: { skill_name: 'weather-report', path: 'references/style.md' },
              id: 'c-ref',
            },
            {
              name: 'load_skill_resource',
              args: { skill_name: 'weather-report', path: '../csv-stats/SKILL.md' },
              id: 'c-bad',
            },
            {
              name: 'load_skill_resource',
              args: { skill_name: 'weather-report', path: 'references/../../csv-stats/SKILL.md' },
              id: 'c-esc',
            },
          ]);
        },
        (request) => {
          resumedRequests.push(structuredClone(request));
          return functionCallResponse('unload_skill', { name: 'csv-stats' }, 'c-unload');
        },
        (request) => {
          resumedRequests.push(structuredClone(request));
          return 'done';
        },
      ],
    });
    const resumed = makeRunner(resumedModel);
    const before = await sessionService.getSession({ appName: 'skills', userId: 'u', sessionId: 's' });
    expect(before?.state[`${ACTIVE_SKILL_STATE_PREFIX}analyst:csv-stats`]).toBe(true);
    const second = await collect(
      resumed.run({
        userId: 'u',
        sessionId: 's',
        newMessage: userContent('Now the weather style, then drop the stats'),
      }),
    );
    const r2 = responses(second);
    // The earlier load is still in the history the model sees.
    expect(
      resumedRequests[0]?.contents.some((c) =>
        c.parts.some(
          (p) =>
            p.functionResponse?.name === 'load_skill' &&
            String(p.functionResponse.response.instructions).includes('stats.py'),
        ),
      ),
    ).toBe(true);
    expect(r2['c-ref']).toEqual({
      skill_name: 'weather-report',
      path: 'references/style.md',
      content: 'Always give the temperature in Celsius first, then the sky, in one sentence.\n',
    });
    expect(r2['c-bad']).toMatchObject({ error_code: 'INVALID_RESOURCE_PATH' });
    expect(r2['c-esc']).toMatchObject({ error_code: 'RESOURCE_NOT_FOUND' });
    expect(r2['c-unload']).toEqual({ skill_name: 'csv-stats', status: 'unloaded' });
    // After unloading, the model's requests no longer carry that skill's instructions.
    const lastLoads = resumedRequests[2]?.contents.flatMap((c) =>
      c.parts
        .filter((p) => p.functionResponse?.name === 'load_skill')
        .map((p) => p.functionResponse?.response),
    );
    expect(lastLoads).toEqual([
      expect.objectContaining({ skill_name: 'csv-stats', instructions: UNLOADED_SKILL_NOTE }),
      expect.objectContaining({
        skill_name: 'weather-report',
        instructions: expect.stringContaining('style.md'),
      }),
    ]);
    // The stored history keeps what was returned.
    const stored = await sessionService.getSession({ appName: 'skills', userId: 'u', sessionId: 's' });
    const storedLoad = stored?.events
      .flatMap((e) => e.content?.parts ?? [])
      .find((p) => p.functionResponse?.id === 'c-load');
    expect(String(storedLoad?.functionResponse?.response.instructions)).toContain('stats.py');

    // Rewinding before the second turn brings back the state of the first: csv-stats loaded.
    const secondInvocation = second[0]?.invocationId as string;
    await resumed.rewind({ userId: 'u', sessionId: 's', rewindBeforeInvocationId: secondInvocation });
    const rewound = await sessionService.getSession({ appName: 'skills', userId: 'u', sessionId: 's' });
    expect(rewound?.state[`${ACTIVE_SKILL_STATE_PREFIX}analyst:csv-stats`]).toBe(true);
    expect(rewound?.state[`${ACTIVE_SKILL_STATE_PREFIX}analyst:weather-report`] ?? null).toBeNull();
  });

  it('caps the skills loaded at once, and answers unknown names with ADK’s error codes', async () => {
    const one = defineSkill({ frontmatter: { name: 'one', description: 'first' }, instructions: 'Do one.' });
    const two = defineSkill({
      frontmatter: { name: 'two', description: 'second' },
      instructions: 'Do two.',
      files: { 'references/a.md': 'A' },
    });
    const model = new ScriptedModel({
      script: [
        functionCallResponse('load_skill', { name: 'one' }, 'a'),
        functionCallResponse('load_skill', { name: 'two' }, 'b'),
        functionCallResponse('load_skill', { name: 'nope' }, 'c'),
        functionCallResponse('load_skill_resource', { skill_name: 'two', path: 'references/a.md' }, 'd'),
        functionCallResponse('run_skill_script', { skill_name: 'two', path: 'scripts/x.py' }, 'e'),
        'ok',
      ],
    });
    const runner = new Runner({
      appName: 'cap',
      agent: new LlmAgent({
        name: 'a',
        model,
        tools: [new SkillToolset({ skills: [one, two], maxActiveSkills: 1 })],
      }),
      sessionService: new InMemorySessionService(),
      autoCreateSession: true,
    });
    const r = responses(
      await collect(runner.run({ userId: 'u', sessionId: 's', newMessage: userContent('go') })),
    );
    expect(r.a).toMatchObject({ skill_name: 'one', instructions: 'Do one.' });
    expect(r.b).toMatchObject({ error_code: 'TOO_MANY_ACTIVE_SKILLS' });
    expect(r.c).toEqual({ error: "Skill 'nope' not found.", error_code: 'SKILL_NOT_FOUND' });
    expect(r.d).toEqual({ skill_name: 'two', path: 'references/a.md', content: 'A' });
    // Without an environment there is no script tool: the model's call is answered with an error.
    expect(JSON.stringify(r.e)).toMatch(/run_skill_script/);
  });
});
