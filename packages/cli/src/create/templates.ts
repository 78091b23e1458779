/** `@adk/*` packages packed from a checkout into the project, as `file:` dependencies. */
export interface LocalPackages {
  /** The checkout they were packed from. */
  root: string;
  /** The project folder holding the tarballs, relative to the project. */
  folder: string;
  /** Package name → `file:` spec. */
  specs: Record<string, string>;
}

/** The files of a new agent project, by path. */
export interface ScaffoldOptions {
  /** The project (and folder) name. */
  name: string;
  /** The agent's name: `name` made a JavaScript identifier. */
  agentName: string;
  /** The model the agent names (resolved through the model registry). */
  model: string;
  /** Version range for the @adk/* packages. */
  adkVersion: string;
  zodVersion: string;
  /** When set, every `@adk/*` dependency is one of these tarballs instead of a registry range. */
  local?: LocalPackages;
}

export function scaffoldFiles(o: ScaffoldOptions): Record<string, string> {
  const adk = (name: string) => o.local?.specs[name] ?? o.adkVersion;
  // From tarballs, npm would look the CLI's @adk/* peers up on the registry: list each of them.
  const localPeers = Object.fromEntries(
    Object.entries(o.local?.specs ?? {}).filter(
      ([n]) => !['@adk/core', '@adk/cli', '@adk/dev-ui'].includes(n),
    ),
  );
  const packageJson = {
    name: o.name,
    private: true,
    version: '0.1.0',
    type: 'module',
    scripts: {
      start: 'adk run .',
      web: 'adk web .',
      typecheck: 'tsc --noEmit',
    },
    dependencies: {
      '@adk/core': adk('@adk/core'),
      zod: o.zodVersion,
    },
    devDependencies: {
      '@adk/cli': adk('@adk/cli'),
      '@adk/dev-ui': adk('@adk/dev-ui'),
      ...localPeers,
      '@types/node': '^22.0.0',
      typescript: '^5.9.0',
    },
    engines: { node: '>=22' },
  };
  const tsconfig = {
    compilerOptions: {
      target: 'ES2023',
      lib: ['ES2023'],
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      verbatimModuleSyntax: true,
      types: ['node'],
    },
    include: ['*.ts'],
  };
  return {
    'package.json': `${JSON.stringify(packageJson, null, 2)}\n`,
    'tsconfig.json': `${JSON.stringify(tsconfig, null, 2)}\n`,
    'agent.ts': `import { FunctionTool, LlmAgent } from '@adk/core';
import { z } from 'zod';

/** A tool the model can call: arguments are validated with the zod schema before it runs. */
const getCurrentTime = new FunctionTool({
  name: 'get_current_time',
  description: 'Returns the current time in a time zone, e.g. "Europe/Paris" or "UTC".',
  parameters: z.object({
    timezone: z.string().default('UTC').describe('IANA time zone name, e.g. "Europe/Paris"'),
  }),
  execute: async ({ timezone }) => {
    try {
      const time = new Date().toLocaleString('en-GB', { timeZone: timezone, timeStyle: 'short', dateStyle: 'medium' });
      return { timezone, time };
    } catch {
      return { error: \`Unknown time zone: \${timezone}\` };
    }
  },
});

/**
 * \`adk run .\` and \`adk web .\` load this module and serve \`rootAgent\`. The model name is
 * resolved by the CLI: a real provider when its key is set (see .env.example), otherwise an
 * offline demo model that says so.
 */
export const rootAgent = new LlmAgent({
  name: '${o.agentName}',
  description: 'A helpful assistant that can tell the time.',
  model: process.env.ADK_MODEL ?? '${o.model}',
  instruction: 'You are a helpful assistant. Use get_current_time when the user asks for the time.',
  tools: [getCurrentTime],
});
`,
    '.env.example': `# Copy to .env and set one key; adk loads .env from this folder.
# Without a key, an offline demo model answers.
GEMINI_API_KEY=
# ANTHROPIC_API_KEY=
# OPENAI_API_KEY=

# The model the agent asks for (default: ${o.model}); it must match the key you set, e.g.
# ADK_MODEL=claude-sonnet-4-5 with ANTHROPIC_API_KEY, or ADK_MODEL=gpt-4.1-mini with OPENAI_API_KEY.
# ADK_MODEL=${o.model}

# Where sessions are kept. Unset: adk web / adk api_server use an embedded PGlite database in .adk/,
# adk run keeps JSON files in .adk/run/. Set, every command uses this database (the same sessions):
# pglite://.adk/pglite, sqlite://.adk/sessions.db (needs Node >= 22.5), postgres://user:pass@host:5432/db
# DATABASE_URL=
`,
    '.gitignore': 'node_modules/\n.env\n.adk/\n',
    'README.md': `# ${o.name}

An agent built with ADK for TypeScript. It needs Node.js 22 or later (\`node --version\`);
SQLite sessions (\`sqlite://\`) need Node 22.5 or later.

\`\`\`sh
npm install
cp .env.example .env   # then set a model key (optional: without one, an offline demo model answers)
npm start              # chat in the terminal (adk run .)
npm run web            # or open the web UI at http://127.0.0.1:8000/dev-ui/ (adk web .)
\`\`\`

- \`agent.ts\` exports \`rootAgent\`: edit its instruction, add tools (\`FunctionTool\` with a zod
  schema) or sub-agents.
- The model is named in \`agent.ts\` (\`ADK_MODEL\` overrides it); the \`adk\` command resolves it to
  Gemini, Claude or OpenAI when the matching key is set.
- Where each command keeps sessions:

  | command | without \`DATABASE_URL\` | with \`DATABASE_URL\` |
  | --- | --- | --- |
  | \`npm start\` (\`adk run .\`) | JSON files in \`.adk/run/\` | that database |
  | \`npm run web\` (\`adk web .\`), \`adk api_server .\` | embedded PGlite in \`.adk/pglite/\` | that database |

  \`DATABASE_URL\` (in \`.env\` or the environment) is \`pglite://<folder>\`, \`sqlite://<file>\` or
  \`postgres://…\`; with it, the terminal and the web UI see the same sessions.
  \`adk run . --session <id>\` resumes one.
- \`npm run typecheck\` checks the TypeScript; no build step is needed to run it.
- \`npm run web\` reloads the agent when you save a file (runs in progress finish on the old code;
  a file with an error keeps the last good version and the page shows the error).
${o.local ? localNote(o.local) : ''}`,
  };
}

function localNote(local: LocalPackages): string {
  return `
## Where the @adk/* packages come from

This project was created by the \`adk\` of a checkout of the ADK for TypeScript repository
(${local.root}). Its \`@adk/*\` dependencies are tarballs packed from that checkout into
\`${local.folder}/\` (\`file:\` dependencies in package.json), so \`npm install\` needs no \`@adk/*\`
package from the npm registry; third-party packages (zod, typescript, …) still come from the
registry or npm's cache. \`${local.folder}/\` is part of the project: keep it with the code.

To pick up later changes of the checkout, build it (\`pnpm build\`), run
\`pnpm pack --pack-destination <this project>/${local.folder}\` in each package folder it lists
(\`packages/*\`), update the file names in package.json if the versions changed, and
\`npm install\` again. Once the packages are published, replace the \`file:\` specs with version
ranges (what \`adk create --packages registry\` writes).
`;
}
