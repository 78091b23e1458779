/** `@adk/a2a/testing`: fixtures for conformance testing (the TCK-scripted agent). */
export { serveTckFixture, type TckFixtureOptions, tckFixtureAgent } from './tck-fixture-agent.js';
