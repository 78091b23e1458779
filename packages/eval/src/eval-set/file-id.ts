import { ValidationError } from '@adk/core';

/**
 * Eval set and result ids name files inside their folder: no path separators, control characters,
 * or a bare "." / "..", so an id taken from a URL cannot read or write outside it.
 */
export function assertFileId(id: string, what: string): void {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what we reject
  if (id === '' || id === '.' || id === '..' || /[/\\\u0000-\u001f\u007f]/.test(id))
    throw new ValidationError(
      `Invalid ${what} ${JSON.stringify(id)}: it names a file, so it cannot contain path separators or control characters`,
    );
}
