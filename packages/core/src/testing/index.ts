export * from './artifact-conformance.js';
export * from './conformance.js';
export * from './memory-conformance.js';
export * from './provider-conformance.js';
export * from './replay-server.js';
export * from './scripted-live-model.js';
export * from './scripted-model.js';
export * from './session-conformance.js';
