import { randomBase64Url } from '../utils/bytes.js';
import {
  type AuthConfig,
  type AuthCredential,
  credentialKeyOf,
  isOAuthScheme,
  isTokenExpired,
  type OAuth2Auth,
  redactAuthConfig,
  redactCredential,
} from './auth-credential.js';
import { AuthError } from './auth-error.js';
import type { CredentialScope, CredentialService } from './credential-service.js';
import {
  authorizationUri,
  createPkce,
  type OAuthHttpOptions,
  oauthEndpoints,
  parseCallback,
  requestToken,
} from './oauth2.js';

/** What the credential steps need from a tool call. */
export interface CredentialCallContext {
  scope: CredentialScope;
  service: CredentialService;
  /** The client's answer to this call's `adk_request_credential`, when the call is being resumed. */
  authResponse: AuthConfig | undefined;
  http: OAuthHttpOptions;
}

function pendingKey(key: string, state: string): string {
  return `${key}#pending#${state}`;
}

/** Fields never stored with a token: the client secret comes from the tool's config each time. */
function storable(credential: AuthCredential): AuthCredential {
  if (!credential.oauth2) return credential;
  const {
    clientSecret: _s,
    codeVerifier: _v,
    authResponseUri: _u,
    authCode: _c,
    ...oauth2
  } = credential.oauth2;
  return { ...credential, oauth2 };
}

async function save(
  ctx: CredentialCallContext,
  key: string,
  credential: AuthCredential,
): Promise<AuthCredential> {
  const stored = storable(credential);
  await ctx.service.saveCredential({ ...ctx.scope, key, credential: stored });
  return stored;
}

/**
 * The auth config to send to the client in `adk_request_credential`: for OAuth2 / OpenID Connect,
 * with an authorization URL (state + PKCE; the verifier is kept in the credential service). Secrets
 * of the raw credential are removed.
 */
export async function buildAuthRequest(config: AuthConfig, ctx: CredentialCallContext): Promise<AuthConfig> {
  const key = credentialKeyOf(config);
  if (!isOAuthScheme(config.authScheme) || config.exchangedAuthCredential?.oauth2?.authUri)
    return redactAuthConfig({ ...config, credentialKey: key });
  const raw = config.rawAuthCredential;
  if (!raw?.oauth2?.clientId)
    throw new AuthError(`The ${config.authScheme.type} scheme needs rawAuthCredential.oauth2.clientId`);
  const endpoints = await oauthEndpoints(config.authScheme, ctx.http);
  const state = randomBase64Url(18);
  const pkce = createPkce();
  await ctx.service.saveCredential({
    ...ctx.scope,
    key: pendingKey(key, state),
    credential: { authType: raw.authType, oauth2: { state, codeVerifier: pkce.verifier } },
  });
  const oauth2: OAuth2Auth = {
    clientId: raw.oauth2.clientId,
    ...(raw.oauth2.redirectUri ? { redirectUri: raw.oauth2.redirectUri } : {}),
    ...(raw.oauth2.scopes ? { scopes: raw.oauth2.scopes } : {}),
    authUri: authorizationUri(endpoints, raw.oauth2, state, pkce.challenge),
    state,
  };
  return {
    authScheme: config.authScheme,
    rawAuthCredential: redactCredential(raw),
    exchangedAuthCredential: { authType: raw.authType, oauth2 },
    credentialKey: key,
  };
}

/**
 * Turns the client's answer into a usable credential and stores it: an OAuth2 callback URL is
 * exchanged for tokens (checking the state we issued and sending the PKCE verifier); other
 * schemes take the credential the client filled in.
 */
export async function exchangeAuthResponse(
  config: AuthConfig,
  response: AuthConfig,
  ctx: CredentialCallContext,
): Promise<AuthCredential> {
  const key = credentialKeyOf(config);
  const answered = response.exchangedAuthCredential;
  if (!answered) throw new AuthError('The auth response carries no exchangedAuthCredential');
  if (!isOAuthScheme(config.authScheme)) return save(ctx, key, answered);
  const got = answered.oauth2;
  if (!got) throw new AuthError('The auth response carries no oauth2 credential');
  const raw = config.rawAuthCredential?.oauth2 ?? {};
  if (got.accessToken && !got.authResponseUri && !got.authCode)
    return save(ctx, key, { authType: answered.authType, oauth2: { ...raw, ...got } });
  const callback = parseCallback(got);
  const state = callback.state ?? got.state;
  if (!state || (callback.state !== undefined && got.state !== undefined && callback.state !== got.state))
    throw new AuthError('The auth response state does not match the request');
  const pending = await ctx.service.loadCredential({ ...ctx.scope, key: pendingKey(key, state) });
  if (!pending?.oauth2?.codeVerifier)
    throw new AuthError('The auth response answers no pending request (unknown state)');
  await ctx.service.deleteCredential({ ...ctx.scope, key: pendingKey(key, state) });
  const endpoints = await oauthEndpoints(config.authScheme, ctx.http);
  if (!endpoints.tokenUrl) throw new AuthError('The OAuth2 scheme has no tokenUrl');
  const redirectUri = got.redirectUri ?? raw.redirectUri;
  const exchanged = await requestToken(
    endpoints.tokenUrl,
    {
      grant_type: 'authorization_code',
      code: callback.code,
      code_verifier: pending.oauth2.codeVerifier,
      ...(redirectUri ? { redirect_uri: redirectUri } : {}),
    },
    { ...raw, ...(redirectUri ? { redirectUri } : {}) },
    ctx.http,
  );
  return save(ctx, key, { ...exchanged, authType: answered.authType });
}

/** Whether a raw credential already holds what a request needs (a key, a token, a password). */
function isComplete(credential: AuthCredential | undefined): boolean {
  if (!credential) return false;
  if (credential.apiKey) return true;
  const http = credential.http?.credentials;
  if (http && (http.token || (http.username !== undefined && http.password !== undefined))) return true;
  return Boolean(credential.oauth2?.accessToken);
}

/**
 * The credential for `config`, or undefined when the client must be asked (the caller then requests
 * it): a complete raw credential; else a stored one, refreshed when expired; else this call's auth
 * response, exchanged; else, for the client-credentials flow, a token fetched directly.
 */
export async function resolveCredential(
  config: AuthConfig,
  ctx: CredentialCallContext,
): Promise<AuthCredential | undefined> {
  const raw = config.rawAuthCredential;
  if (raw && isComplete(raw)) return raw;
  const key = credentialKeyOf(config);
  const stored = await ctx.service.loadCredential({ ...ctx.scope, key });
  if (stored) {
    if (!isOAuthScheme(config.authScheme) || !isTokenExpired(stored)) return stored;
    const refreshed = await refresh(config, stored, ctx).catch((error: unknown) => {
      if (error instanceof AuthError) return undefined;
      throw error;
    });
    if (refreshed) return refreshed;
    await ctx.service.deleteCredential({ ...ctx.scope, key });
  }
  if (answers(ctx.authResponse, key)) return exchangeAuthResponse(config, ctx.authResponse, ctx);
  if (isOAuthScheme(config.authScheme)) {
    const endpoints = await oauthEndpoints(config.authScheme, ctx.http);
    if (endpoints.grant === 'client_credentials') {
      if (!endpoints.tokenUrl) throw new AuthError('The clientCredentials flow has no tokenUrl');
      const scopes = raw?.oauth2?.scopes ?? endpoints.scopes;
      const token = await requestToken(
        endpoints.tokenUrl,
        { grant_type: 'client_credentials', ...(scopes.length > 0 ? { scope: scopes.join(' ') } : {}) },
        raw?.oauth2 ?? {},
        ctx.http,
      );
      return save(ctx, key, { ...token, authType: raw?.authType ?? 'oauth2' });
    }
  }
  return undefined;
}

/** Whether the client's answer is for this auth config (a call may need several credentials). */
function answers(response: AuthConfig | undefined, key: string): response is AuthConfig {
  return response !== undefined && (response.credentialKey === undefined || response.credentialKey === key);
}

/** Uses the refresh token of an expired credential; undefined when there is none. */
async function refresh(
  config: AuthConfig,
  stored: AuthCredential,
  ctx: CredentialCallContext,
): Promise<AuthCredential | undefined> {
  if (!isOAuthScheme(config.authScheme)) return undefined;
  const refreshToken = stored.oauth2?.refreshToken;
  if (!refreshToken) return undefined;
  const endpoints = await oauthEndpoints(config.authScheme, ctx.http);
  const url = endpoints.refreshUrl ?? endpoints.tokenUrl;
  if (!url) return undefined;
  const client = config.rawAuthCredential?.oauth2 ?? {};
  const refreshed = await requestToken(
    url,
    { grant_type: 'refresh_token', refresh_token: refreshToken },
    { ...stored.oauth2, ...pickClient(client) },
    ctx.http,
  );
  return save(ctx, credentialKeyOf(config), { ...refreshed, authType: stored.authType });
}

function pickClient(oauth2: OAuth2Auth): OAuth2Auth {
  return {
    ...(oauth2.clientId ? { clientId: oauth2.clientId } : {}),
    ...(oauth2.clientSecret ? { clientSecret: oauth2.clientSecret } : {}),
    ...(oauth2.tokenEndpointAuthMethod ? { tokenEndpointAuthMethod: oauth2.tokenEndpointAuthMethod } : {}),
  };
}
