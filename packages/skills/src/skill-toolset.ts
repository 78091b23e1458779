import {
  BaseTool,
  BaseToolset,
  ConfigError,
  type FunctionDeclaration,
  type LlmRequest,
  type ReadonlyContext,
  type ToolContext,
} from '@adk/core';
import { listSkillResources, loadSkillsFromDir, readSkillResource, type Skill } from './skill.js';

/**
 * Where skill scripts run: the part of `@adk/environments`' `BaseEnvironment` the toolset uses
 * (any of its environments fits; declared here so this package does not need it).
 */
export interface SkillScriptEnvironment {
  writeFile(path: string, data: string | Uint8Array): Promise<void>;
  exec(
    argv: readonly string[],
    options?: { stdin?: string; signal?: AbortSignal; timeoutMs?: number },
  ): Promise<{
    exitCode: number | null;
    signal: string | null;
    stdout: string;
    stderr: string;
    killed?: string;
    outputTruncated: boolean;
  }>;
}

export interface SkillToolsetOptions {
  /** Skills, or a folder whose subfolders are skills (loaded on first use). */
  skills: readonly Skill[] | string;
  /** Where `run_skill_script` runs scripts (an `@adk/environments` environment); without one the tool is not offered. */
  environment?: SkillScriptEnvironment;
  /** How many skills may be loaded at once (default 5); `load_skill` refuses more. */
  maxActiveSkills?: number;
  /** Interpreters by script extension (default: .py python3, .sh sh, .js node). */
  interpreters?: Record<string, readonly string[]>;
  /** Per-script timeout (default: the environment's). */
  scriptTimeoutMs?: number;
}

/** State key prefix of the loaded-skill record: `_adk_skill:<agent>:<skill>` → true while loaded. */
export const ACTIVE_SKILL_STATE_PREFIX = '_adk_skill:';

const DEFAULT_INTERPRETERS: Record<string, readonly string[]> = {
  '.py': ['python3'],
  '.sh': ['sh'],
  '.js': ['node'],
};

/** Where scripts are copied in the environment's workspace. */
const WORKSPACE_SKILLS_DIR = '.skills';

function activeKey(agentName: string, skillName: string): string {
  return `${ACTIVE_SKILL_STATE_PREFIX}${agentName}:${skillName}`;
}

/** The names of the skills loaded for this agent, from the session's state (so from its events). */
export function activeSkills(context: ReadonlyContext): string[] {
  const prefix = `${ACTIVE_SKILL_STATE_PREFIX}${context.agentName}:`;
  const names: string[] = [];
  const state = { ...context.session.state, ...context.invocationContext.shared.tempState };
  for (const [key, value] of Object.entries(state)) {
    if (key.startsWith(prefix) && value === true) names.push(key.slice(prefix.length));
  }
  return names.sort();
}

function escapeXml(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#x27;');
}

/** The `<available_skills>` block adk-python's `format_skills_as_xml` writes. */
export function formatSkillsAsXml(skills: readonly Pick<Skill, 'name' | 'description'>[]): string {
  if (skills.length === 0) return '<available_skills>\n</available_skills>';
  const lines = ['<available_skills>'];
  for (const skill of skills) {
    lines.push(
      '<skill>',
      '<name>',
      escapeXml(skill.name),
      '</name>',
      '<description>',
      escapeXml(skill.description),
      '</description>',
      '</skill>',
    );
  }
  lines.push('</available_skills>');
  return lines.join('\n');
}

/** adk-python's SkillToolset system instruction (a fact of ADK's wire behaviour, see ADR 0016). */
export function skillSystemInstruction(skills: readonly Pick<Skill, 'name' | 'description'>[]): string {
  return `
You can use specialized 'skills' to help you with complex tasks. Each skill has a name and a description listed below:
${formatSkillsAsXml(skills)}

Skills are folders of instructions and resources that extend your capabilities for specialized tasks. Each skill folder contains:
- **SKILL.md** (required): The main instruction file with skill metadata and detailed markdown instructions.
- **references/** (Optional): Additional documentation or examples for skill usage.
- **assets/** (Optional): Templates, scripts or other resources used by the skill.

This is very important:

1. If a skill seems relevant to the current user query, you MUST use the \`load_skill\` tool with \`name="<SKILL_NAME>"\` to read its full instructions before proceeding.
2. Once you have read the instructions, follow them exactly as documented before replying to the user. For example, If the instruction lists multiple steps, please make sure you complete all of them in order.
3. The \`load_skill_resource\` tool is for viewing files within a skill's directory (e.g., \`references/*\`, \`assets/*\`). Do NOT use other tools to access these files.
`;
}

/** Placed in an outgoing request instead of the instructions of a skill that was unloaded since. */
export const UNLOADED_SKILL_NOTE = 'This skill was unloaded; load it again to use its instructions.';

function error(message: string, code: string): Record<string, unknown> {
  return { error: message, error_code: code };
}

/**
 * Agent Skills as tools, as adk-python's `SkillToolset`: the system instruction lists each skill's
 * name and description; `load_skill` returns a skill's instructions (its SKILL.md body) into the
 * conversation and records it as loaded in the session state; `load_skill_resource` reads a file
 * from its `references/`, `assets/` or `scripts/`; `unload_skill` drops it; and, with an
 * environment, `run_skill_script` runs one of its scripts there (never in this process).
 *
 * Loading is recorded in the function-response event's state delta, so a resumed, rewound or
 * forked session knows which skills are loaded. The instructions of an unloaded skill are left
 * out of later model requests (the stored history keeps them).
 */
export class SkillToolset extends BaseToolset {
  private loaded: Promise<Map<string, Skill>> | undefined;
  readonly maxActiveSkills: number;
  private readonly tools: BaseTool[];

  constructor(private readonly options: SkillToolsetOptions) {
    super();
    this.maxActiveSkills = options.maxActiveSkills ?? 5;
    if (!Number.isInteger(this.maxActiveSkills) || this.maxActiveSkills < 1) {
      throw new ConfigError(
        `maxActiveSkills must be a positive integer, got ${String(options.maxActiveSkills)}`,
      );
    }
    this.tools = [new LoadSkillTool(this), new LoadSkillResourceTool(this), new UnloadSkillTool(this)];
    if (options.environment) this.tools.push(new RunSkillScriptTool(this, options.environment));
  }

  /** The skills, by name (loads the folder on first use). */
  skills(): Promise<Map<string, Skill>> {
    this.loaded ??= (async () => {
      const list =
        typeof this.options.skills === 'string'
          ? await loadSkillsFromDir(this.options.skills)
          : this.options.skills;
      const map = new Map<string, Skill>();
      for (const skill of list) {
        if (map.has(skill.name)) throw new ConfigError(`Two skills are named "${skill.name}"`);
        map.set(skill.name, skill);
      }
      return map;
    })();
    return this.loaded;
  }

  async getTools(): Promise<BaseTool[]> {
    await this.skills();
    return this.tools;
  }

  /** @internal */
  get interpreters(): Record<string, readonly string[]> {
    return this.options.interpreters ?? DEFAULT_INTERPRETERS;
  }

  /** @internal */
  get scriptTimeoutMs(): number | undefined {
    return this.options.scriptTimeoutMs;
  }
}

class LoadSkillTool extends BaseTool {
  constructor(private readonly toolset: SkillToolset) {
    super({ name: 'load_skill', description: 'Loads the SKILL.md instructions for a given skill.' });
  }

  declaration(): FunctionDeclaration {
    return {
      name: this.name,
      description: this.description,
      parameters: {
        type: 'object',
        properties: { name: { type: 'string', description: 'The name of the skill to load.' } },
        required: ['name'],
      },
    };
  }

  async run(args: Record<string, unknown>, context: ToolContext): Promise<unknown> {
    const name = typeof args.name === 'string' ? args.name : '';
    if (!name) return error('Skill name is required.', 'MISSING_SKILL_NAME');
    const skill = (await this.toolset.skills()).get(name);
    if (!skill) return error(`Skill '${name}' not found.`, 'SKILL_NOT_FOUND');
    const active = activeSkills(context);
    if (!active.includes(name) && active.length >= this.toolset.maxActiveSkills) {
      return error(
        `At most ${this.toolset.maxActiveSkills} skills can be loaded at once (loaded: ${active.join(', ')}). Unload one with unload_skill first.`,
        'TOO_MANY_ACTIVE_SKILLS',
      );
    }
    context.state.set(activeKey(context.agentName, name), true);
    return { skill_name: name, instructions: skill.instructions, frontmatter: skill.frontmatter };
  }

  /** Lists the skills in the system instruction; drops the instructions of unloaded skills from history. */
  override async processLlmRequest(context: ReadonlyContext, request: LlmRequest): Promise<void> {
    const skills = [...(await this.toolset.skills()).values()];
    const text = skillSystemInstruction(skills);
    request.systemInstruction = request.systemInstruction ? `${request.systemInstruction}\n\n${text}` : text;
    const active = new Set(activeSkills(context));
    // New content objects: the request's contents may be the session's own.
    request.contents = request.contents.map((content) => {
      let changed = false;
      const parts = content.parts.map((part) => {
        const response = part.functionResponse;
        if (response?.name !== 'load_skill') return part;
        const name = response.response.skill_name;
        if (typeof name !== 'string' || active.has(name) || !('instructions' in response.response))
          return part;
        changed = true;
        return {
          ...part,
          functionResponse: {
            ...response,
            response: { ...response.response, instructions: UNLOADED_SKILL_NOTE },
          },
        };
      });
      return changed ? { ...content, parts } : content;
    });
  }
}

class LoadSkillResourceTool extends BaseTool {
  constructor(private readonly toolset: SkillToolset) {
    super({
      name: 'load_skill_resource',
      description: 'Loads a resource file (from references/ or assets/) from within a skill.',
    });
  }

  declaration(): FunctionDeclaration {
    return {
      name: this.name,
      description: this.description,
      parameters: {
        type: 'object',
        properties: {
          skill_name: { type: 'string', description: 'The name of the skill.' },
          path: {
            type: 'string',
            description:
              "The relative path to the resource (e.g., 'references/my_doc.md' or 'assets/template.txt').",
          },
        },
        required: ['skill_name', 'path'],
      },
    };
  }

  async run(args: Record<string, unknown>): Promise<unknown> {
    const skillName = typeof args.skill_name === 'string' ? args.skill_name : '';
    const path = typeof args.path === 'string' ? args.path : '';
    if (!skillName) return error('Skill name is required.', 'MISSING_SKILL_NAME');
    if (!path) return error('Resource path is required.', 'MISSING_RESOURCE_PATH');
    const skill = (await this.toolset.skills()).get(skillName);
    if (!skill) return error(`Skill '${skillName}' not found.`, 'SKILL_NOT_FOUND');
    if (!/^(references|assets|scripts)\//.test(path)) {
      return error("Path must start with 'references/' or 'assets/'.", 'INVALID_RESOURCE_PATH');
    }
    const bytes = await readSkillResource(skill, path);
    if (!bytes) {
      return error(`Resource '${path}' not found in skill '${skillName}'.`, 'RESOURCE_NOT_FOUND');
    }
    return { skill_name: skillName, path, content: new TextDecoder().decode(bytes) };
  }
}

class UnloadSkillTool extends BaseTool {
  constructor(private readonly toolset: SkillToolset) {
    super({
      name: 'unload_skill',
      description: 'Unloads a skill loaded with load_skill, when its instructions are no longer needed.',
    });
  }

  declaration(): FunctionDeclaration {
    return {
      name: this.name,
      description: this.description,
      parameters: {
        type: 'object',
        properties: { name: { type: 'string', description: 'The name of the skill to unload.' } },
        required: ['name'],
      },
    };
  }

  async run(args: Record<string, unknown>, context: ToolContext): Promise<unknown> {
    const name = typeof args.name === 'string' ? args.name : '';
    if (!name) return error('Skill name is required.', 'MISSING_SKILL_NAME');
    if (!(await this.toolset.skills()).has(name))
      return error(`Skill '${name}' not found.`, 'SKILL_NOT_FOUND');
    if (!activeSkills(context).includes(name))
      return error(`Skill '${name}' is not loaded.`, 'SKILL_NOT_LOADED');
    context.state.set(activeKey(context.agentName, name), false);
    return { skill_name: name, status: 'unloaded' };
  }
}

class RunSkillScriptTool extends BaseTool {
  constructor(
    private readonly toolset: SkillToolset,
    private readonly environment: SkillScriptEnvironment,
  ) {
    super({
      name: 'run_skill_script',
      description:
        "Runs a script from a skill's scripts/ folder in an isolated environment and returns its exit code, stdout and stderr.",
    });
  }

  declaration(): FunctionDeclaration {
    return {
      name: this.name,
      description: this.description,
      parameters: {
        type: 'object',
        properties: {
          skill_name: { type: 'string', description: 'The name of the skill.' },
          path: { type: 'string', description: "The script's path in the skill (e.g., 'scripts/run.py')." },
          args: {
            type: 'array',
            items: { type: 'string' },
            description: 'Command-line arguments for the script.',
          },
          stdin: { type: 'string', description: 'Text given to the script on standard input.' },
        },
        required: ['skill_name', 'path'],
      },
    };
  }

  async run(args: Record<string, unknown>, context: ToolContext): Promise<unknown> {
    const skillName = typeof args.skill_name === 'string' ? args.skill_name : '';
    const path = typeof args.path === 'string' ? args.path : '';
    if (!skillName) return error('Skill name is required.', 'MISSING_SKILL_NAME');
    if (!path.startsWith('scripts/')) return error("Path must start with 'scripts/'.", 'INVALID_SCRIPT_PATH');
    const scriptArgs = Array.isArray(args.args) ? args.args.map(String) : [];
    const skill = (await this.toolset.skills()).get(skillName);
    if (!skill) return error(`Skill '${skillName}' not found.`, 'SKILL_NOT_FOUND');
    const script = await readSkillResource(skill, path);
    if (!script) return error(`Script '${path}' not found in skill '${skillName}'.`, 'RESOURCE_NOT_FOUND');
    const ext = path.slice(path.lastIndexOf('.'));
    const interpreter = this.toolset.interpreters[ext];
    if (!interpreter) {
      return error(
        `No interpreter for '${ext}' scripts (known: ${Object.keys(this.toolset.interpreters).join(', ')}).`,
        'UNSUPPORTED_SCRIPT',
      );
    }
    // The skill's files go to the environment's workspace; the script runs from the skill's copy.
    const base = `${WORKSPACE_SKILLS_DIR}/${skill.name}`;
    for (const resource of await listSkillResources(skill)) {
      const bytes = await readSkillResource(skill, resource);
      if (bytes) await this.environment.writeFile(`${base}/${resource}`, bytes);
    }
    const result = await this.environment.exec([...interpreter, `${base}/${path}`, ...scriptArgs], {
      signal: context.signal,
      ...(typeof args.stdin === 'string' ? { stdin: args.stdin } : {}),
      ...(this.toolset.scriptTimeoutMs === undefined ? {} : { timeoutMs: this.toolset.scriptTimeoutMs }),
    });
    return {
      skill_name: skillName,
      path,
      exit_code: result.exitCode,
      stdout: result.stdout,
      stderr: result.stderr,
      ...(result.signal ? { signal: result.signal } : {}),
      ...(result.killed ? { killed: result.killed } : {}),
      ...(result.outputTruncated ? { output_truncated: true } : {}),
    };
  }
}
