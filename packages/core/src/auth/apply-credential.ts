import { utf8ToBase64 } from '../utils/bytes.js';
import type { AuthCredential, AuthScheme } from './auth-credential.js';
import { AuthError } from './auth-error.js';

/** Where a credential goes in an HTTP request. */
export interface CredentialPlacement {
  headers: Record<string, string>;
  query: Record<string, string>;
  cookies: Record<string, string>;
}

/**
 * How a credential is sent for a scheme: an API key in its header, query parameter or cookie;
 * HTTP basic or bearer in `Authorization`; OAuth2 / OpenID Connect access tokens as bearer tokens.
 */
export function applyCredential(scheme: AuthScheme, credential: AuthCredential): CredentialPlacement {
  const out: CredentialPlacement = { headers: {}, query: {}, cookies: {} };
  const bearer = (token: string | undefined) => {
    if (!token) throw new AuthError(`The ${scheme.type} credential has no token`);
    out.headers.authorization = `Bearer ${token}`;
  };
  switch (scheme.type) {
    case 'apiKey': {
      const key = credential.apiKey;
      if (!key) throw new AuthError(`The apiKey credential for "${scheme.name}" has no apiKey`);
      const target = scheme.in === 'header' ? out.headers : scheme.in === 'query' ? out.query : out.cookies;
      target[scheme.in === 'header' ? scheme.name.toLowerCase() : scheme.name] = key;
      return out;
    }
    case 'http': {
      const kind = scheme.scheme.toLowerCase();
      const creds = credential.http?.credentials;
      if (kind === 'basic') {
        if (creds?.username === undefined || creds.password === undefined)
          throw new AuthError('The basic credential needs username and password');
        out.headers.authorization = `Basic ${utf8ToBase64(`${creds.username}:${creds.password}`)}`;
        return out;
      }
      if (kind === 'bearer') {
        bearer(creds?.token ?? credential.oauth2?.accessToken);
        return out;
      }
      if (!creds?.token) throw new AuthError(`The http ${scheme.scheme} credential has no token`);
      out.headers.authorization = `${scheme.scheme} ${creds.token}`;
      return out;
    }
    case 'oauth2':
    case 'openIdConnect':
      bearer(credential.oauth2?.accessToken ?? credential.http?.credentials.token);
      return out;
  }
}
