import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LlmAgent } from '@adk/core';
import { SkillToolset } from '@adk/skills';
import { afterAll, describe, expect, it } from 'vitest';
import { loadAgentFromConfig } from './index.js';

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');
mkdirSync(join(packageDir, 'node_modules', '.tmp'), { recursive: true });
const temp = mkdtempSync(join(packageDir, 'node_modules', '.tmp', 'adk-skills-config-'));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

function app(files: Record<string, string>): string {
  const dir = join(temp, 'agents', 'my_app');
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return join(dir, 'root_agent.yaml');
}

describe('SkillToolset in YAML agent configs', () => {
  it('loads the skills folder beside the YAML, with a sandbox for scripts and a cap', async () => {
    const root = app({
      'root_agent.yaml': [
        'name: r',
        'instruction: x',
        'tools:',
        '  - name: SkillToolset',
        '    args:',
        '      skills_dir: skills',
        '      max_active_skills: 2',
        '      environment: sandbox',
      ].join('\n'),
      'skills/hello-world/SKILL.md': '---\nname: hello-world\ndescription: Says hello.\n---\nSay hello.\n',
      'skills/hello-world/scripts/hi.sh': 'echo hi\n',
    });
    const agent = (await loadAgentFromConfig(root)) as LlmAgent;
    const [toolset] = agent.tools;
    expect(toolset).toBeInstanceOf(SkillToolset);
    expect((toolset as SkillToolset).maxActiveSkills).toBe(2);
    expect([...(await (toolset as SkillToolset).skills()).keys()]).toEqual(['hello-world']);
    const tools = await (toolset as SkillToolset).getTools();
    expect(tools.map((t) => t.name)).toEqual([
      'load_skill',
      'load_skill_resource',
      'unload_skill',
      'run_skill_script',
    ]);
  });

  it.each([
    ['a folder outside the app', 'skills_dir: ../../elsewhere', /a path inside the app folder/],
    ['a missing folder', 'skills_dir: nope', /a folder of skills/],
    ['an unknown environment', 'skills_dir: skills\n      environment: cloud', /environment/],
    ['no skills_dir', 'max_active_skills: 1', /skills_dir/],
  ])('refuses %s with the YAML path', async (_label, args, message) => {
    const root = app({
      'root_agent.yaml': `name: r\ninstruction: x\ntools:\n  - name: SkillToolset\n    args:\n      ${args}\n`,
      'skills/hello-world/SKILL.md': '---\nname: hello-world\ndescription: Says hello.\n---\nSay hello.\n',
    });
    await expect(loadAgentFromConfig(root)).rejects.toThrow(message);
  });
});
