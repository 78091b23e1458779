import { type ArtifactVersion, assertSafeArtifactName, NotFoundError, ValidationError } from '@adk/core';
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

/** ADK's ArtifactVersion on the wire: times in float seconds, and a URI naming the version. */
function versionJson(
  key: { appName: string; userId: string; sessionId: string },
  filename: string,
  v: ArtifactVersion,
): Record<string, unknown> {
  const path = [key.appName, key.userId, key.sessionId, filename].map(encodeURIComponent);
  return {
    version: v.version,
    canonicalUri: `adk-artifact://apps/${path[0]}/users/${path[1]}/sessions/${path[2]}/artifacts/${path[3]}/versions/${v.version}`,
    ...(v.mimeType ? { mimeType: v.mimeType } : {}),
    customMetadata: v.customMetadata ?? {},
    createTime: v.createTime / 1000,
    ...(v.sizeBytes !== undefined ? { sizeBytes: v.sizeBytes } : {}),
  };
}

/** Artifacts of a session: names, latest or one version, versions and their metadata, save, delete. */
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
    const filename = req.filename;
    const version = await service().saveArtifact({
      ...key,
      filename,
      artifact: req.artifact,
      ...(req.customMetadata
        ? { customMetadata: req.customMetadata as ArtifactVersion['customMetadata'] }
        : {}),
    });
    const stored = await service().getArtifactVersion?.({ ...key, filename, version });
    const mimeType = req.artifact.inlineData?.mimeType ?? req.artifact.fileData?.mimeType;
    return c.json(
      versionJson(
        key,
        filename,
        stored ?? {
          version,
          ...(mimeType ? { mimeType } : req.artifact.text !== undefined ? { mimeType: 'text/plain' } : {}),
          ...(req.customMetadata
            ? { customMetadata: req.customMetadata as ArtifactVersion['customMetadata'] }
            : {}),
          createTime: Date.now(),
        },
      ),
    );
  });

  // Metadata routes first: `metadata` is not a version number.
  app.get(`${base}/:name/versions/metadata`, async (c) => {
    const key = await sessionKey(ctx, c);
    const filename = artifactName(c);
    const list = service().listArtifactVersions
      ? await service().listArtifactVersions?.({ ...key, filename })
      : undefined;
    if (list) return c.json(list.map((v) => versionJson(key, filename, v)));
    // A store without metadata: the version numbers are all there is.
    const versions = await service().listVersions({ ...key, filename });
    return c.json(versions.map((version) => ({ version, customMetadata: {} })));
  });

  app.get(`${base}/:name/versions/:version/metadata`, async (c) => {
    const key = await sessionKey(ctx, c);
    const filename = artifactName(c);
    const version = parseVersion(c.req.param('version'), 'version ID');
    const found = await service().getArtifactVersion?.({
      ...key,
      filename,
      ...(version !== undefined ? { version } : {}),
    });
    if (!found) throw new NotFoundError('Artifact version not found');
    return c.json(versionJson(key, filename, found));
  });

  app.get(`${base}/:name/versions`, async (c) => {
    const key = await sessionKey(ctx, c);
    return c.json(await service().listVersions({ ...key, filename: artifactName(c) }));
  });

  /** The artifact's latest version, or the one the path or the query names. */
  const loadPart = async (c: Context, version: number | undefined) => {
    const key = await sessionKey(ctx, c);
    const part = await service().loadArtifact({
      ...key,
      filename: artifactName(c),
      ...(version !== undefined ? { version } : {}),
    });
    if (!part) throw new NotFoundError('Artifact not found');
    return c.json(part);
  };

  app.get(`${base}/:name/versions/:version`, (c) =>
    loadPart(c, parseVersion(c.req.param('version'), 'version ID')),
  );

  app.get(`${base}/:name`, (c) => loadPart(c, parseVersion(c.req.query('version'), 'version')));

  // Every version, or one with `?version=`.
  app.delete(`${base}/:name`, async (c) => {
    const key = await sessionKey(ctx, c);
    const version = parseVersion(c.req.query('version'), 'version');
    await service().deleteArtifact({
      ...key,
      filename: artifactName(c),
      ...(version !== undefined ? { version } : {}),
    });
    return c.json(null);
  });
}
