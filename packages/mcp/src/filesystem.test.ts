// An agent with a scripted model reads and writes files through @modelcontextprotocol/server-filesystem
// (stdio, one server process on a temporary folder), driven by the Runner.
import { mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LlmAgent } from '@adk/core';
import { functionCallResponse, ScriptedModel } from '@adk/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { filesystemBin, responsesOf, runnerFor } from './__fixtures__/servers.js';
import { McpToolset } from './index.js';

let dir: string;
let toolset: McpToolset;

beforeAll(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'adk-mcp-fs-')));
  await writeFile(join(dir, 'notes.txt'), 'buy milk\n');
  toolset = new McpToolset({
    name: 'filesystem',
    connection: { type: 'stdio', command: process.execPath, args: [filesystemBin, dir] },
    toolFilter: ['read_text_file', 'write_file', 'list_directory'],
    requireConfirmation: ['write_file'],
  });
});

afterAll(async () => {
  await toolset?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('an agent using server-filesystem', () => {
  it('reads a file, writes another after confirmation, and answers with what it read', async () => {
    const model = new ScriptedModel({
      script: [
        functionCallResponse('list_directory', { path: dir }),
        functionCallResponse('read_text_file', { path: join(dir, 'notes.txt') }),
        functionCallResponse('write_file', { path: join(dir, 'todo.txt'), content: '- buy milk\n' }),
        (request) => {
          const last = request.contents.at(-1)?.parts[0]?.functionResponse?.response;
          return `Saved the list (${JSON.stringify(last)})`;
        },
      ],
    });
    const agent = new LlmAgent({
      name: 'files',
      model,
      instruction: 'You manage the files of the user.',
      tools: [toolset],
    });
    const { runner, run } = runnerFor(agent);

    const first = await run('copy my notes into a todo list');
    const responses = responsesOf(first);
    expect(responses[0]?.response.result).toContain('[FILE] notes.txt');
    expect(responses[1]?.response).toMatchObject({
      result: 'buy milk\n',
      structuredContent: { content: 'buy milk\n' },
    });
    // write_file needs the user's confirmation: nothing is written yet.
    const confirmation = first.at(-1)?.content?.parts[0]?.functionCall;
    expect(confirmation?.name).toBe('adk_request_confirmation');
    await expect(readFile(join(dir, 'todo.txt'), 'utf8')).rejects.toThrow();

    const second = await run({
      role: 'user',
      parts: [
        {
          functionResponse: {
            id: confirmation?.id as string,
            name: 'adk_request_confirmation',
            response: { confirmed: true },
          },
        },
      ],
    });
    expect(await readFile(join(dir, 'todo.txt'), 'utf8')).toBe('- buy milk\n');
    expect(responsesOf(second).find((r) => r.name === 'write_file')?.response.result).toMatch(
      /Successfully wrote/,
    );
    expect(second.at(-1)?.content?.parts[0]?.text).toMatch(/^Saved the list/);
    // The model saw exactly the server's tools that passed the filter, with their schemas.
    const declared = model.requests[0]?.tools ?? [];
    expect(declared.map((t) => t.name).sort()).toEqual(['list_directory', 'read_text_file', 'write_file']);
    expect(declared.find((t) => t.name === 'write_file')?.parameters).toMatchObject({
      properties: { path: { type: 'string' }, content: { type: 'string' } },
    });
    await runner.close();
  });

  it('turns a path outside the allowed folder into an error response for the model', async () => {
    const model = new ScriptedModel({
      script: [functionCallResponse('read_text_file', { path: '/etc/hostname' }), 'I cannot read that.'],
    });
    const { run } = runnerFor(new LlmAgent({ name: 'files', model, tools: [toolset] }));
    const events = await run('read /etc/hostname');
    expect(responsesOf(events)[0]?.response).toEqual({
      error: expect.stringMatching(/outside allowed directories/i),
    });
    expect(events.at(-1)?.content?.parts[0]?.text).toBe('I cannot read that.');
  });
});
