// Loaded with `node --import` by eval-routes.test.ts: redirects the CLI's import of
// `@adk/eval/server` to ADK_TEST_EVAL_TARGET (a file URL) — resolved from there as the importer
// when ADK_TEST_EVAL_IMPORT is `elsewhere` (so @adk/eval is really not found), or loaded in its
// place when it is `replace`.
import { registerHooks } from 'node:module';

const mode = process.env.ADK_TEST_EVAL_IMPORT;
const target = process.env.ADK_TEST_EVAL_TARGET;

registerHooks({
  resolve(specifier, context, nextResolve) {
    if (specifier !== '@adk/eval/server' || !mode || !target) return nextResolve(specifier, context);
    if (mode === 'elsewhere') return nextResolve(specifier, { ...context, parentURL: target });
    return { url: target, shortCircuit: true };
  },
});
