import { type Content, type Event, FunctionTool, LlmAgent, REQUEST_CONFIRMATION } from '@adk/core';
import { functionCallResponse, functionCallsResponse, ScriptedModel } from '@adk/core/testing';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { harness, responsesIn, texts } from './__fixtures__/harness.js';
import { rulesPolicy, type ToolPolicy, ToolPolicyPlugin } from './tool-policy.js';

function tools() {
  const ran: string[] = [];
  const read = new FunctionTool({
    name: 'read_file',
    description: '',
    parameters: z.object({ path: z.string() }),
    execute: ({ path }) => {
      ran.push(`read ${path}`);
      return { content: `contents of ${path}` };
    },
  });
  const remove = new FunctionTool({
    name: 'delete_file',
    description: '',
    parameters: z.object({ path: z.string() }),
    execute: ({ path }) => {
      ran.push(`delete ${path}`);
      return { deleted: path };
    },
  });
  return { ran, list: [read, remove] };
}

const policy = rulesPolicy([
  {
    tool: 'read_file',
    when: (args) => String(args.path).startsWith('/etc/'),
    action: 'deny',
    reason: 'system files are off limits',
  },
  { tool: 'delete_file', action: 'confirm', hint: 'Delete this file?' },
]);

function confirmationAnswer(events: Event[], confirmed: boolean): Content {
  const request = events
    .flatMap((e) => e.content?.parts ?? [])
    .find((p) => p.functionCall?.name === REQUEST_CONFIRMATION);
  return {
    role: 'user',
    parts: [
      {
        functionResponse: {
          id: request?.functionCall?.id as string,
          name: REQUEST_CONFIRMATION,
          response: { confirmed },
        },
      },
    ],
  };
}

describe('ToolPolicyPlugin', () => {
  it('denies by tool and arguments; the denial reaches the model as an error response', async () => {
    const { ran, list } = tools();
    const model = new ScriptedModel([
      functionCallsResponse([
        { name: 'read_file', args: { path: '/etc/passwd' } },
        { name: 'read_file', args: { path: '/home/notes.txt' } },
      ]),
      'Here are your notes.',
    ]);
    const h = harness(new LlmAgent({ name: 'a', model, tools: list }), [new ToolPolicyPlugin({ policy })]);
    const events = await h.send('read my files');
    expect(responsesIn(model.requests[1]?.contents.at(-1))).toEqual([
      { error: 'Denied by policy: system files are off limits' },
      { content: 'contents of /home/notes.txt' },
    ]);
    expect(ran).toEqual(['read /home/notes.txt']);
    expect(texts(events).at(-1)).toBe('Here are your notes.');
  });

  it('asks for confirmation, pauses, and runs the call once the user confirms', async () => {
    const { ran, list } = tools();
    const model = new ScriptedModel([functionCallResponse('delete_file', { path: '/tmp/x' }), 'Deleted.']);
    const h = harness(new LlmAgent({ name: 'a', model, tools: list }), [new ToolPolicyPlugin(policy)]);

    const first = await h.send('delete /tmp/x');
    expect(ran).toEqual([]);
    const ask = first.at(-1);
    const askCall = ask?.content?.parts[0]?.functionCall;
    expect(askCall?.name).toBe(REQUEST_CONFIRMATION);
    expect(askCall?.args).toMatchObject({
      originalFunctionCall: { name: 'delete_file', args: { path: '/tmp/x' } },
      toolConfirmation: { hint: 'Delete this file?', confirmed: false },
    });
    expect(ask?.longRunningToolIds).toEqual([askCall?.id]);
    // No placeholder response was committed for the paused call.
    const stored = (await h.session())?.events ?? [];
    expect(stored.flatMap((e) => responsesIn(e.content))).toEqual([]);

    const second = await h.send(confirmationAnswer(first, true));
    expect(ran).toEqual(['delete /tmp/x']);
    expect(texts(second).at(-1)).toBe('Deleted.');
    // The model sees its call answered exactly once, with the real result.
    const history = model.requests[1]?.contents ?? [];
    const responses = history.flatMap((c) => responsesIn(c));
    expect(responses).toEqual([{ deleted: '/tmp/x' }]);
  });

  it('a rejected confirmation never runs the tool and tells the model', async () => {
    const { ran, list } = tools();
    const model = new ScriptedModel([functionCallResponse('delete_file', { path: '/tmp/x' }), 'Kept it.']);
    const h = harness(new LlmAgent({ name: 'a', model, tools: list }), [new ToolPolicyPlugin(policy)]);
    const first = await h.send('delete /tmp/x');
    await h.send(confirmationAnswer(first, false));
    expect(ran).toEqual([]);
    expect(responsesIn(model.requests[1]?.contents.at(-1))).toEqual([
      { error: 'The user rejected this call of "delete_file".' },
    ]);
  });

  it('accepts any policy implementation, async and context-aware', async () => {
    const { ran, list } = tools();
    const custom: ToolPolicy = {
      evaluate: async ({ tool, context }) =>
        context.userId === 'admin' || tool !== 'delete_file'
          ? { action: 'allow' }
          : { action: 'deny', reason: 'only admins delete files' },
    };
    const model = new ScriptedModel({
      respond: (request) =>
        request.contents.at(-1)?.parts[0]?.functionResponse
          ? 'done'
          : functionCallResponse('delete_file', { path: '/a' }),
    });
    const h = harness(new LlmAgent({ name: 'a', model, tools: list }), [
      new ToolPolicyPlugin({ policy: custom }),
    ]);
    await h.send('delete', { userId: 'guest' });
    await h.send('delete', { userId: 'admin' });
    expect(ran).toEqual(['delete /a']);
    expect(responsesIn(model.requests[1]?.contents.at(-1))).toEqual([
      { error: 'Denied by policy: only admins delete files' },
    ]);
  });

  it('rulesPolicy: first matching rule wins; default action applies otherwise', async () => {
    const strict = rulesPolicy([{ tool: /^read_/, action: 'allow' }], { defaultAction: 'deny' });
    const { ran, list } = tools();
    const model = new ScriptedModel([
      functionCallsResponse([
        { name: 'read_file', args: { path: '/a' } },
        { name: 'delete_file', args: { path: '/a' } },
      ]),
      'ok',
    ]);
    await harness(new LlmAgent({ name: 'a', model, tools: list }), [new ToolPolicyPlugin(strict)]).send('go');
    expect(ran).toEqual(['read /a']);
    expect(responsesIn(model.requests[1]?.contents.at(-1))).toEqual([
      { content: 'contents of /a' },
      { error: 'Denied by policy: calling "delete_file" is not allowed' },
    ]);
  });
});
