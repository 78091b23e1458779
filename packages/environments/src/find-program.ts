import { constants } from 'node:fs';
import { access, realpath } from 'node:fs/promises';
import { delimiter, isAbsolute, join } from 'node:path';

/** The real path of an executable named or found on PATH (plus the usual system dirs), or undefined. */
export async function findProgram(
  name: string,
  extraDirs: readonly string[] = [],
): Promise<string | undefined> {
  const candidates = isAbsolute(name)
    ? [name]
    : [
        ...(process.env.PATH ?? '').split(delimiter).filter(Boolean),
        ...extraDirs,
        '/usr/local/bin',
        '/usr/bin',
        '/bin',
        '/usr/sbin',
      ].map((dir) => join(dir, name));
  for (const candidate of candidates) {
    try {
      await access(candidate, constants.X_OK);
      return await realpath(candidate);
    } catch {
      /* next */
    }
  }
  return undefined;
}
