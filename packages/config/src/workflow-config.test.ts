import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Event, InMemorySessionService, type LlmAgent, Runner, userContent, Workflow } from '@adk/core';
import { ScriptedModel } from '@adk/core/testing';
import { describe, expect, it } from 'vitest';
import { AgentConfigError, checkAgentConfig, loadAgentFromConfig } from './index.js';

// Under the package's node_modules so that modules written there resolve @adk/core.
const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');
mkdirSync(join(packageDir, 'node_modules', '.tmp'), { recursive: true });
const temp = mkdtempSync(join(packageDir, 'node_modules', '.tmp', 'adk-workflow-'));
let count = 0;
function app(files: Record<string, string>): string {
  const dir = join(temp, `agents${++count}`, 'wf_app');
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return join(dir, 'root_agent.yaml');
}

const NODES = [
  "export function classify(ctx, text) { ctx.route = String(text).endsWith('?') ? 'question' : 'other'; return text; }",
  'export function shout(_ctx, text) { return String(text).toUpperCase(); }',
  'export function note(_ctx, text) { return `noted: ${text}`; }',
  'export function done(_ctx, text) { return `done: ${text}`; }',
  'export const not_a_node = 3;',
].join('\n');

async function run(agent: Workflow | LlmAgent, text: string): Promise<Event[]> {
  const runner = new Runner({
    appName: 'a',
    agent,
    sessionService: new InMemorySessionService(),
    autoCreateSession: true,
  });
  const out: Event[] = [];
  for await (const e of runner.run({ userId: 'u', sessionId: 's', newMessage: userContent(text) }))
    out.push(e);
  return out;
}

describe('agent_class: Workflow', () => {
  it('builds the graph: chains, a routing map with a default, an agent YAML node, an explicit edge', async () => {
    const root = app({
      'root_agent.yaml': [
        'agent_class: Workflow',
        'name: triage',
        'description: Routes questions to an agent.',
        'max_concurrency: 2',
        'edges:',
        '  - [START, wf_app.nodes.classify, { question: answerer.yaml, __DEFAULT__: .nodes.note }]',
        '  - from_node: .nodes.note',
        '    to_node: nodes.done',
      ].join('\n'),
      'answerer.yaml': 'name: answerer\nmodel_code: { name: m }\ninstruction: Answer.\n',
      'nodes.mjs': NODES,
    });
    const agent = (await loadAgentFromConfig(root, {
      references: { m: new ScriptedModel({ respond: () => 'an answer' }) },
    })) as Workflow;
    expect(agent).toBeInstanceOf(Workflow);
    expect(agent.description).toBe('Routes questions to an agent.');
    expect(agent.maxConcurrency).toBe(2);
    expect([...agent.graph.nodes.keys()].sort()).toEqual(['answerer', 'classify', 'done', 'note']);
    expect(agent.subAgents.map((a) => a.name)).toEqual(['answerer']);

    const statement = await run(agent, 'hello');
    expect(statement.filter((e) => e.output !== undefined).map((e) => e.output)).toContain(
      'done: noted: hello',
    );
    const question = await run(
      (await loadAgentFromConfig(root, {
        references: { m: new ScriptedModel({ respond: () => 'an answer' }) },
      })) as Workflow,
      'why?',
    );
    expect(question.some((e) => e.author === 'answerer' && e.content?.parts[0]?.text === 'an answer')).toBe(
      true,
    );
  });

  it('a fan-out group and the same node string used in two chains are one node', async () => {
    const root = app({
      'root_agent.yaml':
        'agent_class: Workflow\nname: fan\nedges:\n  - [START, [nodes.shout, nodes.note]]\n  - [nodes.shout, nodes.done]\n',
      'nodes.mjs': NODES,
    });
    const agent = (await loadAgentFromConfig(root)) as Workflow;
    expect([...agent.graph.nodes.keys()].sort()).toEqual(['done', 'note', 'shout']);
  });

  const errors: [string, string, string, RegExp, RegExp][] = [
    ['edges missing', 'agent_class: Workflow\nname: w\n', 'edges', /required key "edges"/, /nothing/],
    [
      'sub_agents on a Workflow',
      'agent_class: Workflow\nname: w\nedges: []\nsub_agents: []\n',
      'sub_agents',
      /one of the keys .*edges/,
      /unknown key "sub_agents"/,
    ],
    [
      'a number in a chain',
      'agent_class: Workflow\nname: w\nedges:\n  - [START, 3]\n',
      'edges[0][1]',
      /a string or a list or a mapping/,
      /the number 3/,
    ],
    [
      'a node that is not one',
      'agent_class: Workflow\nname: w\nedges:\n  - [START, nodes.not_a_node]\n',
      'edges[0][1]',
      /a node: a function, an agent, a tool or a BaseNode/,
      /the number 3/,
    ],
    [
      'an explicit edge without to_node',
      'agent_class: Workflow\nname: w\nedges:\n  - { from_node: START }\n',
      'edges[0].to_node',
      /required key "to_node"/,
      /nothing/,
    ],
    [
      'an invalid graph',
      'agent_class: Workflow\nname: w\nedges:\n  - [START, nodes.shout]\n  - [nodes.note, nodes.done]\n',
      'edges',
      /a valid workflow graph/,
      /WORKFLOW|Workflow:/,
    ],
    [
      'an agent file outside the app',
      'agent_class: Workflow\nname: w\nedges:\n  - [START, ../x.yaml]\n',
      'edges[0][1]',
      /a path inside the app folder/,
      /which leaves it/,
    ],
  ];
  for (const [title, yaml, yamlPath, expected, found] of errors) {
    it(`refuses ${title}`, async () => {
      const root = app({ 'root_agent.yaml': yaml, 'nodes.mjs': NODES });
      const error = await loadAgentFromConfig(root).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(AgentConfigError);
      const e = error as AgentConfigError;
      expect([e.file, e.yamlPath]).toEqual([root, yamlPath]);
      expect(e.expected).toMatch(expected);
      expect(e.found).toMatch(found);
    });
  }

  it('checkAgentConfig refuses workflow nodes outside the app', () => {
    const root = app({ 'root_agent.yaml': '', 'nodes.mjs': NODES });
    mkdirSync(join(dirname(root), '..', 'other'), { recursive: true });
    writeFileSync(join(dirname(root), '..', 'other', 'fns.mjs'), 'export const f = () => 1;');
    expect(() =>
      checkAgentConfig('agent_class: Workflow\nname: w\nedges:\n  - [START, other.fns.f]\n', { file: root }),
    ).toThrow(/at edges\[0\]\[1\]: expected a module inside the app folder/);
    expect(() =>
      checkAgentConfig(
        'agent_class: Workflow\nname: w\nedges:\n  - { from_node: START, to_node: ../a.yaml }\n',
        { file: root },
      ),
    ).toThrow(/at edges\[0\]\.to_node: expected a path inside the app folder/);
  });
});
