let registered: Promise<void> | undefined;

/**
 * Lets `import()` load TypeScript agent modules without a build step, through tsx's loader hooks
 * (registered once for the process, so agent modules share their dependencies — one `@adk/core` —
 * with the CLI).
 */
export function enableTypeScript(): Promise<void> {
  registered ??= import('tsx/esm/api').then(({ register }) => {
    register();
  });
  return registered;
}
