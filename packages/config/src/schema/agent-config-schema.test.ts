import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { agentConfigJsonSchema } from '../index.js';

const here = dirname(fileURLToPath(import.meta.url));
const published = JSON.parse(readFileSync(join(here, '..', '..', 'AgentConfig.json'), 'utf8'));

function yamlFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? yamlFiles(join(dir, e.name)) : e.name.endsWith('.yaml') ? [join(dir, e.name)] : [],
  );
}

describe('the published JSON Schema', () => {
  it('AgentConfig.json is generated from the schema definition (run `pnpm schema` after a change)', () => {
    expect(published).toEqual(JSON.parse(JSON.stringify(agentConfigJsonSchema)));
  });

  it("has adk-python's definitions and field names", () => {
    expect(Object.keys(published.$defs)).toEqual(
      expect.arrayContaining([
        'LlmAgentConfig',
        'LoopAgentConfig',
        'ParallelAgentConfig',
        'SequentialAgentConfig',
        'BaseAgentConfig',
        'AgentRefConfig',
        'CodeConfig',
        'ArgumentConfig',
        'ToolConfig',
        'ToolArgsConfig',
      ]),
    );
    expect(Object.keys(published.$defs.LlmAgentConfig.properties)).toEqual(
      expect.arrayContaining([
        'agent_class',
        'name',
        'description',
        'sub_agents',
        'before_agent_callbacks',
        'after_agent_callbacks',
        'model',
        'instruction',
        'static_instruction',
        'disallow_transfer_to_parent',
        'disallow_transfer_to_peers',
        'input_schema',
        'output_schema',
        'output_key',
        'include_contents',
        'tools',
        'before_model_callbacks',
        'after_model_callbacks',
        'before_tool_callbacks',
        'after_tool_callbacks',
        'generate_content_config',
      ]),
    );
    expect(published.$defs.LoopAgentConfig.properties.max_iterations).toBeDefined();
  });

  it('a standard validator accepts every fixture agent file and refuses a broken one', () => {
    const validate = new Ajv2020({ strict: false }).compile(published);
    const files = yamlFiles(join(here, '..', '__fixtures__'));
    expect(files.length).toBeGreaterThan(3);
    for (const file of files) {
      const ok = validate(parse(readFileSync(file, 'utf8')));
      expect(ok, `${file}: ${JSON.stringify(validate.errors)}`).toBe(true);
    }
    expect(validate({ instruction: 'no name' })).toBe(false);
  });
});
