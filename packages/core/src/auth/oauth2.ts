// Static imports: a dynamic import() of these made bundlers wrap every module they share with the
// root in an initializer run at load, which defeated tree-shaking of the whole package.
import { isApiCallError } from '../http/api-call-error.js';
import { type HttpClientOptions, postJson, send } from '../http/client.js';
import { bytesToBase64Url, randomBase64Url, utf8ToBase64 } from '../utils/bytes.js';
import { isPlainObject, tryParseJson } from '../utils/json.js';
import { sha256 } from '../utils/sha256.js';
import { lazySchema } from '../utils/zod.js';
import type { AuthCredential, OAuth2Auth, OAuth2Scheme, OpenIdConnectScheme } from './auth-credential.js';
import { AuthError } from './auth-error.js';

/** Where to send the user and where to get tokens, for one OAuth2 / OpenID Connect scheme. */
export interface OAuthEndpoints {
  authorizationUrl?: string;
  tokenUrl?: string;
  refreshUrl?: string;
  /** Scopes the scheme declares (all of them are asked for unless the credential names some). */
  scopes: string[];
  grant: 'authorization_code' | 'client_credentials' | 'implicit' | 'password' | undefined;
}

export interface OAuthHttpOptions extends HttpClientOptions {
  signal?: AbortSignal;
}

const discoverySchema = /* @__PURE__ */ lazySchema((z) =>
  z.looseObject({
    authorization_endpoint: z.string().optional(),
    token_endpoint: z.string().optional(),
    scopes_supported: z.array(z.string()).optional(),
  }),
);

const tokenSchema = /* @__PURE__ */ lazySchema((z) =>
  z.looseObject({
    access_token: z.string(),
    token_type: z.string().optional(),
    expires_in: z.union([z.number(), z.string()]).optional(),
    refresh_token: z.string().optional(),
    id_token: z.string().optional(),
    scope: z.string().optional(),
  }),
);

const discovered = new Map<string, Promise<OAuthEndpoints>>();

/** The endpoints of a scheme; an OpenID Connect URL is discovered once per process. */
export async function oauthEndpoints(
  scheme: OAuth2Scheme | OpenIdConnectScheme,
  http: OAuthHttpOptions = {},
): Promise<OAuthEndpoints> {
  if (scheme.type === 'oauth2') {
    const f = scheme.flows;
    const [grant, flow] = f.authorizationCode
      ? (['authorization_code', f.authorizationCode] as const)
      : f.clientCredentials
        ? (['client_credentials', f.clientCredentials] as const)
        : f.implicit
          ? (['implicit', f.implicit] as const)
          : f.password
            ? (['password', f.password] as const)
            : ([undefined, undefined] as const);
    return {
      ...(flow?.authorizationUrl ? { authorizationUrl: flow.authorizationUrl } : {}),
      ...(flow?.tokenUrl ? { tokenUrl: flow.tokenUrl } : {}),
      ...(flow?.refreshUrl ? { refreshUrl: flow.refreshUrl } : {}),
      scopes: Object.keys(flow?.scopes ?? {}),
      grant,
    };
  }
  if (scheme.authorizationEndpoint || scheme.tokenEndpoint) {
    return {
      ...(scheme.authorizationEndpoint ? { authorizationUrl: scheme.authorizationEndpoint } : {}),
      ...(scheme.tokenEndpoint ? { tokenUrl: scheme.tokenEndpoint } : {}),
      scopes: scheme.scopes ?? ['openid'],
      grant: 'authorization_code',
    };
  }
  const url = scheme.openIdConnectUrl;
  if (!url) throw new AuthError('The openIdConnect scheme has neither openIdConnectUrl nor endpoints');
  let pending = discovered.get(url);
  if (!pending) {
    pending = discover(url, scheme.scopes, http);
    discovered.set(url, pending);
    pending.catch(() => discovered.delete(url));
  }
  return pending;
}

async function discover(
  url: string,
  scopes: string[] | undefined,
  http: OAuthHttpOptions,
): Promise<OAuthEndpoints> {
  const response = await send({ ...http, url, method: 'GET', apiName: 'OpenID Connect discovery' }, []);
  const parsed = discoverySchema.safeParse(tryParseJson(await response.text()));
  if (!parsed.success) throw new AuthError(`OpenID Connect discovery at ${url} returned no usable document`);
  return {
    ...(parsed.data.authorization_endpoint ? { authorizationUrl: parsed.data.authorization_endpoint } : {}),
    ...(parsed.data.token_endpoint ? { tokenUrl: parsed.data.token_endpoint } : {}),
    scopes: scopes ?? ['openid'],
    grant: 'authorization_code',
  };
}

/** A PKCE verifier and its S256 challenge (RFC 7636). */
export function createPkce(): { verifier: string; challenge: string } {
  const verifier = randomBase64Url(32);
  const challenge = bytesToBase64Url(sha256(verifier));
  return { verifier, challenge };
}

/** The URL the user opens to sign in: authorization code flow with state and PKCE. */
export function authorizationUri(
  endpoints: OAuthEndpoints,
  oauth2: OAuth2Auth,
  state: string,
  codeChallenge: string,
): string {
  if (!endpoints.authorizationUrl) throw new AuthError('The OAuth2 scheme has no authorizationUrl');
  if (!oauth2.clientId) throw new AuthError('The OAuth2 credential has no clientId');
  const url = new URL(endpoints.authorizationUrl);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('client_id', oauth2.clientId);
  if (oauth2.redirectUri) url.searchParams.set('redirect_uri', oauth2.redirectUri);
  const scopes = oauth2.scopes ?? endpoints.scopes;
  if (scopes.length > 0) url.searchParams.set('scope', scopes.join(' '));
  url.searchParams.set('state', state);
  url.searchParams.set('code_challenge', codeChallenge);
  url.searchParams.set('code_challenge_method', 'S256');
  return url.toString();
}

/** The code and state of the callback URL the user was sent to (or the error it carries). */
export function parseCallback(oauth2: OAuth2Auth): { code: string; state: string | undefined } {
  if (oauth2.authCode) return { code: oauth2.authCode, state: oauth2.state };
  if (!oauth2.authResponseUri)
    throw new AuthError('The auth response has neither authResponseUri nor authCode');
  let url: URL;
  try {
    url = new URL(oauth2.authResponseUri);
  } catch {
    throw new AuthError('The auth response URI is not a URL');
  }
  // Some servers answer in the fragment (response_mode=fragment).
  const params =
    url.searchParams.has('code') || url.searchParams.has('error')
      ? url.searchParams
      : new URLSearchParams(url.hash.slice(1));
  const error = params.get('error');
  if (error) {
    const description = params.get('error_description');
    throw new AuthError(
      `The authorization server refused: ${error}${description ? ` (${description})` : ''}`,
    );
  }
  const code = params.get('code');
  if (!code) throw new AuthError('The auth response URI carries no authorization code');
  return { code, state: params.get('state') ?? undefined };
}

/**
 * Posts to the token endpoint (RFC 6749 §4.1.3, §4.4, §6) and returns the credential with the new
 * tokens; a refresh that returns no refresh token keeps the old one.
 */
export async function requestToken(
  tokenUrl: string,
  grant: Record<string, string>,
  oauth2: OAuth2Auth,
  http: OAuthHttpOptions = {},
): Promise<AuthCredential> {
  const body = new URLSearchParams(grant);
  const headers: Record<string, string> = {};
  const method = oauth2.tokenEndpointAuthMethod ?? (oauth2.clientSecret ? 'client_secret_basic' : 'none');
  if (oauth2.clientId) {
    if (method === 'client_secret_basic' && oauth2.clientSecret) {
      const id = encodeURIComponent(oauth2.clientId);
      const secret = encodeURIComponent(oauth2.clientSecret);
      headers.authorization = `Basic ${utf8ToBase64(`${id}:${secret}`)}`;
    } else {
      body.set('client_id', oauth2.clientId);
      if (method === 'client_secret_post' && oauth2.clientSecret)
        body.set('client_secret', oauth2.clientSecret);
    }
  }
  let value: ReturnType<typeof tokenSchema.parse>;
  try {
    ({ value } = await postJson({
      ...http,
      url: tokenUrl,
      requestHeaders: headers,
      body,
      schema: tokenSchema,
      apiName: 'The OAuth2 token endpoint',
      extractErrorMessage: oauthErrorMessage,
    }));
  } catch (error) {
    if (isApiCallError(error)) {
      throw new AuthError(
        `Token request (${grant.grant_type}) failed: ${error.vendorMessage ?? error.message}`,
        {
          details: { status: error.status, grantType: grant.grant_type },
        },
      );
    }
    throw error;
  }
  const expiresIn = value.expires_in === undefined ? undefined : Number(value.expires_in);
  const { authResponseUri: _u, authCode: _c, ...kept } = oauth2;
  const updated: OAuth2Auth = {
    ...kept,
    accessToken: value.access_token,
    ...(value.refresh_token ? { refreshToken: value.refresh_token } : {}),
    ...(value.id_token ? { idToken: value.id_token } : {}),
  };
  if (expiresIn !== undefined && Number.isFinite(expiresIn)) {
    updated.expiresIn = expiresIn;
    updated.expiresAt = Math.floor(Date.now() / 1000) + expiresIn;
  } else {
    delete updated.expiresIn;
    delete updated.expiresAt;
  }
  return { authType: 'oauth2', oauth2: updated };
}

/** RFC 6749 §5.2 error bodies: `{ error, error_description }`. */
function oauthErrorMessage(body: unknown): string | undefined {
  if (!isPlainObject(body) || typeof body.error !== 'string') return undefined;
  return typeof body.error_description === 'string'
    ? `${body.error} (${body.error_description})`
    : body.error;
}
