import { isAbsolute, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describeError, isAdkError } from '@adk/core';
import { RELOAD_PARAM } from './reload-hooks.js';

const RELOAD_QUERY = new RegExp(`\\?${RELOAD_PARAM}=\\d+`, 'g');
// Absolute paths and file: URLs as compilers and stack traces print them (`/a/b.ts:3:7`).
const LOCATION = /(file:\/\/[^\s'"`)]+|(?:[A-Za-z]:)?[\\/][^\s:'"`()]+\.(?:[cm]?[jt]sx?|json|ya?ml))/g;

function within(file: string, folder: string): boolean {
  return (file === folder || file.startsWith(folder + sep)) && !file.split(sep).includes('node_modules');
}

function toPath(found: string): string | undefined {
  try {
    const path = found.startsWith('file:') ? fileURLToPath(found.replace(/[?#].*$/, '')) : found;
    return isAbsolute(path) ? path.replace(/:\d+(:\d+)?$/, '') : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The file at fault and a message without module-version noise, for a failed app load: the first
 * file of the app named by the underlying error (a compiler's location, a stack frame), else the
 * file that changed, else the module the loader imported.
 */
export function describeLoadFailure(
  error: unknown,
  where: { dir: string; appFolder: string; changed: string[] },
): { file: string; message: string } {
  const cause = isAdkError(error, 'APP_LOAD') && error.cause !== undefined ? error.cause : error;
  const message = describeError(cause).replace(RELOAD_QUERY, '');
  const entry = isAdkError(error) ? (error.details as { file?: unknown } | undefined)?.file : undefined;
  const text = `${describeError(cause)}\n${(cause as { stack?: unknown })?.stack ?? ''}`;
  for (const folder of [where.appFolder, where.dir]) {
    for (const match of text.matchAll(LOCATION)) {
      const path = toPath(match[1] as string);
      if (path && within(path, folder)) return { file: path, message };
    }
  }
  const changed = where.changed.find((f) => within(f, where.appFolder)) ?? where.changed[0];
  const file = changed ?? (typeof entry === 'string' ? entry : where.appFolder);
  return { file, message };
}
