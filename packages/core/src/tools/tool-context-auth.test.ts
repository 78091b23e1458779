import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type AuthConfig,
  type AuthCredential,
  type Event,
  FunctionTool,
  InMemoryCredentialService,
  InMemorySessionService,
  LlmAgent,
  REQUEST_CREDENTIAL,
  Runner,
  type ToolContext,
  userContent,
} from '../index.js';
import { functionCallResponse, ScriptedModel } from '../testing/index.js';

// ToolContext.getAuthResponse exchanges the client's answer for the auth config it is given:
// a tool that needs two credentials must not get the first one's credential for the second.

const calendar: AuthConfig = { authScheme: { type: 'http', scheme: 'bearer' }, credentialKey: 'calendar' };
const mail: AuthConfig = { authScheme: { type: 'http', scheme: 'bearer' }, credentialKey: 'mail' };
const TOKEN: AuthCredential = { authType: 'http', http: { scheme: 'bearer', credentials: { token: 'tok' } } };

/**
 * Runs a tool that requests the calendar credential, then answers the request as a client would
 * (`keepKey: false` drops the credential key from the answer, as a client may); `afterAnswer` runs
 * in the tool when the run resumes. Returns the credential service.
 */
async function answeredCall(
  afterAnswer: (ctx: ToolContext) => Promise<void>,
  keepKey: boolean,
): Promise<InMemoryCredentialService> {
  let resumed = false;
  const tool = new FunctionTool({
    name: 'sync',
    description: 'Needs a calendar token and a mail token',
    parameters: z.object({}),
    execute: async (_args, ctx) => {
      if (!resumed) {
        resumed = true;
        await ctx.requestCredential(calendar);
        return { status: 'waiting' };
      }
      await afterAnswer(ctx);
      return { status: 'ok' };
    },
  });
  const model = new ScriptedModel({ script: [functionCallResponse('sync', {}, 'call-1'), 'Synced'] });
  const credentialService = new InMemoryCredentialService();
  const runner = new Runner({
    appName: 'app',
    agent: new LlmAgent({ name: 'assistant', model, tools: [tool] }),
    sessionService: new InMemorySessionService(),
    credentialService,
    autoCreateSession: true,
  });
  const run = async (message: Parameters<Runner['run']>[0]['newMessage']) => {
    const out: Event[] = [];
    for await (const e of runner.run({ userId: 'u', sessionId: 's', newMessage: message })) out.push(e);
    return out;
  };
  const first = await run(userContent('sync please'));
  const call = first.at(-1)?.content?.parts[0]?.functionCall;
  if (call?.name !== REQUEST_CREDENTIAL) throw new Error('the run did not request a credential');
  const { credentialKey, ...requested } = call.args.authConfig as AuthConfig;
  expect(credentialKey).toBe('calendar');
  const answer: AuthConfig = {
    ...requested,
    ...(keepKey ? { credentialKey } : {}),
    exchangedAuthCredential: TOKEN,
  };
  const second = await run({
    role: 'user',
    parts: [
      {
        functionResponse: {
          id: call.id ?? '',
          name: REQUEST_CREDENTIAL,
          response: answer as unknown as Record<string, unknown>,
        },
      },
    ],
  });
  const response = second
    .flatMap((e) => e.content?.parts ?? [])
    .find((p) => p.functionResponse?.id === 'call-1');
  expect(response?.functionResponse?.response).toEqual({ status: 'ok' });
  return credentialService;
}

const load = (service: InMemoryCredentialService, key: string) =>
  service.loadCredential({ appName: 'app', userId: 'u', key });

describe('ToolContext.getAuthResponse through the Runner', () => {
  it('gives the answer only to the auth config it was for (by credential key)', async () => {
    const seen: (AuthCredential | undefined)[] = [];
    const service = await answeredCall(async (ctx) => {
      // The mail config is asked first on purpose: the answer is for calendar.
      seen.push(await ctx.getAuthResponse(mail), await ctx.getAuthResponse(calendar));
    }, true);
    expect(seen.map((c) => c?.http?.credentials.token)).toEqual([undefined, 'tok']);
    expect((await load(service, 'calendar'))?.http?.credentials.token).toBe('tok');
    expect(await load(service, 'mail')).toBeUndefined();
  });

  it('exchanges an answer once per auth config, not once per call whatever config comes next', async () => {
    const seen: (AuthCredential | undefined)[] = [];
    const service = await answeredCall(async (ctx) => {
      const first = await ctx.getAuthResponse(calendar);
      seen.push(first, await ctx.getAuthResponse(calendar), await ctx.getAuthResponse(mail));
      expect(await ctx.getAuthResponse(calendar)).toBe(first);
    }, false);
    expect(seen.map((c) => c?.http?.credentials.token)).toEqual(['tok', 'tok', 'tok']);
    // An answer without a key answers both configs: each one's exchange stored under its own key.
    expect((await load(service, 'calendar'))?.http?.credentials.token).toBe('tok');
    expect((await load(service, 'mail'))?.http?.credentials.token).toBe('tok');
  });
});
