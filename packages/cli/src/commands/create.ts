import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, join, resolve } from 'node:path';
import type { Command } from 'commander';
import { Option } from 'commander';
import { findCheckout, packageClosure, packPackages } from '../create/checkout.js';
import { configScaffoldFiles } from '../create/config-template.js';
import { type LocalPackages, scaffoldFiles } from '../create/templates.js';
import { CliUsageError } from '../errors.js';
import type { CommandModule } from './command.js';

/** `auto`: tarballs from the checkout when the CLI runs from one, else registry ranges. */
export type PackagesOption = 'auto' | 'checkout' | 'registry';

export interface CreateOptions {
  model: string;
  /** Where the project's `@adk/*` packages come from (default `auto`). */
  packages?: PackagesOption;
  /** The `@adk/cli` package folder whose checkout is used (default: the running CLI's). */
  cliDir?: string;
  /** `code` (agent.ts, the default) or `config` (root_agent.yaml, ADK's Agent Config). */
  type?: string;
}

export interface CreatedProject {
  dir: string;
  files: string[];
  /** Set when the `@adk/*` packages were packed from a checkout. */
  local?: LocalPackages;
}

/** The folder, inside the project, that holds the tarballs packed from a checkout. */
export const VENDOR_FOLDER = 'vendor/adk';

/**
 * What the scaffold installs from `@adk/*`: the CLI with its peers, optional ones included (the web
 * UI, `adk eval`'s @adk/eval, `adk mcp`'s @adk/mcp, YAML apps' @adk/config with its @adk/openapi,
 * @adk/skills and @adk/environments, and the server's front-end protocols @adk/ai-sdk and
 * @adk/ag-ui, and the server's trace redaction @adk/guardrails), so every command works and npm never asks the registry for an `@adk/*` name (it
 * looks optional peers up too).
 */
const WANTED = [
  '@adk/core',
  '@adk/cli',
  '@adk/dev-ui',
  '@adk/eval',
  '@adk/mcp',
  '@adk/config',
  '@adk/openapi',
  '@adk/skills',
  '@adk/environments',
  '@adk/ai-sdk',
  '@adk/ag-ui',
  '@adk/guardrails',
];

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
export async function createProject(target: string, options: CreateOptions): Promise<CreatedProject> {
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
    throw new CliUsageError(
      `Invalid --type "${options.type}": use code (agent.ts) or config (root_agent.yaml)`,
    );
  }
  const mode = options.packages ?? 'auto';
  const checkout = mode === 'registry' ? undefined : findCheckout(options.cliDir);
  if (mode === 'checkout' && !checkout) {
    throw new CliUsageError(
      '--packages checkout needs the adk of a checkout of the ADK for TypeScript repository (this one is an installed package); use --packages registry',
    );
  }
  const agentName = name.replace(/[^A-Za-z0-9_]/g, '_').replace(/^(\d)/, '_$1');
  const existed = existsSync(dir);
  mkdirSync(dir, { recursive: true });
  try {
    let local: LocalPackages | undefined;
    if (checkout) {
      const names = packageClosure(checkout, WANTED);
      const tarballs = await packPackages(checkout, names, join(dir, VENDOR_FOLDER));
      local = {
        root: checkout.root,
        folder: VENDOR_FOLDER,
        specs: Object.fromEntries(names.map((n) => [n, `file:${VENDOR_FOLDER}/${tarballs.get(n)}`])),
      };
    }
    const range = versionOf('@adk/cli/package.json', '^0.1.0');
    const files = (type === 'config' ? configScaffoldFiles : scaffoldFiles)({
      name,
      agentName,
      model: options.model,
      adkVersion: range,
      zodVersion: '^4.1.0',
      ...(local ? { local } : {}),
    });
    for (const [file, text] of Object.entries(files)) writeFileSync(join(dir, file), text);
    return { dir, files: Object.keys(files), ...(local ? { local } : {}) };
  } catch (error) {
    // Leave nothing half-made behind: the folder did not exist or was empty.
    if (existed)
      for (const entry of readdirSync(dir)) rmSync(join(dir, entry), { recursive: true, force: true });
    else rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

export const createCommand: CommandModule = (program: Command) => {
  program
    .command('create')
    .description('scaffold a new agent project (package.json, tsconfig.json, agent.ts, .env.example, README)')
    .argument('<name>', 'project folder to create')
    .option('--model <model>', 'the model the agent names', 'gemini-2.5-flash')
    .option('--type <type>', "code (agent.ts) or config (root_agent.yaml, ADK's Agent Config)", 'code')
    .addOption(
      new Option('--packages <source>', 'where the project gets its @adk/* packages (see below)')
        .choices(['auto', 'checkout', 'registry'])
        .default('auto'),
    )
    .addHelpText(
      'after',
      `
Where the @adk/* packages come from (--packages):
  registry   version ranges of the npm registry (what a published adk writes)
  checkout   tarballs packed (pnpm pack) from the repository checkout this adk runs from, into
             <name>/${VENDOR_FOLDER}/, as file: dependencies: npm install needs no @adk/* package on
             the registry (third-party ones such as zod still come from it or npm's cache).
             The checkout must be built (pnpm build); pnpm is the checkout's own (.tools/bin,
             provisioned by its \`npm start\`), else pnpm on PATH, else npx pnpm.
  auto       (default) checkout when this adk runs from a checkout of the repository (its package
             folder is packages/cli of a pnpm workspace holding the @adk/* sources), else registry`,
    )
    .action(async (target: string, options: CreateOptions) => {
      const created = await createProject(target, options);
      const source = created.local
        ? `\n@adk/* packages: packed from the checkout at ${created.local.root} into ${VENDOR_FOLDER}/ (file: dependencies; see README.md)\n`
        : '\n@adk/* packages: npm registry ranges\n';
      process.stdout.write(
        `Created ${created.dir}\n${created.files.map((f) => `  ${f}`).join('\n')}\n${source}\nNext:\n  cd ${target}\n  npm install\n  npm start        # chat in the terminal (adk run .)\n  npm run web      # web UI at http://127.0.0.1:8000/dev-ui/\n`,
      );
    });
};
