import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LlmAgent } from '@adk/core';
import { McpToolset } from '@adk/mcp';
import { model } from '../_shared/model.js';

/**
 * The folder the agent may work in: FILESYSTEM_ROOT, or the sample `files/` folder beside this
 * file. The MCP filesystem server refuses every path outside it.
 */
const root = process.env.FILESYSTEM_ROOT ?? join(dirname(fileURLToPath(import.meta.url)), 'files');

/** The installed @modelcontextprotocol/server-filesystem's bin script, run with this Node (no npx, no network). */
function filesystemServer(): string {
  const manifestPath = createRequire(import.meta.url).resolve(
    '@modelcontextprotocol/server-filesystem/package.json',
  );
  const { bin } = JSON.parse(readFileSync(manifestPath, 'utf8')) as { bin: Record<string, string> };
  return join(dirname(manifestPath), Object.values(bin)[0] as string);
}

/**
 * The MCP filesystem server's tools, started on first use and shared by every run. Reading is
 * free; writing, editing and moving files waits for the user's approval.
 */
const files = new McpToolset({
  name: 'filesystem',
  connection: { type: 'stdio', command: process.execPath, args: [filesystemServer(), root] },
  toolFilter: [
    'list_directory',
    'directory_tree',
    'read_text_file',
    'search_files',
    'get_file_info',
    'write_file',
    'edit_file',
    'create_directory',
    'move_file',
  ],
  requireConfirmation: ['write_file', 'edit_file', 'create_directory', 'move_file'],
});

/** An agent that reads and edits the files of one folder through the MCP filesystem server. */
export const rootAgent = new LlmAgent({
  name: 'filesystem',
  description: 'Reads, searches and edits the files of one folder through an MCP server.',
  model,
  instruction: `You help the user with the files in ${root}. Always use absolute paths inside that folder. List or search before reading when you do not know a file's name. Changes to files need the user's approval; say what you are about to change.`,
  tools: [files],
});
