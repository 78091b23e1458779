import type { LocalPackages, ScaffoldOptions } from './templates.js';

/** The files of a new YAML agent project (`adk create --type=config`), by path. */
export function configScaffoldFiles(o: ScaffoldOptions): Record<string, string> {
  const adk = (name: string) => o.local?.specs[name] ?? o.adkVersion;
  // From tarballs, npm would look the CLI's @adk/* peers up on the registry: list each of them.
  const localPeers = Object.fromEntries(
    Object.entries(o.local?.specs ?? {}).filter(
      ([n]) => !['@adk/config', '@adk/core', '@adk/cli', '@adk/dev-ui'].includes(n),
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
    },
    dependencies: {
      '@adk/config': adk('@adk/config'),
      '@adk/core': adk('@adk/core'),
      zod: o.zodVersion,
    },
    devDependencies: {
      '@adk/cli': adk('@adk/cli'),
      '@adk/dev-ui': adk('@adk/dev-ui'),
      ...localPeers,
    },
    engines: { node: '>=22' },
  };
  return {
    'package.json': `${JSON.stringify(packageJson, null, 2)}\n`,
    'root_agent.yaml': `# yaml-language-server: $schema=node_modules/@adk/config/AgentConfig.json
# An agent in YAML (ADK's Agent Config). \`adk run .\` and \`adk web .\` build it with @adk/config.
name: ${o.agentName}
model: ${o.model}
description: A helpful assistant.
instruction: |
  You are a helpful assistant. Answer briefly and clearly.
# tools:
#   - name: google_search                  # a built-in tool, by name
#   - name: tools.get_weather              # the export get_weather of tools.ts beside this file
# sub_agents:
#   - config_path: helper.yaml             # another YAML agent, relative to this file
`,
    '.env.example': `# Copy to .env and set one key; adk loads .env from this folder.
# Without a key, an offline demo model answers.
GEMINI_API_KEY=
# ANTHROPIC_API_KEY=
# OPENAI_API_KEY=
`,
    '.gitignore': 'node_modules/\n.env\n.adk/\n',
    'README.md': `# ${o.name}

An agent written in YAML (ADK's Agent Config), run by ADK for TypeScript.

\`\`\`sh
npm install
cp .env.example .env   # then set a model key (optional: without one, an offline demo model answers)
npm start              # chat in the terminal (adk run .)
npm run web            # or open the web UI at http://127.0.0.1:8000/dev-ui/ (adk web .)
\`\`\`

- \`root_agent.yaml\` is the agent: its model, instruction, tools and sub-agents. Editors that
  speak the YAML language server complete and check it against the schema named on its first line.
- Tools and callbacks in code go in a \`.ts\` file beside it and are named by dotted path: the
  export \`get_weather\` of \`tools.ts\` is \`tools.get_weather\` (or \`<folder>.tools.get_weather\`).
- Sessions are kept in \`.adk/\`; \`adk run . --session <id>\` resumes one.
- \`npm run web\` reloads the agent when you save a file.
${o.local ? localNote(o.local) : ''}`,
  };
}

function localNote(local: LocalPackages): string {
  return `
## Where the @adk/* packages come from

This project was created from a checkout of ADK for TypeScript (${local.root}): its \`@adk/*\`
dependencies are tarballs packed from that checkout into \`${local.folder}/\` (\`file:\` dependencies
in package.json), so \`npm install\` needs no \`@adk/*\` package on the registry. Keep
\`${local.folder}/\` with the code.
`;
}
