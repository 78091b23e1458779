export * from './conformance.js';
export * from './session-conformance.js';
