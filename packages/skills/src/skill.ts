import { readdir, readFile, realpath, stat } from 'node:fs/promises';
import { basename, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { AdkError, type AdkErrorOptions } from '@adk/core';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';

/** A SKILL.md could not be read or does not follow the agentskills.io format. */
export class SkillFormatError extends AdkError {
  constructor(message: string, options?: AdkErrorOptions) {
    super('SKILL_FORMAT', message, options);
  }
}

/** The front matter fields of the agentskills.io specification; unknown fields are kept. */
export const skillFrontmatterSchema = z
  .object({
    name: z
      .string()
      .min(1)
      .max(64)
      .regex(
        /^[a-z0-9]+(-[a-z0-9]+)*$/,
        'lowercase letters, digits and single hyphens, not starting or ending with a hyphen',
      ),
    description: z.string().min(1).max(1024),
    license: z.string().optional(),
    compatibility: z.string().max(500).optional(),
    metadata: z.record(z.string(), z.string()).optional(),
    'allowed-tools': z.string().optional(),
  })
  .loose();

export type SkillFrontmatter = z.infer<typeof skillFrontmatterSchema>;

/** The folders of a skill the tools may read or run from. */
export const RESOURCE_FOLDERS = ['references', 'assets', 'scripts'] as const;
export type ResourceFolder = (typeof RESOURCE_FOLDERS)[number];

/**
 * An Agent Skill: front matter, the Markdown body (its instructions), and its resources, either
 * files in a folder or given in code.
 */
export interface Skill {
  readonly name: string;
  readonly description: string;
  readonly frontmatter: SkillFrontmatter;
  /** The Markdown body of SKILL.md. */
  readonly instructions: string;
  /** The skill's folder, when loaded from one. */
  readonly dir?: string;
  /** Resources given in code, by path (`references/x.md`), beside or instead of a folder. */
  readonly files?: Readonly<Record<string, string>>;
}

/** Splits a SKILL.md into validated front matter and body. */
export function parseSkillMarkdown(
  text: string,
  source = 'SKILL.md',
): { frontmatter: SkillFrontmatter; body: string } {
  const match = /^\uFEFF?---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(text);
  if (!match)
    throw new SkillFormatError(`${source}: no YAML front matter (a block between --- lines at the top)`);
  let data: unknown;
  try {
    data = parseYaml(match[1] ?? '');
  } catch (error) {
    throw new SkillFormatError(`${source}: front matter is not valid YAML: ${(error as Error).message}`, {
      cause: error,
    });
  }
  const parsed = skillFrontmatterSchema.safeParse(data);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
    throw new SkillFormatError(`${source}: invalid front matter: ${issues}`);
  }
  return { frontmatter: parsed.data, body: text.slice(match[0].length).trim() };
}

/** A skill in code (as adk-python's `models.Skill`). */
export function defineSkill(init: {
  frontmatter: SkillFrontmatter;
  instructions: string;
  files?: Record<string, string>;
}): Skill {
  const frontmatter = skillFrontmatterSchema.parse(init.frontmatter);
  return {
    name: frontmatter.name,
    description: frontmatter.description,
    frontmatter,
    instructions: init.instructions,
    ...(init.files ? { files: { ...init.files } } : {}),
  };
}

/** Loads the skill in `dir` (its SKILL.md); the front matter's name must be the folder's name. */
export async function loadSkillFromDir(dir: string): Promise<Skill> {
  const root = await realpath(resolve(dir)).catch((error: unknown) => {
    throw new SkillFormatError(`Skill folder not found: ${dir}`, { cause: error });
  });
  const file = join(root, 'SKILL.md');
  const text = await readFile(file, 'utf8').catch((error: unknown) => {
    throw new SkillFormatError(`No SKILL.md in ${dir}`, { cause: error });
  });
  const { frontmatter, body } = parseSkillMarkdown(text, file);
  if (frontmatter.name !== basename(root)) {
    throw new SkillFormatError(
      `${file}: name "${frontmatter.name}" must match the folder name "${basename(root)}"`,
    );
  }
  return {
    name: frontmatter.name,
    description: frontmatter.description,
    frontmatter,
    instructions: body,
    dir: root,
  };
}

/** Loads every skill in the subfolders of `root` that hold a SKILL.md, sorted by name. */
export async function loadSkillsFromDir(root: string): Promise<Skill[]> {
  const entries = await readdir(resolve(root), { withFileTypes: true }).catch((error: unknown) => {
    throw new SkillFormatError(`Skills folder not found: ${root}`, { cause: error });
  });
  const skills: Skill[] = [];
  for (const entry of entries) {
    if (!entry.isDirectory()) continue;
    const dir = join(resolve(root), entry.name);
    const hasSkill = await stat(join(dir, 'SKILL.md')).then(
      (s) => s.isFile(),
      () => false,
    );
    if (hasSkill) skills.push(await loadSkillFromDir(dir));
  }
  return skills.sort((a, b) => a.name.localeCompare(b.name));
}

/** The resource paths of a skill (`references/…`, `assets/…`, `scripts/…`), sorted. */
export async function listSkillResources(skill: Skill): Promise<string[]> {
  const out = new Set<string>();
  for (const path of Object.keys(skill.files ?? {})) out.add(path);
  if (skill.dir) {
    const dir = skill.dir;
    const walk = async (folder: string): Promise<void> => {
      const entries = await readdir(folder, { withFileTypes: true }).catch(() => []);
      for (const entry of entries) {
        const full = join(folder, entry.name);
        if (entry.isDirectory()) await walk(full);
        else if (entry.isFile()) out.add(relative(dir, full).split(sep).join('/'));
      }
    };
    for (const folder of RESOURCE_FOLDERS) await walk(join(dir, folder));
  }
  return [...out].filter((p) => RESOURCE_FOLDERS.some((f) => p.startsWith(`${f}/`))).sort();
}

/**
 * Reads a resource of a skill as bytes, or undefined when there is none at `path`. The path must
 * be under one of the resource folders and stay in the skill's folder (links included).
 */
export async function readSkillResource(skill: Skill, path: string): Promise<Uint8Array | undefined> {
  if (!RESOURCE_FOLDERS.some((f) => path.startsWith(`${f}/`))) return undefined;
  const given = skill.files?.[path];
  if (given !== undefined) return new TextEncoder().encode(given);
  if (!skill.dir) return undefined;
  const full = resolve(skill.dir, path);
  if (!inside(skill.dir, full)) return undefined;
  try {
    const real = await realpath(full);
    if (!inside(skill.dir, real)) return undefined;
    if (!(await stat(real)).isFile()) return undefined;
    return new Uint8Array(await readFile(real));
  } catch {
    return undefined;
  }
}

function inside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel !== '' && rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
}
