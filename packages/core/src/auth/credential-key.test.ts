import { describe, expect, it } from 'vitest';
import { type AuthConfig, type AuthCredential, credentialKeyOf, redactAuthConfig } from '../index.js';

// The derived credential key travels in events (`adk_request_credential`), so it must not be a
// function of any secret: not brute-forceable offline, and stable when only a secret changes.

const scheme: AuthConfig['authScheme'] = {
  type: 'oauth2',
  flows: {
    authorizationCode: {
      authorizationUrl: 'https://auth.example/authorize',
      tokenUrl: 'https://auth.example/token',
      scopes: { read: 'Read' },
    },
  },
};

const oauth = (oauth2: AuthCredential['oauth2']): AuthConfig => ({
  authScheme: scheme,
  rawAuthCredential: { authType: 'oauth2', oauth2 },
});

const SECRETS = ['hunter2', 'tok-123', 'refresh-456', 'code-789', 'verifier-abc', 'id-token-def', 'pw-xyz'];

describe('credentialKeyOf (derived)', () => {
  it('does not change when only the OAuth2 client secret or tokens change', () => {
    const base = credentialKeyOf(oauth({ clientId: 'app', clientSecret: 'a', scopes: ['read'] }));
    expect(credentialKeyOf(oauth({ clientId: 'app', clientSecret: 'hunter2', scopes: ['read'] }))).toBe(base);
    expect(
      credentialKeyOf(
        oauth({
          clientId: 'app',
          clientSecret: 'hunter2',
          scopes: ['read'],
          accessToken: 'tok-123',
          refreshToken: 'refresh-456',
          authCode: 'code-789',
          codeVerifier: 'verifier-abc',
          idToken: 'id-token-def',
          expiresAt: 1,
        }),
      ),
    ).toBe(base);
    expect(base).toMatch(/^adk_oauth2_[0-9a-f]{32}_oauth2_[0-9a-f]{32}$/);
  });

  it('does not change when only an API key, password, bearer token or private key changes', () => {
    const apiKey = (key: string): AuthConfig => ({
      authScheme: { type: 'apiKey', in: 'header', name: 'X-Key' },
      rawAuthCredential: { authType: 'apiKey', apiKey: key },
    });
    expect(credentialKeyOf(apiKey('hunter2'))).toBe(credentialKeyOf(apiKey('other')));
    const basic = (password: string): AuthConfig => ({
      authScheme: { type: 'http', scheme: 'basic' },
      rawAuthCredential: {
        authType: 'http',
        http: { scheme: 'basic', credentials: { username: 'ada', password } },
      },
    });
    expect(credentialKeyOf(basic('pw-xyz'))).toBe(credentialKeyOf(basic('other')));
    const bearer = (token: string): AuthConfig => ({
      authScheme: { type: 'http', scheme: 'bearer' },
      rawAuthCredential: { authType: 'http', http: { scheme: 'bearer', credentials: { token } } },
    });
    expect(credentialKeyOf(bearer('tok-123'))).toBe(credentialKeyOf(bearer('other')));
    const account = (privateKey: string): AuthConfig => ({
      authScheme: scheme,
      rawAuthCredential: {
        authType: 'serviceAccount',
        serviceAccount: {
          serviceAccountCredential: {
            type: 'service_account',
            project_id: 'p',
            client_email: 'bot@p.iam.example',
            private_key_id: 'kid',
            private_key: privateKey,
          },
          scopes: ['read'],
        },
      },
    });
    expect(credentialKeyOf(account('-----BEGIN PRIVATE KEY----- hunter2'))).toBe(
      credentialKeyOf(account('other')),
    );
  });

  it('can be computed from the redacted config alone (so it carries nothing of a secret)', () => {
    const configs: AuthConfig[] = [
      oauth({
        clientId: 'app',
        clientSecret: 'hunter2',
        accessToken: 'tok-123',
        refreshToken: 'refresh-456',
        authCode: 'code-789',
        codeVerifier: 'verifier-abc',
        idToken: 'id-token-def',
        redirectUri: 'https://app.example/cb',
      }),
      {
        authScheme: { type: 'http', scheme: 'basic' },
        rawAuthCredential: {
          authType: 'http',
          http: { scheme: 'basic', credentials: { username: 'ada', password: 'pw-xyz' } },
        },
      },
      {
        authScheme: { type: 'apiKey', in: 'query', name: 'key' },
        rawAuthCredential: { authType: 'apiKey', apiKey: 'hunter2' },
      },
    ];
    for (const config of configs) {
      const key = credentialKeyOf(config);
      const { credentialKey: _sent, ...redacted } = redactAuthConfig(config);
      expect(JSON.stringify(redacted)).not.toMatch(new RegExp(SECRETS.join('|')));
      expect(credentialKeyOf(redacted)).toBe(key);
      for (const secret of SECRETS) expect(key).not.toContain(secret);
    }
  });

  it('still tells apart what identifies a credential: scheme endpoints, client id, scopes, user', () => {
    const keys = new Set([
      credentialKeyOf(oauth({ clientId: 'app', scopes: ['read'] })),
      credentialKeyOf(oauth({ clientId: 'other', scopes: ['read'] })),
      credentialKeyOf(oauth({ clientId: 'app', scopes: ['write'] })),
      credentialKeyOf({
        authScheme: {
          type: 'oauth2',
          flows: {
            authorizationCode: { ...scheme.flows.authorizationCode, tokenUrl: 'https://b.example/token' },
          },
        },
        rawAuthCredential: { authType: 'oauth2', oauth2: { clientId: 'app', scopes: ['read'] } },
      }),
      credentialKeyOf({ authScheme: scheme }),
    ]);
    expect(keys.size).toBe(5);
    expect(credentialKeyOf({ ...oauth({ clientId: 'app' }), credentialKey: 'mine' })).toBe('mine');
  });
});
