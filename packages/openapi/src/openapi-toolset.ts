import {
  type AuthConfig,
  type AuthCredential,
  type AuthScheme,
  BaseToolset,
  isPlainObject,
  type ReadonlyContext,
} from '@adk/core';
import type { HttpClientOptions } from '@adk/core/http';
import { OpenApiSpecError } from './errors.js';
import {
  type LoadedDocument,
  loadOpenApiDocument,
  type OpenApiDocument,
  type OpenApiSource,
} from './load-document.js';
import { OpenApiTool } from './openapi-tool.js';
import { listOperations, type OpenApiOperation, serverUrlOf, toolNameOf } from './operations.js';

export interface OpenApiToolsetOptions {
  /** The document: an object, JSON or YAML text, or its URL. */
  spec: OpenApiSource;
  /** Overrides the document's first server URL. */
  baseUrl?: string;
  /**
   * Credentials by security scheme name: an API key or bearer token to use as is, or the OAuth2
   * client (clientId, clientSecret, redirectUri) for the authorization flow. Schemes without one
   * are asked from the client (`adk_request_credential`) on first use.
   */
  credentials?: Record<string, AuthCredential>;
  /** Only these operations (by tool name or operationId), or those the predicate accepts. */
  filter?: string[] | ((operation: OpenApiOperation, toolName: string) => boolean);
  /** Prefix added to every tool name (`prefix_name`). */
  namePrefix?: string;
  /** Headers sent on every call. */
  headers?: Record<string, string>;
  /** Transport settings for the API calls and for fetching the document. */
  http?: HttpClientOptions;
}

/**
 * The operations of an OpenAPI 3.0/3.1 document as tools. The document is loaded, validated and
 * dereferenced once, on first use (or eagerly with {@link OpenApiToolset.load}); an unusable
 * document fails with an {@link OpenApiSpecError} naming the place in the document.
 */
export class OpenApiToolset extends BaseToolset {
  private loaded: Promise<OpenApiTool[]> | undefined;

  constructor(private readonly options: OpenApiToolsetOptions) {
    super();
  }

  /** Builds the toolset and loads its document now, so a bad document fails here. */
  static async load(options: OpenApiToolsetOptions): Promise<OpenApiToolset> {
    const toolset = new OpenApiToolset(options);
    await toolset.tools();
    return toolset;
  }

  /** The tools of every selected operation. */
  tools(): Promise<OpenApiTool[]> {
    if (!this.loaded) {
      this.loaded = this.build();
      this.loaded.catch(() => {
        this.loaded = undefined;
      });
    }
    return this.loaded;
  }

  async getTools(_context: ReadonlyContext): Promise<OpenApiTool[]> {
    return this.tools();
  }

  private async build(): Promise<OpenApiTool[]> {
    const loaded = await loadOpenApiDocument(this.options.spec, this.options.http ?? {});
    const { document } = loaded;
    const baseUrl = this.options.baseUrl ?? serverUrlOf(document, loaded.url);
    if (!baseUrl)
      throw new OpenApiSpecError('The document has no absolute server URL; pass `baseUrl`', {
        path: '#/servers',
      });
    const tools: OpenApiTool[] = [];
    const names = new Set<string>();
    for (const operation of listOperations(document)) {
      const base = toolNameOf(operation);
      if (!this.selected(operation, base)) continue;
      let name = this.options.namePrefix ? `${this.options.namePrefix}_${base}` : base;
      for (let n = 2; names.has(name); n++) name = `${base}_${n}`;
      const authConfigs = this.authConfigs(operation, loaded, baseUrl);
      if (!authConfigs) continue;
      names.add(name);
      tools.push(
        new OpenApiTool({
          name,
          operation,
          baseUrl,
          authConfigs,
          http: this.options.http ?? {},
          headers: this.options.headers ?? {},
        }),
      );
    }
    return tools;
  }

  private selected(operation: OpenApiOperation, name: string): boolean {
    const filter = this.options.filter;
    if (!filter) return true;
    if (Array.isArray(filter))
      return filter.includes(name) || (!!operation.operationId && filter.includes(operation.operationId));
    return filter(operation, name);
  }

  /**
   * The credentials an operation needs: the first of its security requirements whose schemes are
   * all known (an empty requirement means it can be called without credentials).
   */
  private authConfigs(
    operation: OpenApiOperation,
    loaded: LoadedDocument,
    baseUrl: string,
  ): AuthConfig[] | undefined {
    const schemes = loaded.document.components?.securitySchemes ?? {};
    if (operation.security.length === 0) return [];
    for (const requirement of operation.security) {
      const entries = Object.entries(requirement);
      if (entries.length === 0) return [];
      if (!entries.every(([name]) => isSupportedScheme(schemes[name]))) continue;
      return entries.map(([name, scopes]) =>
        this.authConfig(name, schemes[name] as unknown as AuthScheme, scopes, loaded.document, baseUrl),
      );
    }
    const names = operation.security.flatMap((r) => Object.keys(r)).join(', ');
    if (Array.isArray(this.options.filter))
      throw new OpenApiSpecError(
        `Operation ${operation.method.toUpperCase()} ${operation.path} needs security schemes this toolset cannot use (${names})`,
        { path: `${operation.pointer}/security` },
      );
    // Not asked for by name: left out (e.g. mutualTLS operations) rather than failing every tool.
    return undefined;
  }

  private authConfig(
    name: string,
    scheme: AuthScheme,
    scopes: string[],
    document: OpenApiDocument,
    baseUrl: string,
  ): AuthConfig {
    const given = this.options.credentials?.[name];
    let raw = given;
    if (raw?.oauth2 && !raw.oauth2.scopes && scopes.length > 0)
      raw = { ...raw, oauth2: { ...raw.oauth2, scopes } };
    const api = document.info?.title ?? 'api';
    return {
      authScheme: scheme,
      ...(raw ? { rawAuthCredential: raw } : {}),
      // One credential per API and scheme (two APIs with look-alike schemes do not share keys): the
      // base URL the calls go to, also when the document's server URL is relative to where it was read.
      credentialKey: `openapi_${slug(api)}_${slug(baseUrl)}_${slug(name)}`,
    };
  }
}

function slug(text: string): string {
  return text
    .replace(/[^A-Za-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 40)
    .toLowerCase();
}

function isSupportedScheme(scheme: unknown): boolean {
  if (!isPlainObject(scheme)) return false;
  switch (scheme.type) {
    case 'apiKey':
      return typeof scheme.name === 'string' && ['header', 'query', 'cookie'].includes(String(scheme.in));
    case 'http':
      return typeof scheme.scheme === 'string';
    case 'oauth2':
      return isPlainObject(scheme.flows);
    case 'openIdConnect':
      return typeof scheme.openIdConnectUrl === 'string';
    default:
      return false;
  }
}
