import { createRequire } from 'node:module';
import { isAdkError } from '@adk/core';
import { Command, CommanderError } from 'commander';
import { commands } from './commands/index.js';

export type { CommandModule } from './commands/command.js';

function version(): string {
  try {
    return (createRequire(import.meta.url)('@adk/cli/package.json') as { version: string }).version;
  } catch {
    return '0.0.0';
  }
}

/** The `adk` program with every command registered (not parsed). */
export function createProgram(): Command {
  const program = new Command('adk')
    .description('ADK for TypeScript: run, serve and create agents')
    .version(version(), '-v, --version')
    .showHelpAfterError('(run with --help for usage)')
    .addHelpText(
      'after',
      `
Quick start:
  adk create my_agent && cd my_agent && npm install && npm start
  adk web path/to/agents      web UI at http://127.0.0.1:8000/dev-ui/
  adk run path/to/agents/app  chat in the terminal`,
    );
  for (const register of commands) register(program);
  return program;
}

/**
 * Runs `adk` with `argv` (process.argv shape). Errors the user can act on (a module that fails to
 * load, a bad flag, a port in use) are printed as one message without a stack trace, exit code 1.
 */
export async function main(argv: string[] = process.argv): Promise<void> {
  const program = createProgram();
  program.exitOverride();
  try {
    await program.parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) {
      process.exitCode = error.exitCode;
      return;
    }
    const message = error instanceof Error ? error.message : String(error);
    if (isAdkError(error) || (error as { code?: string }).code === 'EADDRINUSE') {
      process.stderr.write(`adk: ${message}\n`);
    } else {
      process.stderr.write(`adk: ${error instanceof Error && error.stack ? error.stack : message}\n`);
    }
    process.exitCode = 1;
  }
}
