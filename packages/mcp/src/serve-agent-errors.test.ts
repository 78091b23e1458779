// serveAgentAsMcp over HTTP when its HTTP server reports an error after it started listening. Node
// cannot be made to fail an accept on demand, so node:http's createServer is wrapped to reach the
// server and emit the error the way Node would.
import type { Server as HttpServer } from 'node:http';
import { LlmAgent } from '@adk/core';
import { ScriptedModel } from '@adk/core/testing';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it, vi } from 'vitest';
import { serveAgentAsMcp } from './index.js';

const created = vi.hoisted(() => [] as HttpServer[]);
vi.mock('node:http', async (importOriginal) => {
  const http = await importOriginal<typeof import('node:http')>();
  const createServer = ((...args: Parameters<typeof http.createServer>) => {
    const server = http.createServer(...args);
    created.push(server);
    return server;
  }) as typeof http.createServer;
  return { ...http, default: { ...http, createServer }, createServer };
});

const agent = new LlmAgent({ name: 'steady', model: new ScriptedModel({ respond: () => 'still here' }) });

describe('serveAgentAsMcp over HTTP, on an error of its HTTP server', () => {
  it('hands the error to onError and keeps serving', async () => {
    const errors: unknown[] = [];
    const served = await serveAgentAsMcp(agent, {
      transport: { type: 'http' },
      onError: (error) => errors.push(error),
    });
    try {
      const http = created.at(-1) as HttpServer;
      const failure = Object.assign(new Error('accept EMFILE'), { code: 'EMFILE', syscall: 'accept' });
      expect(() => http.emit('error', failure)).not.toThrow();
      expect(errors).toEqual([failure]);
      const client = new Client({ name: 'after', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(served.url as string)));
      const result = await client.callTool({ name: 'steady', arguments: { message: 'hi' } });
      expect(result.content).toEqual([{ type: 'text', text: 'still here' }]);
      await client.close();
    } finally {
      await served.close();
    }
  });

  it('writes the error to stderr by default', async () => {
    const stderr = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const served = await serveAgentAsMcp(agent, { transport: { type: 'http' } });
    try {
      const http = created.at(-1) as HttpServer;
      expect(() => http.emit('error', new Error('accept EMFILE'))).not.toThrow();
      expect(stderr).toHaveBeenCalledWith(expect.stringMatching(/\[adk-mcp\].*"steady".*accept EMFILE/));
    } finally {
      stderr.mockRestore();
      await served.close();
    }
  });
});
