import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { trace } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import {
  type AuthConfig,
  applyCredential,
  type Event,
  FunctionTool,
  InMemoryCredentialService,
  InMemorySessionService,
  LlmAgent,
  type Plugin,
  REQUEST_CREDENTIAL,
  Runner,
  userContent,
} from '../index.js';
import { functionCallResponse, ScriptedModel } from '../testing/index.js';

const CLIENT_ID = 'adk-test-client';
const CLIENT_SECRET = `client-secret-${randomBytes(6).toString('hex')}`;
const REDIRECT_URI = 'https://client.example/callback';

/** A small OAuth2 authorization server + protected API (authorization code with PKCE, refresh). */
class AuthServer {
  server!: Server;
  base = '';
  codes = new Map<string, { challenge: string; redirectUri: string }>();
  tokens = new Map<string, { expiresAt: number }>();
  refreshTokens = new Set<string>();
  issued: string[] = [];
  tokenRequests: Record<string, string>[] = [];

  async start() {
    this.server = createServer((req, res) => {
      this.handle(req).then(
        ({ status, body }) => {
          res.writeHead(status, { 'content-type': 'application/json' });
          res.end(JSON.stringify(body));
        },
        (error: unknown) => {
          res.writeHead(500);
          res.end(String(error));
        },
      );
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** The user signs in at the authorization URL; returns the URL the browser is sent back to. */
  signIn(authUri: string): string {
    const url = new URL(authUri);
    expect(url.origin + url.pathname).toBe(`${this.base}/authorize`);
    expect(url.searchParams.get('client_id')).toBe(CLIENT_ID);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    const code = `code-${randomBytes(8).toString('hex')}`;
    this.issued.push(code);
    this.codes.set(code, {
      challenge: url.searchParams.get('code_challenge') ?? '',
      redirectUri: url.searchParams.get('redirect_uri') ?? '',
    });
    return `${REDIRECT_URI}?code=${code}&state=${url.searchParams.get('state')}`;
  }

  private newToken(expiresIn: number) {
    const access = `at-${randomBytes(8).toString('hex')}`;
    const refresh = `rt-${randomBytes(8).toString('hex')}`;
    this.tokens.set(access, { expiresAt: Date.now() + expiresIn * 1000 });
    this.refreshTokens.add(refresh);
    this.issued.push(access, refresh);
    return { access_token: access, token_type: 'Bearer', expires_in: expiresIn, refresh_token: refresh };
  }

  private async handle(req: IncomingMessage): Promise<{ status: number; body: unknown }> {
    const url = new URL(req.url ?? '/', this.base);
    if (url.pathname === '/token' && req.method === 'POST') {
      let raw = '';
      for await (const chunk of req) raw += chunk;
      const form = Object.fromEntries(new URLSearchParams(raw));
      this.tokenRequests.push(form);
      const basic = Buffer.from(`${CLIENT_ID}:${CLIENT_SECRET}`).toString('base64');
      if (req.headers.authorization !== `Basic ${basic}`)
        return { status: 401, body: { error: 'invalid_client' } };
      if (form.grant_type === 'authorization_code') {
        const code = this.codes.get(form.code ?? '');
        this.codes.delete(form.code ?? '');
        const challenge = createHash('sha256')
          .update(form.code_verifier ?? '')
          .digest('base64url');
        if (!code || code.challenge !== challenge || code.redirectUri !== form.redirect_uri)
          return { status: 400, body: { error: 'invalid_grant' } };
        return { status: 200, body: this.newToken(3600) };
      }
      if (form.grant_type === 'refresh_token') {
        if (!this.refreshTokens.delete(form.refresh_token ?? ''))
          return { status: 400, body: { error: 'invalid_grant' } };
        return { status: 200, body: this.newToken(3600) };
      }
      return { status: 400, body: { error: 'unsupported_grant_type' } };
    }
    if (url.pathname === '/me') {
      const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
      const known = this.tokens.get(token);
      if (!known || known.expiresAt <= Date.now()) return { status: 401, body: { error: 'invalid_token' } };
      return { status: 200, body: { name: 'Ada' } };
    }
    return { status: 404, body: {} };
  }
}

describe('OAuth2 authorization code flow through the Runner', () => {
  const auth = new AuthServer();
  const exporter = new InMemorySpanExporter();
  beforeAll(async () => {
    await auth.start();
    trace.setGlobalTracerProvider(
      new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
    );
  });
  afterAll(() => {
    auth.server.close();
    trace.disable();
    vi.restoreAllMocks();
  });

  it('requests, exchanges the callback URL, calls with the token, and refreshes it after expiry — no secret in events, logs or spans', async () => {
    const logs: string[] = [];
    for (const level of ['log', 'info', 'warn', 'error', 'debug'] as const) {
      vi.spyOn(console, level).mockImplementation((...args: unknown[]) => {
        logs.push(args.map(String).join(' '));
      });
    }
    const authConfig = (): AuthConfig => ({
      authScheme: {
        type: 'oauth2',
        flows: {
          authorizationCode: {
            authorizationUrl: `${auth.base}/authorize`,
            tokenUrl: `${auth.base}/token`,
            scopes: { profile: 'read your profile' },
          },
        },
      },
      rawAuthCredential: {
        authType: 'oauth2',
        oauth2: { clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, redirectUri: REDIRECT_URI },
      },
    });
    const seenTokens: string[] = [];
    const profile = new FunctionTool({
      name: 'get_profile',
      description: 'The signed-in user profile',
      parameters: z.object({}),
      execute: async (_args, ctx) => {
        const config = authConfig();
        const credential = await ctx.getCredential(config);
        if (!credential) return { status: 'waiting for the user to sign in' };
        const { headers } = applyCredential(config.authScheme, credential);
        seenTokens.push(credential.oauth2?.accessToken ?? '');
        const response = await fetch(`${auth.base}/me`, { headers });
        return { status: response.status, profile: await response.json() };
      },
    });
    const model = new ScriptedModel({
      script: [
        functionCallResponse('get_profile', {}, 'call-1'),
        'Hello Ada',
        functionCallResponse('get_profile', {}, 'call-2'),
        'Still Ada',
      ],
    });
    const agent = new LlmAgent({ name: 'assistant', model, tools: [profile] });
    const sessionService = new InMemorySessionService();
    const credentialService = new InMemoryCredentialService();
    // A logging plugin sees every user message and event: none may carry a secret.
    const plugin: Plugin = {
      name: 'recorder',
      onUserMessage: ({ context, message }) => {
        logs.push(JSON.stringify([message, context.userContent]));
        return undefined;
      },
      onEvent: ({ event }) => {
        logs.push(JSON.stringify(event));
        return undefined;
      },
    };
    const runner = new Runner({
      appName: 'app',
      agent,
      sessionService,
      credentialService,
      autoCreateSession: true,
      plugins: [plugin],
    });
    const run = async (message: Parameters<Runner['run']>[0]['newMessage']) => {
      const out: Event[] = [];
      for await (const e of runner.run({ userId: 'u', sessionId: 's', newMessage: message })) out.push(e);
      return out;
    };

    // 1. The tool has no credential: the run pauses with an adk_request_credential call.
    const first = await run(userContent('who am I?'));
    const request = first.at(-1);
    const call = request?.content?.parts[0]?.functionCall;
    expect(call?.name).toBe(REQUEST_CREDENTIAL);
    expect(request?.longRunningToolIds).toEqual([call?.id]);
    expect(call?.args.functionCallId).toBe('call-1');
    const requested = call?.args.authConfig as AuthConfig;
    const authUri = requested.exchangedAuthCredential?.oauth2?.authUri ?? '';
    expect(authUri).toContain('code_challenge=');
    expect(requested.rawAuthCredential?.oauth2?.clientSecret).toBeUndefined();
    expect(first.some((e) => e.content?.parts.some((p) => p.functionResponse?.id === 'call-1'))).toBe(false);

    // 2. The client signs the user in and answers with the callback URL (ADK's shape).
    const callback = auth.signIn(authUri);
    const answer: AuthConfig = {
      ...requested,
      exchangedAuthCredential: {
        authType: 'oauth2',
        oauth2: {
          ...requested.exchangedAuthCredential?.oauth2,
          authResponseUri: callback,
          redirectUri: REDIRECT_URI,
        },
      },
    };
    const second = await run({
      role: 'user',
      parts: [
        {
          functionResponse: {
            id: call?.id ?? '',
            name: REQUEST_CREDENTIAL,
            response: answer as unknown as Record<string, unknown>,
          },
        },
      ],
    });
    // 3. The code was exchanged (with the PKCE verifier) and the tool called the API with the token.
    expect(auth.tokenRequests.at(-1)?.grant_type).toBe('authorization_code');
    const toolResponse = second
      .flatMap((e) => e.content?.parts ?? [])
      .find((p) => p.functionResponse?.id === 'call-1');
    expect(toolResponse?.functionResponse?.response).toEqual({ status: 200, profile: { name: 'Ada' } });
    expect(second.at(-1)?.content?.parts[0]?.text).toBe('Hello Ada');

    // 4. Two hours later the access token has expired: the stored refresh token gets a new one.
    const now = Date.now();
    vi.spyOn(Date, 'now').mockImplementation(() => now + 2 * 3600_000);
    const third = await run(userContent('and now?'));
    expect(auth.tokenRequests.at(-1)?.grant_type).toBe('refresh_token');
    const refreshed = third
      .flatMap((e) => e.content?.parts ?? [])
      .find((p) => p.functionResponse?.id === 'call-2');
    expect(refreshed?.functionResponse?.response).toEqual({ status: 200, profile: { name: 'Ada' } });
    expect(seenTokens).toHaveLength(2);
    expect(seenTokens[0]).not.toBe(seenTokens[1]);
    // The refreshed token was stored back.
    const stored = await credentialService.loadCredential({
      appName: 'app',
      userId: 'u',
      key: requested.credentialKey ?? '',
    });
    expect(stored?.oauth2?.accessToken).toBe(seenTokens[1]);

    // 5. No secret anywhere: not in the stored session, the yielded events, logs or spans.
    const session = await sessionService.getSession({ appName: 'app', userId: 'u', sessionId: 's' });
    const spans = exporter
      .getFinishedSpans()
      .map((s) => ({ name: s.name, attributes: s.attributes, events: s.events }));
    expect(spans.length).toBeGreaterThan(0);
    const haystack = JSON.stringify([session, first, second, third, logs, spans]);
    const secrets = [CLIENT_SECRET, ...auth.issued];
    for (const secret of secrets) expect(haystack, `secret ${secret} leaked`).not.toContain(secret);
  });
});
