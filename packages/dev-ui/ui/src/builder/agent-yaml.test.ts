import { describe, expect, it } from 'vitest';
import exampleAdvisor from '../../../../../apps/examples/weather_desk/packing_advisor.yaml?raw';
import exampleRoot from '../../../../../apps/examples/weather_desk/root_agent.yaml?raw';
import { addItem, analyze, referencedFiles, removeItem, resolveFrom, setField } from './agent-yaml.js';

const ROOT = '# the greeter\nname: greeter # its name\ninstruction: Greet the user.\n';

describe('the Builder’s YAML', () => {
  it('edits a field and keeps comments; a multi-line instruction becomes a block', () => {
    const edited = setField(ROOT, 'instruction', 'Greet in French.');
    expect(edited).toBe('# the greeter\nname: greeter # its name\ninstruction: Greet in French.\n');
    expect(setField(ROOT, 'instruction', 'One.\nTwo.')).toContain('instruction: |-\n  One.\n  Two.');
    expect(setField(ROOT, 'description', 'Says hi')).toContain('description: Says hi');
    expect(setField(setField(ROOT, 'description', 'x'), 'description', undefined)).toBe(ROOT);
  });

  it('adds and removes list items', () => {
    const withTools = addItem(addItem(ROOT, 'tools', { name: 'exit_loop' }), 'tools', {
      name: 'load_memory',
    });
    expect(withTools).toContain('tools:\n  - name: exit_loop\n  - name: load_memory\n');
    expect(removeItem(withTools, 'tools', 0)).toContain('tools:\n  - name: load_memory\n');
    expect(removeItem(removeItem(withTools, 'tools', 0), 'tools', 0)).toBe(ROOT);
  });

  it('validates against AgentConfig.json by agent_class, with paths and lines', () => {
    expect(analyze('root_agent.yaml', ROOT).problems).toEqual([]);
    const bad = analyze('root_agent.yaml', `${ROOT}include_contents: all\ntools:\n  - nme: x\n`);
    expect(bad.problems.map((p) => [p.path, p.line, p.message])).toEqual([
      ['include_contents', 4, 'must be one of "default", "none"'],
      ['tools[0]', 6, 'the required key "name" is missing'],
      ['tools[0].nme', 6, 'unknown key'],
    ]);
    const loop = analyze('a.yaml', 'agent_class: LoopAgent\nname: l\nmax_iterations: many\n');
    expect(loop.problems.map((p) => [p.path, p.message])).toEqual([['max_iterations', 'must be integer']]);
    expect(analyze('a.yaml', 'agent_class: LoopAgent\nname: l\n').problems).toEqual([]);
    expect(analyze('a.yaml', 'name: x\n').problems[0]?.message).toBe(
      'the required key "instruction" is missing',
    );
  });

  it('reports YAML parse errors with their line, and a document that is not a mapping', () => {
    const broken = analyze('root_agent.yaml', 'name: [\n');
    expect(broken.editable).toBe(false);
    expect(broken.problems[0]).toMatchObject({ kind: 'yaml', line: 2 });
    expect(analyze('a.yaml', '- 1\n').problems[0]?.message).toMatch(/must be a mapping/);
  });

  it('finds the files an agent names, relative to it, never outside the app', () => {
    const data = analyze(
      'agents/team.yaml',
      'name: t\ninstruction: x\nsub_agents:\n  - config_path: helper.yaml\n  - config_path: ../../out.yaml\n  - code: a.b\ntools:\n  - name: AgentTool\n    args:\n      agent:\n        config_path: ../tool_agent.yaml\n',
    ).data;
    expect(referencedFiles('agents/team.yaml', data)).toEqual(['agents/helper.yaml', 'tool_agent.yaml']);
    expect(resolveFrom('root_agent.yaml', './x/../y.yaml')).toBe('y.yaml');
  });

  it('accepts the YAML example app as it is (the validators match the loader’s schema)', () => {
    const root = analyze('root_agent.yaml', exampleRoot);
    expect(root.problems).toEqual([]);
    expect(referencedFiles('root_agent.yaml', root.data)).toEqual(['packing_advisor.yaml']);
    expect(analyze('packing_advisor.yaml', exampleAdvisor).problems).toEqual([]);
  });
});
