import { existsSync, statSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { type BaseAgent, defaultModelRegistry } from '@adk/core';
import type { Command } from 'commander';
import { CliUsageError } from '../errors.js';
import { createAppLoader, loadAgentModule } from '../loader/app-loader.js';
import { loadEnvFile } from '../loader/env-file.js';
import { registerModelsFromEnv } from '../models/pick-model.js';
import { type CommandModule, collectList, parsePort } from './command.js';

interface McpOptions {
  http?: boolean;
  port: number;
  host: string;
  exposeTools?: boolean | string[];
}

/** An agent folder, an agent module file, or `dir/app` of a folder of apps. */
async function loadAgent(target: string): Promise<BaseAgent> {
  const path = resolve(target);
  if (!existsSync(path)) throw new CliUsageError(`No agent at ${path}`);
  if (statSync(path).isFile()) {
    loadEnvFile(dirname(path));
    return loadAgentModule(path);
  }
  const loader = createAppLoader(path);
  if (!loader.isSingleApp) {
    const apps = await loader.list();
    throw new CliUsageError(
      `${path} is a folder of apps, not an agent: serve one of them, e.g. adk mcp ${target.replace(/\/$/, '')}/${apps[0] ?? '<app>'}`,
    );
  }
  return loader.load(basename(path));
}

async function serveMcp(target: string, options: McpOptions): Promise<void> {
  let mcp: typeof import('@adk/mcp');
  try {
    mcp = await import('@adk/mcp');
  } catch (error) {
    if ((error as { code?: string }).code !== 'ERR_MODULE_NOT_FOUND') throw error;
    throw new CliUsageError('adk mcp needs @adk/mcp: install it next to @adk/cli (npm install @adk/mcp)');
  }
  const agent = await loadAgent(target);
  registerModelsFromEnv(defaultModelRegistry);
  const server = await mcp.serveAgentAsMcp(agent, {
    transport: options.http ? { type: 'http', port: options.port, host: options.host } : 'stdio',
    ...(options.exposeTools ? { exposeTools: options.exposeTools } : {}),
  });
  // stdout belongs to the protocol over stdio: every message for people goes to stderr.
  process.stderr.write(
    server.url
      ? `MCP server for agent "${agent.name}" at ${server.url} (Streamable HTTP)\n`
      : `MCP server for agent "${agent.name}" on stdio\n`,
  );
  const stop = () => {
    void server.close().finally(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  if (!server.url) process.stdin.once('end', stop);
}

export const mcpCommand: CommandModule = (program: Command) => {
  program
    .command('mcp')
    .description(
      'serve an agent as an MCP server (one tool that talks to it) over stdio, for Claude Desktop and IDEs, or Streamable HTTP',
    )
    .argument('<agent>', 'an agent folder, an agent module, or dir/app of a folder of apps')
    .option('--http', 'serve over Streamable HTTP instead of stdio')
    .option('--port <port>', 'HTTP port (0 picks a free one)', parsePort, 8001)
    .option('--host <host>', 'HTTP host to bind', '127.0.0.1')
    .option(
      '--expose-tools [names]',
      "also publish the agent's own tools (all, or these names, comma-separated)",
      (value: string, previous: string[] | boolean | undefined) =>
        collectList(value, Array.isArray(previous) ? previous : []),
    )
    .action(async (target: string, options: McpOptions) => serveMcp(target, options));
};
