import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  type AuthConfig,
  type Event,
  InMemorySessionService,
  isAdkError,
  LlmAgent,
  REQUEST_CREDENTIAL,
  Runner,
  userContent,
} from '@adk/core';
import { functionCallResponse, functionCallsResponse, ScriptedModel } from '@adk/core/testing';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { PETSTORE_YAML, STORE_KEY, startPetstore } from './__fixtures__/petstore.js';
import { type OpenApiSpecError, OpenApiToolset } from './index.js';

let api: Awaited<ReturnType<typeof startPetstore>>;
beforeAll(async () => {
  api = await startPetstore();
});
afterAll(() => api.close());

async function collect(iterable: AsyncIterable<Event>): Promise<Event[]> {
  const out: Event[] = [];
  for await (const e of iterable) out.push(e);
  return out;
}

function responsesOf(events: Event[]): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {};
  for (const e of events)
    for (const p of e.content?.parts ?? [])
      if (p.functionResponse) out[p.functionResponse.id] = p.functionResponse.response;
  return out;
}

describe('OpenApiToolset', () => {
  it('makes one tool per operation, named like ADK, with JSON Schema of parameters and body', async () => {
    const toolset = await OpenApiToolset.load({ spec: PETSTORE_YAML, baseUrl: `${api.url}/v1` });
    const tools = await toolset.tools();
    expect(tools.map((t) => t.name)).toEqual([
      'list_pets',
      'create_pet',
      'get_pet',
      'delete_pet',
      'get_search',
    ]);
    expect(tools[1]?.declaration()).toMatchInlineSnapshot(`
      {
        "description": "Add a pet",
        "name": "create_pet",
        "parameters": {
          "properties": {
            "body": {
              "properties": {
                "name": {
                  "type": "string",
                },
                "parent": {
                  "description": "A value of the same shape as its parent (recursive).",
                },
                "tag": {
                  "type": [
                    "string",
                    "null",
                  ],
                },
              },
              "required": [
                "name",
              ],
              "type": "object",
            },
          },
          "required": [
            "body",
          ],
          "type": "object",
        },
      }
    `);
    expect(tools[0]?.declaration().parameters).toMatchInlineSnapshot(`
      {
        "properties": {
          "X_Request_Id": {
            "type": "string",
          },
          "limit": {
            "description": "How many pets to return at most",
            "type": "integer",
          },
          "tags": {
            "items": {
              "type": "string",
            },
            "type": "array",
          },
        },
        "type": "object",
      }
    `);
  });

  it('filters operations and prefixes names', async () => {
    const toolset = new OpenApiToolset({
      spec: PETSTORE_YAML,
      baseUrl: `${api.url}/v1`,
      filter: ['listPets', 'get_pet'],
      namePrefix: 'store',
    });
    expect((await toolset.tools()).map((t) => t.name)).toEqual(['store_list_pets', 'store_get_pet']);
    const byPredicate = new OpenApiToolset({
      spec: PETSTORE_YAML,
      baseUrl: `${api.url}/v1`,
      filter: (op) => op.method === 'get',
    });
    expect((await byPredicate.tools()).map((t) => t.name)).toEqual(['list_pets', 'get_pet', 'get_search']);
  });

  it('calls the real API through the Runner: query/header/path/cookie parameters, JSON bodies, errors with status, text responses, and a secured operation via the credential flow', async () => {
    const logs: string[] = [];
    for (const level of ['log', 'info', 'warn', 'error', 'debug'] as const)
      vi.spyOn(console, level).mockImplementation((...args: unknown[]) => {
        logs.push(args.map(String).join(' '));
      });
    // The document is fetched from the API itself; its relative server URL resolves against it.
    const toolset = new OpenApiToolset({ spec: `${api.url}/openapi.yaml` });
    const model = new ScriptedModel({
      script: [
        functionCallsResponse([
          {
            id: 'c-list',
            name: 'list_pets',
            args: { limit: 5, tags: ['cat', 'dog'], X_Request_Id: 'req-42' },
          },
          { id: 'c-create', name: 'create_pet', args: { body: { name: 'Polly', tag: 'bird' } } },
          { id: 'c-missing', name: 'get_pet', args: { petId: 99 } },
          {
            id: 'c-search',
            name: 'get_search',
            args: { filter: { kind: 'cat', maxAge: 3 }, ids: [1, 2, 3], session: 'abc 1', coords: [1.5, 2] },
          },
        ]),
        'Done listing.',
        functionCallResponse('delete_pet', { petId: 1 }, 'c-delete'),
        'Deleted Tom.',
      ],
    });
    const agent = new LlmAgent({ name: 'store', model, tools: [toolset] });
    const sessionService = new InMemorySessionService();
    const runner = new Runner({ appName: 'pets', agent, sessionService, autoCreateSession: true });
    const run = (newMessage: Parameters<Runner['run']>[0]['newMessage']) =>
      collect(runner.run({ userId: 'u', sessionId: 's', newMessage }));

    const first = await run(userContent('Show cats and dogs, add Polly, find pet 99, search'));
    const r = responsesOf(first);
    expect(r['c-list']).toEqual({
      pets: [
        { id: 1, name: 'Tom', tag: 'cat' },
        { id: 2, name: 'Rex', tag: 'dog' },
      ],
      requestId: 'req-42',
    });
    expect(r['c-create']).toEqual({ id: 4, name: 'Polly', tag: 'bird' });
    expect(r['c-missing']).toEqual({
      error: 'HTTP 404: No pet 99',
      status: 404,
      body: { message: 'No pet 99' },
    });
    expect(r['c-search']).toEqual({
      text: 'query=?filter[kind]=cat&filter[maxAge]=3&ids=1|2|3 cookie=session=abc%201 coords=1.5,2',
    });
    expect(first.at(-1)?.content?.parts[0]?.text).toBe('Done listing.');
    // The model saw the tools' declarations.
    expect(model.requests[0]?.tools?.map((t) => t.name)).toContain('delete_pet');

    // The secured operation: no key yet, so the client is asked for one (ADK's shape).
    const second = await run(userContent('Delete Tom'));
    const ask = second.at(-1)?.content?.parts[0]?.functionCall;
    expect(ask?.name).toBe(REQUEST_CREDENTIAL);
    expect(ask?.args.functionCallId).toBe('c-delete');
    const requested = ask?.args.authConfig as AuthConfig;
    expect(requested.authScheme).toEqual({ type: 'apiKey', in: 'header', name: 'X-API-Key' });
    expect(api.seen.filter((s) => s.startsWith('DELETE'))).toEqual([]);

    const answer: AuthConfig = {
      ...requested,
      exchangedAuthCredential: { authType: 'apiKey', apiKey: STORE_KEY },
    };
    const third = await run({
      role: 'user',
      parts: [
        {
          functionResponse: {
            id: ask?.id ?? '',
            name: REQUEST_CREDENTIAL,
            response: answer as unknown as Record<string, unknown>,
          },
        },
      ],
    });
    expect(responsesOf(third)['c-delete']).toEqual({ status: 204 });
    expect(third.at(-1)?.content?.parts[0]?.text).toBe('Deleted Tom.');
    expect(api.seen.filter((s) => s.startsWith('DELETE'))).toEqual(['DELETE /v1/pets/1']);

    // The key never reached the session, the events or the logs.
    const session = await sessionService.getSession({ appName: 'pets', userId: 'u', sessionId: 's' });
    const haystack = JSON.stringify([session, first, second, third, logs]);
    expect(haystack).not.toContain(STORE_KEY);
    vi.restoreAllMocks();
  });

  it('uses a configured API key without asking the client', async () => {
    const toolset = new OpenApiToolset({
      spec: PETSTORE_YAML,
      baseUrl: `${api.url}/v1`,
      filter: ['deletePet'],
      credentials: { storeKey: { authType: 'apiKey', apiKey: STORE_KEY } },
    });
    const model = new ScriptedModel([functionCallResponse('delete_pet', { petId: 2 }, 'c-del'), 'ok']);
    const runner = new Runner({
      appName: 'pets',
      agent: new LlmAgent({ name: 'store', model, tools: [toolset] }),
      sessionService: new InMemorySessionService(),
      autoCreateSession: true,
    });
    const events = await collect(
      runner.run({ userId: 'u', sessionId: 's', newMessage: userContent('delete Rex') }),
    );
    expect(responsesOf(events)['c-del']).toEqual({ status: 204 });
  });
});

describe('path parameters', () => {
  it('refuses "." and ".." so a call cannot walk up to another endpoint with its credentials', async () => {
    const toolset = new OpenApiToolset({
      spec: PETSTORE_YAML,
      baseUrl: `${api.url}/v1`,
      filter: ['deletePet'],
      credentials: { storeKey: { authType: 'apiKey', apiKey: STORE_KEY } },
    });
    const model = new ScriptedModel([
      functionCallsResponse([
        { id: 'c-up', name: 'delete_pet', args: { petId: '..' } },
        { id: 'c-here', name: 'delete_pet', args: { petId: '.' } },
      ]),
      'ok',
    ]);
    const runner = new Runner({
      appName: 'pets',
      agent: new LlmAgent({ name: 'store', model, tools: [toolset] }),
      sessionService: new InMemorySessionService(),
      autoCreateSession: true,
    });
    const before = api.seen.length;
    const events = await collect(
      runner.run({ userId: 'u', sessionId: 's', newMessage: userContent('delete everything') }),
    );
    const r = responsesOf(events);
    expect(r['c-up']?.error).toMatch(/cannot be "\." or "\.\."/);
    expect(r['c-here']?.error).toMatch(/cannot be "\." or "\.\."/);
    expect(api.seen.slice(before)).toEqual([]);
  });
});

describe('a credential the API refuses', () => {
  it('is forgotten, so the next call asks the client again', async () => {
    const toolset = new OpenApiToolset({
      spec: PETSTORE_YAML,
      baseUrl: `${api.url}/v1`,
      filter: ['deletePet'],
    });
    const model = new ScriptedModel([
      functionCallResponse('delete_pet', { petId: 3 }, 'd1'),
      'The key was refused.',
      functionCallResponse('delete_pet', { petId: 3 }, 'd2'),
    ]);
    const runner = new Runner({
      appName: 'pets',
      agent: new LlmAgent({ name: 'store', model, tools: [toolset] }),
      sessionService: new InMemorySessionService(),
      autoCreateSession: true,
    });
    const run = (newMessage: Parameters<Runner['run']>[0]['newMessage']) =>
      collect(runner.run({ userId: 'u', sessionId: 'refused', newMessage }));
    const asked = await run(userContent('delete Nemo'));
    const ask = asked.at(-1)?.content?.parts[0]?.functionCall;
    const answer = {
      ...(ask?.args.authConfig as AuthConfig),
      exchangedAuthCredential: { authType: 'apiKey', apiKey: 'not-the-key' },
    };
    const refused = await run({
      role: 'user',
      parts: [{ functionResponse: { id: ask?.id ?? '', name: REQUEST_CREDENTIAL, response: answer } }],
    });
    expect(responsesOf(refused).d1).toMatchObject({ status: 401, error: 'HTTP 401: bad or missing API key' });
    const again = await run(userContent('try again'));
    const second = again.at(-1)?.content?.parts[0]?.functionCall;
    expect(second?.name).toBe(REQUEST_CREDENTIAL);
    expect(second?.args.functionCallId).toBe('d2');
  });
});

describe('header parameters', () => {
  it('leaves out Accept, Content-Type and Authorization, which the specification says to ignore', async () => {
    const toolset = await OpenApiToolset.load({
      baseUrl: api.url,
      spec: {
        openapi: '3.0.3',
        info: { title: 'headers', version: '1' },
        paths: {
          '/v1/search': {
            get: {
              operationId: 'search',
              parameters: [
                { name: 'Authorization', in: 'header', required: true, schema: { type: 'string' } },
                { name: 'accept', in: 'header', schema: { type: 'string' } },
                { name: 'Content-Type', in: 'header', schema: { type: 'string' } },
                { name: 'X-Trace', in: 'header', schema: { type: 'string' } },
              ],
              responses: { '200': { description: 'ok' } },
            },
          },
        },
      },
    });
    const [tool] = await toolset.tools();
    expect(Object.keys(tool?.declaration().parameters?.properties ?? {})).toEqual(['X_Trace']);
    expect(tool?.declaration().parameters?.required).toBeUndefined();
  });
});

describe('two hosts serving the same document', () => {
  it('do not share a credential when the servers URL is relative', async () => {
    const other = await startPetstore();
    try {
      // Both documents say `servers: [{url: /v1}]`: the calls go to two different hosts.
      const a = new OpenApiToolset({
        spec: `${api.url}/openapi.yaml`,
        filter: ['deletePet'],
        namePrefix: 'a',
      });
      const b = new OpenApiToolset({
        spec: `${other.url}/openapi.yaml`,
        filter: ['deletePet'],
        namePrefix: 'b',
      });
      const model = new ScriptedModel([
        functionCallResponse('a_delete_pet', { petId: 3 }, 'on-a'),
        'Deleted on A.',
        functionCallResponse('b_delete_pet', { petId: 3 }, 'on-b'),
      ]);
      const runner = new Runner({
        appName: 'pets',
        agent: new LlmAgent({ name: 'store', model, tools: [a, b] }),
        sessionService: new InMemorySessionService(),
        autoCreateSession: true,
      });
      const run = (newMessage: Parameters<Runner['run']>[0]['newMessage']) =>
        collect(runner.run({ userId: 'u', sessionId: 'two-hosts', newMessage }));
      const ask = (await run(userContent('delete Nemo on A'))).at(-1)?.content?.parts[0]?.functionCall;
      const answer = {
        ...(ask?.args.authConfig as AuthConfig),
        exchangedAuthCredential: { authType: 'apiKey', apiKey: STORE_KEY },
      };
      const done = await run({
        role: 'user',
        parts: [{ functionResponse: { id: ask?.id ?? '', name: REQUEST_CREDENTIAL, response: answer } }],
      });
      expect(responsesOf(done)['on-a']).toEqual({ status: 204 });
      // A's key is not sent to B: B's client is asked for its own.
      const second = (await run(userContent('delete Nemo on B'))).at(-1)?.content?.parts[0]?.functionCall;
      expect(second?.name).toBe(REQUEST_CREDENTIAL);
      expect(second?.args.functionCallId).toBe('on-b');
      expect(other.seen.filter((s) => s.startsWith('DELETE'))).toEqual([]);
    } finally {
      await other.close();
    }
  });
});

describe('OpenApiToolset with OAuth2', () => {
  it('gets a client-credentials token for a secured operation (scopes from the requirement) and calls with it', async () => {
    const spec = JSON.stringify({
      openapi: '3.0.3',
      info: { title: 'Pet stats', version: '1' },
      servers: [{ url: `${api.url}/v1` }],
      paths: {
        '/stats': {
          get: {
            operationId: 'getStats',
            security: [{ petsOAuth: ['stats:read'] }],
            responses: { '200': { description: 'ok' } },
          },
        },
      },
      components: {
        securitySchemes: {
          petsOAuth: {
            type: 'oauth2',
            flows: {
              clientCredentials: {
                tokenUrl: `${api.url}/oauth/token`,
                scopes: { 'stats:read': 'Read stats' },
              },
            },
          },
        },
      },
    });
    const toolset = new OpenApiToolset({
      spec, // JSON text
      credentials: {
        petsOAuth: { authType: 'oauth2', oauth2: { clientId: 'pets-client', clientSecret: 'pets-secret' } },
      },
    });
    const model = new ScriptedModel([functionCallResponse('get_stats', {}, 'c-stats'), 'ok']);
    const runner = new Runner({
      appName: 'pets',
      agent: new LlmAgent({ name: 'store', model, tools: [toolset] }),
      sessionService: new InMemorySessionService(),
      autoCreateSession: true,
    });
    const events = await collect(
      runner.run({ userId: 'u', sessionId: 's', newMessage: userContent('stats?') }),
    );
    expect(responsesOf(events)['c-stats']).toMatchObject({ pets: expect.any(Number) });
    expect(JSON.stringify(events)).not.toContain('pet-token-');
    expect(JSON.stringify(events)).not.toContain('pets-secret');
  });
});

describe('bad OpenAPI documents', () => {
  async function failure(spec: Parameters<typeof OpenApiToolset.load>[0]['spec']): Promise<OpenApiSpecError> {
    try {
      await OpenApiToolset.load({ spec, baseUrl: 'http://127.0.0.1:9' });
    } catch (error) {
      expect(isAdkError(error, 'OPENAPI_SPEC')).toBe(true);
      return error as OpenApiSpecError;
    }
    throw new Error('expected the document to be rejected');
  }

  it('names the path of an invalid operation', async () => {
    const error = await failure({
      openapi: '3.0.3',
      info: { title: 'x', version: '1' },
      paths: { '/pets': { get: { summary: 'no responses' } } },
    });
    expect(error.path).toBe('#/paths/~1pets/get');
    expect(error.message).toContain('paths["/pets"].get');
    expect(error.message).toContain("must have required property 'responses'");
  });

  it('names a $ref that points nowhere', async () => {
    const error = await failure(`
openapi: 3.1.0
info: { title: x, version: '1' }
paths:
  /a:
    get:
      responses:
        '200': { $ref: '#/components/responses/Missing' }
`);
    expect(error.message).toContain('#/components/responses/Missing');
    expect(error.path).toBe('#/components/responses/Missing');
  });

  it('reports YAML syntax errors with their line, and non-3.x documents', async () => {
    const yaml = await failure('openapi: 3.0.0\ninfo:\n  title: [unclosed\n');
    expect(yaml.message).toMatch(/not valid YAML at line \d+, column \d+/);
    const swagger = await failure({ swagger: '2.0', info: { title: 'x', version: '1' }, paths: {} });
    expect(swagger.message).toBe(
      'Only OpenAPI 3.0 and 3.1 documents are supported (openapi: found Swagger 2.0)',
    );
    expect(swagger.path).toBe('#/openapi');
    const json = await failure('{"openapi": "3.0.0",');
    expect(json.message).toContain('not valid JSON');
  });

  it('does not let a document fetched from a URL read local files through file: refs', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'adk-openapi-'));
    const secretFile = join(dir, 'secret.yaml');
    await writeFile(secretFile, 'secret: local-file-content\n');
    const document = {
      openapi: '3.1.0',
      info: { title: 'x', version: '1' },
      paths: {
        '/a': {
          post: {
            requestBody: {
              content: { 'application/json': { schema: { $ref: pathToFileURL(secretFile).href } } },
            },
            responses: { '200': { description: 'ok' } },
          },
        },
      },
    };
    const server = createServer((_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(document));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    const { port } = server.address() as AddressInfo;
    try {
      const error = await failure(`http://127.0.0.1:${port}/openapi.json`);
      expect(error.message).toContain('Unable to resolve $ref pointer');
      expect(error.message).not.toContain('local-file-content');
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('fails the agent turn with a clear error event when the document is bad', async () => {
    const toolset = new OpenApiToolset({
      spec: { openapi: '3.0.0', info: { title: 'x', version: '1' }, paths: { '/x': { get: {} } } },
    });
    const runner = new Runner({
      appName: 'a',
      agent: new LlmAgent({ name: 'agent', model: new ScriptedModel(['unused']), tools: [toolset] }),
      sessionService: new InMemorySessionService(),
      autoCreateSession: true,
    });
    const events = await collect(runner.run({ userId: 'u', sessionId: 's', newMessage: userContent('hi') }));
    expect(events.at(-1)?.errorCode).toBe('OPENAPI_SPEC');
    expect(events.at(-1)?.errorMessage).toContain('paths["/x"].get');
  });
});
