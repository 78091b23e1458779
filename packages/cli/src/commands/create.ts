import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, join, resolve } from 'node:path';
import type { Command } from 'commander';
import { configScaffoldFiles } from '../create/config-template.js';
import { scaffoldFiles } from '../create/templates.js';
import { CliUsageError } from '../errors.js';
import type { CommandModule } from './command.js';

interface CreateOptions {
  model: string;
  /** `code` (agent.ts, the default) or `config` (root_agent.yaml). */
  type?: string;
}

function versionOf(spec: string, fallback: string): string {
  try {
    const require = createRequire(import.meta.url);
    const version = (require(spec) as { version?: string }).version;
    return version ? `^${version}` : fallback;
  } catch {
    return fallback;
  }
}

/** Writes a new agent project into `target` (which must not exist or be empty). */
export function createProject(target: string, options: CreateOptions): string[] {
  const dir = resolve(target);
  const name = basename(dir);
  if (!/^[a-z0-9][a-z0-9._-]*$/.test(name)) {
    throw new CliUsageError(
      `Invalid project name "${name}": use lower-case letters, digits, '-', '_' and '.', starting with a letter or digit`,
    );
  }
  if (existsSync(dir) && readdirSync(dir).length > 0) {
    throw new CliUsageError(`${dir} already exists and is not empty`);
  }
  // adk-python spells the types in capitals too (`--type=CONFIG`).
  const type = (options.type ?? 'code').toLowerCase();
  if (type !== 'code' && type !== 'config') {
    throw new CliUsageError(`Invalid --type "${type}": use code (agent.ts) or config (root_agent.yaml)`);
  }
  const agentName = name.replace(/[^A-Za-z0-9_]/g, '_').replace(/^(\d)/, '_$1');
  const files = (type === 'config' ? configScaffoldFiles : scaffoldFiles)({
    name,
    agentName,
    model: options.model,
    adkVersion: versionOf('@adk/cli/package.json', '^0.1.0'),
    zodVersion: '^4.1.0',
  });
  mkdirSync(dir, { recursive: true });
  for (const [file, text] of Object.entries(files)) writeFileSync(join(dir, file), text);
  return Object.keys(files);
}

export const createCommand: CommandModule = (program: Command) => {
  program
    .command('create')
    .description('scaffold a new agent project (package.json, tsconfig.json, agent.ts, .env.example, README)')
    .argument('<name>', 'project folder to create')
    .option('--model <model>', 'the model the agent names', 'gemini-2.5-flash')
    .option('--type <type>', "code (agent.ts) or config (root_agent.yaml, ADK's Agent Config)", 'code')
    .action((target: string, options: CreateOptions) => {
      const files = createProject(target, options);
      const dir = resolve(target);
      process.stdout.write(
        `Created ${dir}\n${files.map((f) => `  ${f}`).join('\n')}\n\nNext:\n  cd ${target}\n  npm install\n  npm start        # chat in the terminal (adk run .)\n  npm run web      # web UI at http://127.0.0.1:8000/dev-ui/\n`,
      );
    });
};
