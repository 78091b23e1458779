import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isAdkError } from '@adk/core';
import { afterAll, describe, expect, it } from 'vitest';
import { loadSkillFromDir, parseSkillMarkdown, SkillFormatError } from './index.js';

describe('SKILL.md parsing', () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  it('splits front matter and body, keeping unknown fields', () => {
    const { frontmatter, body } = parseSkillMarkdown(
      '---\nname: pdf-tools\ndescription: "Fill: PDF forms"\nallowed-tools: Bash(python:*)\nx-extra: 1\n---\n\n# Body\ntext\n',
    );
    expect(frontmatter).toEqual({
      name: 'pdf-tools',
      description: 'Fill: PDF forms',
      'allowed-tools': 'Bash(python:*)',
      'x-extra': 1,
    });
    expect(body).toBe('# Body\ntext');
  });

  it.each([
    ['no front matter', '# Just markdown', /no YAML front matter/],
    ['broken YAML', '---\nname: [unclosed\n---\nbody', /not valid YAML/],
    ['a list, not a mapping', '---\n- a\n- b\n---\nbody', /invalid front matter/],
    ['no description', '---\nname: ok\n---\nbody', /description/],
    ['an invalid name', '---\nname: Not_Valid\ndescription: d\n---\n', /name: lowercase letters/],
    ['a too long description', `---\nname: ok\ndescription: ${'x'.repeat(1025)}\n---\n`, /description/],
  ])('refuses %s with a typed error', (_label, text, message) => {
    const error = (() => {
      try {
        parseSkillMarkdown(text);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(SkillFormatError);
    expect(isAdkError(error, 'SKILL_FORMAT')).toBe(true);
    expect((error as Error).message).toMatch(message);
  });

  it('requires the name to match the folder', async () => {
    const root = await mkdtemp(join(tmpdir(), 'adk-skills-'));
    dirs.push(root);
    await mkdir(join(root, 'right-name'));
    await writeFile(join(root, 'right-name', 'SKILL.md'), '---\nname: other-name\ndescription: d\n---\nbody');
    await expect(loadSkillFromDir(join(root, 'right-name'))).rejects.toThrow(
      /must match the folder name "right-name"/,
    );
    await expect(loadSkillFromDir(join(root, 'missing'))).rejects.toBeInstanceOf(SkillFormatError);
  });
});
