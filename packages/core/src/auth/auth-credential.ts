import { sha256Hex } from '../utils/sha256.js';

// The shapes follow ADK's AuthCredential / AuthConfig in their camelCase JSON form, so an ADK client
// that answers `adk_request_credential` works unchanged. Auth schemes are OpenAPI security schemes.

/** The kind of credential (ADK's AuthCredentialTypes). */
export type AuthCredentialType = 'apiKey' | 'http' | 'oauth2' | 'openIdConnect' | 'serviceAccount';

export interface HttpCredentials {
  username?: string;
  password?: string;
  token?: string;
}

/** HTTP authentication (RFC 7235): `scheme` is 'basic' or 'bearer' (or another registered scheme). */
export interface HttpAuth {
  scheme: string;
  credentials: HttpCredentials;
}

export interface OAuth2Auth {
  clientId?: string;
  clientSecret?: string;
  /** The URL the user opens to sign in (filled by ADK when it requests the credential). */
  authUri?: string;
  state?: string;
  redirectUri?: string;
  /** The full callback URL the user was redirected to (filled by the client). */
  authResponseUri?: string;
  authCode?: string;
  accessToken?: string;
  refreshToken?: string;
  idToken?: string;
  /** Seconds since the epoch. */
  expiresAt?: number;
  expiresIn?: number;
  /** How the client authenticates at the token endpoint (default 'client_secret_basic'). */
  tokenEndpointAuthMethod?: 'client_secret_basic' | 'client_secret_post' | 'none';
  /** Scopes to ask for (default: every scope of the scheme's flow). */
  scopes?: string[];
  /** PKCE verifier, kept server-side between the request and the exchange; never sent to clients. */
  codeVerifier?: string;
}

export interface AuthCredential {
  authType: AuthCredentialType;
  resourceRef?: string;
  apiKey?: string;
  http?: HttpAuth;
  oauth2?: OAuth2Auth;
  serviceAccount?: Record<string, unknown>;
}

/** OpenAPI `apiKey` security scheme. */
export interface ApiKeyScheme {
  type: 'apiKey';
  name: string;
  in: 'header' | 'query' | 'cookie';
  description?: string;
}

/** OpenAPI `http` security scheme ('basic', 'bearer', …). */
export interface HttpScheme {
  type: 'http';
  scheme: string;
  bearerFormat?: string;
  description?: string;
}

export interface OAuthFlow {
  authorizationUrl?: string;
  tokenUrl?: string;
  refreshUrl?: string;
  scopes?: Record<string, string>;
}

export interface OAuthFlows {
  authorizationCode?: OAuthFlow;
  clientCredentials?: OAuthFlow;
  implicit?: OAuthFlow;
  password?: OAuthFlow;
}

/** OpenAPI `oauth2` security scheme. */
export interface OAuth2Scheme {
  type: 'oauth2';
  flows: OAuthFlows;
  description?: string;
}

/**
 * OpenID Connect: either the OpenAPI form (`openIdConnectUrl`, discovered on first use) or ADK's
 * form with the endpoints given (`authorizationEndpoint`, `tokenEndpoint`).
 */
export interface OpenIdConnectScheme {
  type: 'openIdConnect';
  openIdConnectUrl?: string;
  authorizationEndpoint?: string;
  tokenEndpoint?: string;
  userinfoEndpoint?: string;
  revocationEndpoint?: string;
  scopes?: string[];
  description?: string;
}

export type AuthScheme = ApiKeyScheme | HttpScheme | OAuth2Scheme | OpenIdConnectScheme;

/**
 * What a tool needs to authenticate: the scheme, the credential it has (e.g. an OAuth2 client id
 * and secret), and — filled in during the round trip with the client — the exchanged credential.
 */
export interface AuthConfig {
  authScheme: AuthScheme;
  rawAuthCredential?: AuthCredential;
  exchangedAuthCredential?: AuthCredential;
  /** The key the credential is stored under; derived from scheme and raw credential when absent. */
  credentialKey?: string;
}

/** ADK's arguments of the `adk_request_credential` function call. */
export interface AuthToolArguments {
  functionCallId: string;
  authConfig: AuthConfig;
}

/** Whether the scheme needs an OAuth2 / OpenID Connect exchange. */
export function isOAuthScheme(scheme: AuthScheme): scheme is OAuth2Scheme | OpenIdConnectScheme {
  return scheme.type === 'oauth2' || scheme.type === 'openIdConnect';
}

/** JSON with sorted keys, so equal objects hash equally. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

function digest(value: unknown): string {
  return sha256Hex(canonical(value)).slice(0, 32);
}

/** Fields of a service account (ADK's, or Google's key file within it) that name it without a secret. */
const SERVICE_ACCOUNT_IDS = [
  'type',
  'projectId',
  'project_id',
  'clientEmail',
  'client_email',
  'clientId',
  'client_id',
  'tokenUri',
  'token_uri',
  'scopes',
  'useDefaultCredential',
  'use_default_credential',
];

function pickIds(value: unknown): Record<string, unknown> | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const record = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const id of SERVICE_ACCOUNT_IDS) if (record[id] !== undefined) out[id] = record[id];
  return out;
}

/**
 * What identifies a raw credential without revealing it: its type and resource, the HTTP scheme and
 * user name, the OAuth2 client id, redirect URI, scopes and token endpoint auth method, a service
 * account's project and email. Never an API key, password, client secret, token, code or key.
 */
function credentialIdentity(raw: AuthCredential): Record<string, unknown> {
  const { http, oauth2, serviceAccount } = raw;
  return {
    authType: raw.authType,
    resourceRef: raw.resourceRef,
    http: http && { scheme: http.scheme, username: http.credentials.username },
    oauth2: oauth2 && {
      clientId: oauth2.clientId,
      redirectUri: oauth2.redirectUri,
      scopes: oauth2.scopes,
      tokenEndpointAuthMethod: oauth2.tokenEndpointAuthMethod,
    },
    serviceAccount: serviceAccount && {
      ...pickIds(serviceAccount),
      credential: pickIds(
        serviceAccount.serviceAccountCredential ?? serviceAccount.service_account_credential,
      ),
    },
  };
}

/**
 * The key a credential is stored under: `authConfig.credentialKey`, else one derived so that the
 * same tool configuration finds the same credential: `adk_<scheme type>_<hash of the scheme>`,
 * then `_<credential type>_<hash of the credential's identity>` when there is a raw credential.
 *
 * The scheme (endpoints, flows, scopes) holds no secret. Of the raw credential only non-secret
 * fields are hashed (see `credentialIdentity`: client id, redirect URI, scopes, user name, …), so
 * the key — which travels in events — cannot be used to guess a secret offline, and it stays the
 * same when only a secret changes (e.g. a rotated client secret still finds the stored tokens).
 * Pass `credentialKey` to separate credentials that differ only in their secrets.
 */
export function credentialKeyOf(config: AuthConfig): string {
  if (config.credentialKey) return config.credentialKey;
  const raw = config.rawAuthCredential;
  const scheme = `adk_${config.authScheme.type}_${digest(config.authScheme)}`;
  return raw ? `${scheme}_${raw.authType}_${digest(credentialIdentity(raw))}` : scheme;
}

/** A copy of the credential without any secret (what may travel in events and logs). */
export function redactCredential(credential: AuthCredential): AuthCredential {
  const { apiKey: _key, http, oauth2, serviceAccount: _sa, ...rest } = credential;
  const out: AuthCredential = { ...rest };
  if (http) {
    const { password: _p, token: _t, ...credentials } = http.credentials;
    out.http = { scheme: http.scheme, credentials };
  }
  if (oauth2) {
    const {
      clientSecret: _s,
      authResponseUri: _u,
      authCode: _c,
      accessToken: _a,
      refreshToken: _r,
      idToken: _i,
      codeVerifier: _v,
      ...safe
    } = oauth2;
    out.oauth2 = safe;
  }
  return out;
}

/** A copy of the auth config without any secret (what may travel in events and logs). */
export function redactAuthConfig(config: AuthConfig): AuthConfig {
  return {
    authScheme: config.authScheme,
    ...(config.rawAuthCredential ? { rawAuthCredential: redactCredential(config.rawAuthCredential) } : {}),
    ...(config.exchangedAuthCredential
      ? { exchangedAuthCredential: redactCredential(config.exchangedAuthCredential) }
      : {}),
    credentialKey: credentialKeyOf(config),
  };
}

/** Options of {@link isTokenExpired}, in milliseconds. */
export interface TokenExpiryOptions {
  /** The time to compare with, ms since the epoch (default `Date.now()`). */
  nowMs?: number;
  /** A token expiring within this margin counts as expired, ms (default 30 000). */
  skewMs?: number;
}

/**
 * Whether an OAuth2 credential's access token has expired, or will within `skewMs`. (The token's
 * `expiresAt` is in seconds since the epoch, as OAuth2 and ADK store it.)
 */
export function isTokenExpired(credential: AuthCredential, options?: TokenExpiryOptions): boolean;
/** @deprecated Mixed units: use `isTokenExpired(credential, { nowMs, skewMs })`. */
export function isTokenExpired(credential: AuthCredential, nowMs?: number, skewSeconds?: number): boolean;
export function isTokenExpired(
  credential: AuthCredential,
  options?: TokenExpiryOptions | number,
  skewSeconds?: number,
): boolean {
  const expiresAt = credential.oauth2?.expiresAt;
  if (expiresAt === undefined) return false;
  const legacy = typeof options === 'number' || (options === undefined && skewSeconds !== undefined);
  const nowMs = (legacy ? (options as number | undefined) : options?.nowMs) ?? Date.now();
  const skewMs = legacy
    ? (skewSeconds ?? 30) * 1000
    : ((options as TokenExpiryOptions | undefined)?.skewMs ?? 30_000);
  return expiresAt * 1000 - skewMs <= nowMs;
}
