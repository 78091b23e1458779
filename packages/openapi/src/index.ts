export { OpenApiSpecError } from './errors.js';
export {
  type LoadedDocument,
  loadOpenApiDocument,
  type OpenApiDocument,
  type OpenApiSource,
} from './load-document.js';
export { OpenApiTool, type OpenApiToolInit } from './openapi-tool.js';
export { OpenApiToolset, type OpenApiToolsetOptions } from './openapi-toolset.js';
export {
  listOperations,
  type OpenApiOperation,
  type OpenApiParameter,
  type OpenApiRequestBody,
  toolNameOf,
  toSnakeCase,
} from './operations.js';
