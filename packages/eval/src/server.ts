// `@adk/eval/server`: adk-python's eval routes for `@adk/server` (hono is an optional peer).
export { type EvalRoutesOptions, evalRoutes } from './server/eval-routes.js';
