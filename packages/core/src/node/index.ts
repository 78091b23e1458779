// `@adk/core/node`: the pieces of @adk/core that need Node's file system (or a runtime that
// implements it, as Bun and Deno do). The root entry point imports no `node:` module.
export * from '../artifacts/file-artifact-service.js';
