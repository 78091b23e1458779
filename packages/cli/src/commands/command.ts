import type { Command } from 'commander';

/** A command of `adk`: adds itself (name, help, options, action) to the program. */
export type CommandModule = (program: Command) => void;

/** Parses a port number option. */
export function parsePort(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new Error(`Invalid port "${value}": use a number from 0 to 65535 (0 picks a free port)`);
  }
  return port;
}

/** Collects a repeatable, comma-separated list option. */
export function collectList(value: string, previous: string[] = []): string[] {
  return [
    ...previous,
    ...value
      .split(',')
      .map((v) => v.trim())
      .filter(Boolean),
  ];
}
