import { assertSafeArtifactName, NotFoundError, ValidationError } from '@adk/core';
import type { Context, Hono } from 'hono';
import { readJson, validate } from '../http/body.js';
import { camelContent, camelKeys, requestSchemas } from '../http/schemas.js';
import { type RouteContext, sessionKey } from './context.js';

function artifactName(c: Context): string {
  const name = c.req.param('name') ?? '';
  assertSafeArtifactName(name);
  return name;
}

/** `latest`, or a non-negative integer. */
function parseVersion(value: string | undefined, what: string): number | undefined {
  if (value === undefined || value === '' || value === 'latest') return undefined;
  if (!/^\d{1,9}$/.test(value))
    throw new ValidationError(`Invalid ${what}: ${JSON.stringify(value)} is not a version number`);
  return Number(value);
}

/** Artifacts of a session: names, latest or one version, versions, save, delete. */
export function artifactRoutes(app: Hono, ctx: RouteContext): void {
  const base = '/apps/:app/users/:user/sessions/:session/artifacts';
  const service = () => ctx.stores.artifactService;

  app.get(base, async (c) => c.json(await service().listArtifactKeys(await sessionKey(ctx, c))));

  app.post(base, async (c) => {
    const key = await sessionKey(ctx, c);
    const body = camelKeys(await readJson(c.req.raw, ctx.bodyLimit)) as Record<string, unknown> | undefined;
    if (body && typeof body === 'object' && 'artifact' in body) {
      // A Part in either spelling: reuse the Content normaliser on a one-part content.
      const content = camelContent({ role: 'user', parts: [body.artifact] }) as { parts: unknown[] };
      body.artifact = content.parts[0];
    }
    const req = validate(requestSchemas().saveArtifact, body, 'SaveArtifactRequest');
    assertSafeArtifactName(req.filename);
    const version = await service().saveArtifact({ ...key, filename: req.filename, artifact: req.artifact });
    const mimeType = req.artifact.inlineData?.mimeType ?? req.artifact.fileData?.mimeType;
    return c.json({
      version,
      ...(mimeType ? { mimeType } : {}),
      ...(req.customMetadata ? { customMetadata: req.customMetadata } : {}),
      createTime: Date.now() / 1000,
    });
  });

  app.get(`${base}/:name/versions`, async (c) => {
    const key = await sessionKey(ctx, c);
    return c.json(await service().listVersions({ ...key, filename: artifactName(c) }));
  });

  app.get(`${base}/:name/versions/:version`, async (c) => {
    const key = await sessionKey(ctx, c);
    const filename = artifactName(c);
    const version = parseVersion(c.req.param('version'), 'version ID');
    const part = await service().loadArtifact({
      ...key,
      filename,
      ...(version !== undefined ? { version } : {}),
    });
    if (!part) throw new NotFoundError('Artifact not found');
    return c.json(part);
  });

  app.get(`${base}/:name`, async (c) => {
    const key = await sessionKey(ctx, c);
    const filename = artifactName(c);
    const version = parseVersion(c.req.query('version'), 'version');
    const part = await service().loadArtifact({
      ...key,
      filename,
      ...(version !== undefined ? { version } : {}),
    });
    if (!part) throw new NotFoundError('Artifact not found');
    return c.json(part);
  });

  app.delete(`${base}/:name`, async (c) => {
    const key = await sessionKey(ctx, c);
    await service().deleteArtifact({ ...key, filename: artifactName(c) });
    return c.json(null);
  });
}
