import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AgentConfigError, checkAgentConfig } from './index.js';

// An agents folder with two apps; `my_app` is checked, `other_app` is outside it.
const agents = mkdtempSync(join(tmpdir(), 'adk-check-'));
afterAll(() => rmSync(agents, { recursive: true, force: true }));
const app = join(agents, 'my_app');
mkdirSync(app);
mkdirSync(join(agents, 'other_app'));
writeFileSync(join(app, 'tools.ts'), 'export const t = 1;\n');
writeFileSync(join(agents, 'other_app', 'tools.ts'), 'export const secret = 1;\n');
const file = join(app, 'root_agent.yaml');

function refused(yaml: string): AgentConfigError {
  try {
    checkAgentConfig(yaml, { file });
  } catch (error) {
    expect(error).toBeInstanceOf(AgentConfigError);
    return error as AgentConfigError;
  }
  throw new Error('expected the config to be refused');
}

describe('checkAgentConfig (no code runs)', () => {
  it('accepts references inside the app, and names that match no file (they may be registered)', () => {
    const config = checkAgentConfig(
      [
        'name: a',
        'instruction: x',
        'tools:',
        '  - name: my_app.tools.t',
        '  - name: tools.t',
        '  - name: shared.registered_tool',
        '  - name: google_search',
        'sub_agents: [{ config_path: sub/b.yaml }]',
      ].join('\n'),
      { file },
    );
    expect(config.name).toBe('a');
  });

  const cases: [string, string, string][] = [
    ['a tool in another app', 'tools: [{ name: other_app.tools.secret }]', 'tools[0].name'],
    [
      'a callback in another app',
      'before_model_callbacks: [{ name: other_app.tools.secret }]',
      'before_model_callbacks[0].name',
    ],
    ['a schema in another app', 'output_schema: { name: other_app.tools.secret }', 'output_schema.name'],
    ['a model in another app', 'model_code: { name: other_app.tools.secret }', 'model_code.name'],
    [
      'a sub-agent code in another app',
      'sub_agents: [{ code: other_app.tools.secret }]',
      'sub_agents[0].code',
    ],
    [
      'a config_path out of the app',
      'sub_agents: [{ config_path: ../other_app/root_agent.yaml }]',
      'sub_agents[0].config_path',
    ],
    [
      'an AgentTool out of the app',
      'tools: [{ name: AgentTool, args: { agent: { config_path: ../x.yaml } } }]',
      'tools[0].args.agent.config_path',
    ],
    [
      'a long-running func in another app',
      'tools: [{ name: LongRunningFunctionTool, args: { func: other_app.tools.secret } }]',
      'tools[0].args.func',
    ],
    [
      'examples in another app',
      'tools: [{ name: ExampleTool, args: { examples: other_app.tools.secret } }]',
      'tools[0].args.examples',
    ],
    [
      'an OpenAPI spec out of the app',
      'tools: [{ name: OpenAPIToolset, args: { spec_path: ../../api.yaml } }]',
      'tools[0].args.spec_path',
    ],
  ];
  for (const [title, yaml, yamlPath] of cases) {
    it(`refuses ${title}`, () => {
      const error = refused(`name: a\ninstruction: x\n${yaml}\n`);
      expect(error.yamlPath).toBe(yamlPath);
      expect(error.file).toBe(file);
      expect(error.expected).toMatch(/inside the app folder/);
    });
  }

  it('refuses a custom agent class in another app', () => {
    const error = refused('agent_class: other_app.tools.secret\nname: a\n');
    expect(error.yamlPath).toBe('agent_class');
  });

  it('refuses malformed YAML and schema errors like the loader', () => {
    expect(refused('name: [').expected).toBe('well-formed YAML');
    expect(refused('name: a\n').yamlPath).toBe('instruction');
  });
});
