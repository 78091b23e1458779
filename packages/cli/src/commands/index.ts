import { apiServerCommand } from './api-server.js';
import type { CommandModule } from './command.js';
import { conformanceCommand } from './conformance.js';
import { createCommand } from './create.js';
import { deployCommand } from './deploy.js';
import { evalCommand } from './eval.js';
import { mcpCommand } from './mcp.js';
import { runCommand } from './run.js';
import { webCommand } from './web.js';
import { workerCommand } from './worker.js';

/**
 * Every command of `adk`, in help order. A command is a module exporting a {@link CommandModule};
 * registering it is one line here (`eval` and `mcp` live in `eval.ts` and `mcp.ts`).
 */
export const commands: CommandModule[] = [
  webCommand,
  apiServerCommand,
  runCommand,
  createCommand,
  deployCommand,
  evalCommand,
  mcpCommand,
  workerCommand,
  conformanceCommand,
];
