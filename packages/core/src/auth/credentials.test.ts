import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import {
  type AuthConfig,
  type AuthCredential,
  applyCredential,
  credentialKeyOf,
  type Event,
  FunctionTool,
  InMemoryCredentialService,
  InMemorySessionService,
  LlmAgent,
  REQUEST_CREDENTIAL,
  Runner,
  redactAuthConfig,
  userContent,
} from '../index.js';
import { functionCallResponse, functionCallsResponse, ScriptedModel } from '../testing/index.js';

/** A token endpoint (client credentials) and an OpenID Connect discovery document. */
let server: Server;
let base = '';
const tokenRequests: Record<string, string>[] = [];
beforeAll(async () => {
  server = createServer((req: IncomingMessage, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => {
      raw += c.toString();
    });
    req.on('end', () => {
      res.setHeader('content-type', 'application/json');
      if (req.url === '/.well-known/openid-configuration') {
        res.end(
          JSON.stringify({
            authorization_endpoint: `${base}/oidc/authorize`,
            token_endpoint: `${base}/oidc/token`,
          }),
        );
        return;
      }
      if (req.url === '/token') {
        const form = Object.fromEntries(new URLSearchParams(raw));
        tokenRequests.push(form);
        if (form.client_id !== 'svc' || form.client_secret !== 'svc-secret') {
          res.statusCode = 401;
          res.end(JSON.stringify({ error: 'invalid_client', error_description: 'unknown client' }));
          return;
        }
        res.end(
          JSON.stringify({
            access_token: `cc-${tokenRequests.length}`,
            token_type: 'Bearer',
            expires_in: 60,
          }),
        );
        return;
      }
      res.statusCode = 404;
      res.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.close();
  vi.restoreAllMocks();
});

async function collect(iterable: AsyncIterable<Event>): Promise<Event[]> {
  const out: Event[] = [];
  for await (const e of iterable) out.push(e);
  return out;
}

function toolUsing(config: () => AuthConfig, seen: (AuthCredential | undefined)[]) {
  return new FunctionTool({
    name: 'call_api',
    description: 'Calls the API',
    parameters: z.object({}),
    execute: async (_args, ctx) => {
      const credential = await ctx.getCredential(config());
      seen.push(credential);
      return credential ? { ok: true } : { pending: true };
    },
  });
}

describe('credentials', () => {
  it('client credentials: a token is fetched without asking the client, stored, and fetched again once expired', async () => {
    const config = (): AuthConfig => ({
      authScheme: {
        type: 'oauth2',
        flows: { clientCredentials: { tokenUrl: `${base}/token`, scopes: { read: 'Read' } } },
      },
      rawAuthCredential: {
        authType: 'oauth2',
        oauth2: {
          clientId: 'svc',
          clientSecret: 'svc-secret',
          tokenEndpointAuthMethod: 'client_secret_post',
        },
      },
    });
    const seen: (AuthCredential | undefined)[] = [];
    const model = new ScriptedModel([
      functionCallResponse('call_api', {}, 'a'),
      'one',
      functionCallResponse('call_api', {}, 'b'),
      'two',
      functionCallResponse('call_api', {}, 'c'),
      'three',
    ]);
    const credentialService = new InMemoryCredentialService();
    const runner = new Runner({
      appName: 'app',
      agent: new LlmAgent({ name: 'agent', model, tools: [toolUsing(config, seen)] }),
      sessionService: new InMemorySessionService(),
      credentialService,
      autoCreateSession: true,
    });
    const run = (text: string) =>
      collect(runner.run({ userId: 'u', sessionId: 's', newMessage: userContent(text) }));
    const before = tokenRequests.length;
    await run('1');
    await run('2');
    expect(tokenRequests.length - before).toBe(1);
    expect(tokenRequests.at(-1)).toMatchObject({ grant_type: 'client_credentials', scope: 'read' });
    expect(seen.map((c) => c?.oauth2?.accessToken)).toEqual([
      seen[0]?.oauth2?.accessToken,
      seen[0]?.oauth2?.accessToken,
    ]);
    const stored = await credentialService.loadCredential({
      appName: 'app',
      userId: 'u',
      key: credentialKeyOf(config()),
    });
    expect(stored?.oauth2?.clientSecret).toBeUndefined();
    const now = Date.now();
    vi.spyOn(Date, 'now').mockImplementation(() => now + 3_600_000);
    await run('3');
    vi.mocked(Date.now).mockRestore();
    expect(tokenRequests.length - before).toBe(2);
    expect(seen[2]?.oauth2?.accessToken).not.toBe(seen[0]?.oauth2?.accessToken);
  });

  it('OpenID Connect: the authorization URL comes from the discovery document; secrets are never in the request', async () => {
    const seen: (AuthCredential | undefined)[] = [];
    const config = (): AuthConfig => ({
      authScheme: {
        type: 'openIdConnect',
        openIdConnectUrl: `${base}/.well-known/openid-configuration`,
        scopes: ['openid', 'email'],
      },
      rawAuthCredential: {
        authType: 'openIdConnect',
        oauth2: { clientId: 'web', clientSecret: 'oidc-secret', redirectUri: 'https://app.example/cb' },
      },
    });
    const runner = new Runner({
      appName: 'app',
      agent: new LlmAgent({
        name: 'agent',
        model: new ScriptedModel([functionCallResponse('call_api', {}, 'x')]),
        tools: [toolUsing(config, seen)],
      }),
      sessionService: new InMemorySessionService(),
      autoCreateSession: true,
    });
    const events = await collect(
      runner.run({ userId: 'u', sessionId: 's', newMessage: userContent('sign in') }),
    );
    const call = events.at(-1)?.content?.parts[0]?.functionCall;
    expect(call?.name).toBe(REQUEST_CREDENTIAL);
    const requested = call?.args.authConfig as AuthConfig;
    const url = new URL(requested.exchangedAuthCredential?.oauth2?.authUri ?? '');
    expect(`${url.origin}${url.pathname}`).toBe(`${base}/oidc/authorize`);
    expect(url.searchParams.get('scope')).toBe('openid email');
    expect(url.searchParams.get('redirect_uri')).toBe('https://app.example/cb');
    expect(JSON.stringify(events)).not.toContain('oidc-secret');
    expect(seen).toEqual([undefined]);
  });

  it('an answer with a state we did not issue fails the call (error response to the model), not the run', async () => {
    const config = (): AuthConfig => ({
      authScheme: {
        type: 'oauth2',
        flows: {
          authorizationCode: { authorizationUrl: `${base}/authorize`, tokenUrl: `${base}/token`, scopes: {} },
        },
      },
      rawAuthCredential: { authType: 'oauth2', oauth2: { clientId: 'web', clientSecret: 's' } },
    });
    const model = new ScriptedModel([functionCallResponse('call_api', {}, 'y'), 'could not sign in']);
    const runner = new Runner({
      appName: 'app',
      agent: new LlmAgent({ name: 'agent', model, tools: [toolUsing(config, [])] }),
      sessionService: new InMemorySessionService(),
      autoCreateSession: true,
    });
    const first = await collect(runner.run({ userId: 'u', sessionId: 's', newMessage: userContent('go') }));
    const call = first.at(-1)?.content?.parts[0]?.functionCall;
    const requested = call?.args.authConfig as AuthConfig;
    const forged: AuthConfig = {
      ...requested,
      exchangedAuthCredential: {
        authType: 'oauth2',
        oauth2: {
          ...requested.exchangedAuthCredential?.oauth2,
          authResponseUri: 'https://app.example/cb?code=c&state=forged',
        },
      },
    };
    const second = await collect(
      runner.run({
        userId: 'u',
        sessionId: 's',
        newMessage: {
          role: 'user',
          parts: [
            { functionResponse: { id: call?.id ?? '', name: REQUEST_CREDENTIAL, response: forged as never } },
          ],
        },
      }),
    );
    const response = second
      .flatMap((e) => e.content?.parts ?? [])
      .find((p) => p.functionResponse?.id === 'y');
    expect(String(response?.functionResponse?.response.error)).toContain('state does not match');
    expect(second.at(-1)?.content?.parts[0]?.text).toBe('could not sign in');
  });

  it('pauses only the call that needs a credential; its sibling answers at once', async () => {
    const config = (): AuthConfig => ({ authScheme: { type: 'http', scheme: 'bearer' } });
    const seen: (AuthCredential | undefined)[] = [];
    const plain = new FunctionTool({
      name: 'plain',
      description: 'x',
      parameters: z.object({}),
      execute: () => ({ v: 1 }),
    });
    const model = new ScriptedModel([
      functionCallsResponse([
        { name: 'plain', id: 'p1' },
        { name: 'call_api', id: 'c1' },
      ]),
      'both done',
    ]);
    const runner = new Runner({
      appName: 'app',
      agent: new LlmAgent({ name: 'agent', model, tools: [plain, toolUsing(config, seen)] }),
      sessionService: new InMemorySessionService(),
      autoCreateSession: true,
    });
    const first = await collect(runner.run({ userId: 'u', sessionId: 's', newMessage: userContent('go') }));
    const responses = first.flatMap((e) => e.content?.parts ?? []).filter((p) => p.functionResponse);
    expect(responses.map((p) => p.functionResponse?.id)).toEqual(['p1']);
    const ask = first.at(-1)?.content?.parts[0]?.functionCall;
    const answer = {
      ...(ask?.args.authConfig as AuthConfig),
      exchangedAuthCredential: {
        authType: 'http',
        http: { scheme: 'bearer', credentials: { token: 'tok-123456' } },
      },
    };
    const second = await collect(
      runner.run({
        userId: 'u',
        sessionId: 's',
        newMessage: {
          role: 'user',
          parts: [{ functionResponse: { id: ask?.id ?? '', name: REQUEST_CREDENTIAL, response: answer } }],
        },
      }),
    );
    expect(seen.at(-1)?.http?.credentials.token).toBe('tok-123456');
    expect(second.at(-1)?.content?.parts[0]?.text).toBe('both done');
    expect(JSON.stringify(second)).not.toContain('tok-123456');
  });

  it('places credentials per scheme and redacts configs', () => {
    expect(
      applyCredential({ type: 'apiKey', in: 'query', name: 'key' }, { authType: 'apiKey', apiKey: 'k1' })
        .query,
    ).toEqual({
      key: 'k1',
    });
    expect(
      applyCredential({ type: 'apiKey', in: 'cookie', name: 'sid' }, { authType: 'apiKey', apiKey: 'k2' })
        .cookies,
    ).toEqual({
      sid: 'k2',
    });
    expect(
      applyCredential(
        { type: 'http', scheme: 'basic' },
        { authType: 'http', http: { scheme: 'basic', credentials: { username: 'ada', password: 'pw' } } },
      ).headers,
    ).toEqual({ authorization: `Basic ${Buffer.from('ada:pw').toString('base64')}` });
    const redacted = redactAuthConfig({
      authScheme: { type: 'apiKey', in: 'header', name: 'X-Key' },
      rawAuthCredential: { authType: 'apiKey', apiKey: 'secret-key' },
    });
    expect(JSON.stringify(redacted)).not.toContain('secret-key');
    expect(redacted.credentialKey).toMatch(/^adk_apiKey_/);
  });
});
