import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';

/** The petstore document used by the tests (YAML, OpenAPI 3.1, a relative server URL). */
export const PETSTORE_YAML = `
openapi: 3.1.0
info:
  title: Petstore
  version: 1.0.0
servers:
  - url: /v1
security: []
paths:
  /pets:
    get:
      operationId: listPets
      summary: List pets
      parameters:
        - name: limit
          in: query
          description: How many pets to return at most
          schema: { type: integer }
        - name: tags
          in: query
          schema: { type: array, items: { type: string } }
        - name: X-Request-Id
          in: header
          schema: { type: string }
      responses:
        '200':
          description: The pets
          content:
            application/json:
              schema: { type: array, items: { $ref: '#/components/schemas/Pet' } }
    post:
      operationId: createPet
      summary: Add a pet
      requestBody:
        required: true
        content:
          application/json:
            schema: { $ref: '#/components/schemas/Pet' }
      responses:
        '201':
          description: Created
          content:
            application/json:
              schema: { $ref: '#/components/schemas/Pet' }
  /pets/{petId}:
    parameters:
      - name: petId
        in: path
        required: true
        schema: { type: integer }
    get:
      operationId: getPet
      summary: One pet
      responses:
        '200':
          description: The pet
          content:
            application/json:
              schema: { $ref: '#/components/schemas/Pet' }
        '404':
          description: Not found
    delete:
      operationId: deletePet
      summary: Remove a pet (needs the store's API key)
      security:
        - storeKey: []
      responses:
        '204':
          description: Deleted
  /search:
    get:
      summary: Search with every parameter style
      parameters:
        - name: filter
          in: query
          style: deepObject
          explode: true
          schema:
            type: object
            properties:
              kind: { type: string }
              maxAge: { type: integer }
        - name: ids
          in: query
          style: pipeDelimited
          explode: false
          schema: { type: array, items: { type: integer } }
        - name: session
          in: cookie
          schema: { type: string }
        - name: coords
          in: header
          schema: { type: array, items: { type: number } }
      responses:
        '200':
          description: What the server received
          content:
            text/plain:
              schema: { type: string }
components:
  schemas:
    Pet:
      type: object
      required: [id, name]
      properties:
        id: { type: integer, readOnly: true }
        name: { type: string }
        tag: { type: [string, 'null'] }
        parent: { $ref: '#/components/schemas/Pet' }
  securitySchemes:
    storeKey:
      type: apiKey
      in: header
      name: X-API-Key
`;

export const STORE_KEY = 'store-key-7f3a9c21b4';

/** A small petstore API implementing the document above, on 127.0.0.1. */
export async function startPetstore(): Promise<{ url: string; close: () => Promise<void>; seen: string[] }> {
  const pets = [
    { id: 1, name: 'Tom', tag: 'cat' },
    { id: 2, name: 'Rex', tag: 'dog' },
    { id: 3, name: 'Nemo', tag: 'fish' },
  ];
  const seen: string[] = [];
  const app = new Hono();
  app.use(async (c, next) => {
    seen.push(`${c.req.method} ${c.req.path}`);
    await next();
  });
  app.get('/openapi.yaml', (c) => c.text(PETSTORE_YAML, 200, { 'content-type': 'application/yaml' }));
  app.get('/v1/pets', (c) => {
    const tags = c.req.queries('tags') ?? [];
    const limit = Number(c.req.query('limit') ?? 100);
    const list = pets.filter((p) => tags.length === 0 || tags.includes(p.tag)).slice(0, limit);
    c.header('x-request-id', c.req.header('x-request-id') ?? '');
    return c.json({ pets: list, requestId: c.req.header('x-request-id') ?? null });
  });
  app.post('/v1/pets', async (c) => {
    const body = (await c.req.json()) as { name?: string; tag?: string };
    if (!body.name) return c.json({ message: 'name is required' }, 400);
    const pet = { id: pets.length + 1, name: body.name, tag: body.tag ?? 'unknown' };
    pets.push(pet);
    return c.json(pet, 201);
  });
  app.get('/v1/pets/:id', (c) => {
    const pet = pets.find((p) => p.id === Number(c.req.param('id')));
    return pet ? c.json(pet) : c.json({ message: `No pet ${c.req.param('id')}` }, 404);
  });
  app.delete('/v1/pets/:id', (c) => {
    if (c.req.header('x-api-key') !== STORE_KEY) return c.json({ message: 'bad or missing API key' }, 401);
    const index = pets.findIndex((p) => p.id === Number(c.req.param('id')));
    if (index < 0) return c.json({ message: 'not found' }, 404);
    pets.splice(index, 1);
    return c.body(null, 204);
  });
  // OAuth2 client credentials: a token endpoint and a resource that needs its bearer token.
  const tokens = new Set<string>();
  app.post('/oauth/token', async (c) => {
    const form = await c.req.parseBody();
    const basic = `Basic ${Buffer.from('pets-client:pets-secret').toString('base64')}`;
    if (c.req.header('authorization') !== basic || form.grant_type !== 'client_credentials')
      return c.json({ error: 'invalid_client' }, 401);
    const token = `pet-token-${tokens.size + 1}`;
    tokens.add(token);
    return c.json({ access_token: token, token_type: 'Bearer', expires_in: 3600, scope: form.scope });
  });
  app.get('/v1/stats', (c) => {
    const token = /^Bearer (.+)$/.exec(c.req.header('authorization') ?? '')?.[1];
    if (!token || !tokens.has(token)) return c.json({ message: 'invalid token' }, 401);
    return c.json({ pets: pets.length });
  });
  app.get('/v1/search', (c) => {
    const url = new URL(c.req.url);
    return c.text(
      `query=${decodeURIComponent(url.search)} cookie=${c.req.header('cookie') ?? ''} coords=${c.req.header('coords') ?? ''}`,
    );
  });
  const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
