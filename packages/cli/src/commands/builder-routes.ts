import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { AdkError, type AdkErrorOptions, describeError, isAdkError } from '@adk/core';
import { type AppLoader, draftAppName } from '../loader/app-loader.js';

type ServerRoute = NonNullable<import('@adk/server').AdkServerOptions['routes']>[number];
type ServerApp = Parameters<ServerRoute>[0];

const APP_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/;
const YAML_FILE = /\.ya?ml$/i;
const TMP = 'tmp';

/**
 * A bad request to the builder (malformed body, bad name or path, a file the config check refuses):
 * answered with 400 and `{ detail, code }`, the detail as ADK's builder words it.
 */
export class BuilderRequestError extends AdkError {
  constructor(message: string, options?: AdkErrorOptions) {
    super('BUILDER_REQUEST', message, options);
  }
}

function inside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !rel.startsWith(sep));
}

/** A relative file path from a request: `/` separated, no `..`, not absolute, a YAML file. */
function relativeYamlPath(raw: string): string {
  const path = raw.replace(/\\/g, '/').replace(/^\/+/, '');
  if (path === '' || path.split('/').some((part) => part === '..' || part === '')) {
    throw new BuilderRequestError(`Invalid file path: ${JSON.stringify(raw)}`);
  }
  if (!YAML_FILE.test(path))
    throw new BuilderRequestError(`Only .yaml and .yml files are accepted, got ${JSON.stringify(raw)}`);
  return path;
}

/** Copies an app folder's files (without its tmp folder) into `to`. */
function copyApp(from: string, to: string): void {
  mkdirSync(to, { recursive: true });
  for (const entry of readdirSync(from)) {
    if (entry === TMP) continue;
    cpSync(join(from, entry), join(to, entry), { recursive: true, force: true });
  }
}

/**
 * ADK's builder routes for `adk web` (the web UI's agent editor), in both spellings:
 * `GET /builder/app/{app}?file_path=&tmp=` (`GET /dev/apps/{app}/builder`) reads a YAML file of the
 * app or of its draft copy in `{app}/tmp/{app}/`; `POST /builder/save?tmp=`
 * (`POST /dev/apps/{app}/builder/save`) takes multipart files named `{app}/{path}.yaml`, checks each
 * with @adk/config (schema, and no path or code reference outside the app — nothing is imported),
 * and writes them to the draft (`tmp=true`) or to the app (the draft is folded in and removed);
 * `POST /builder/app/{app}/cancel` (`POST /dev/apps/{app}/builder/cancel`) drops the draft. While a
 * draft exists it is served as the app `__draft__{app}` (unlisted), so the web UI can chat with it.
 */
export function builderRoutes(agentsDir: string, loader: AppLoader): ServerRoute {
  // A folder that is itself the app (`adk web .`) is named after itself; its parent holds it.
  const base = resolve(loader.isSingleApp ? dirname(loader.dir) : agentsDir);

  const appRoot = (name: string): string => {
    if (!APP_NAME.test(name) || name === '.' || name === '..')
      throw new BuilderRequestError(`Invalid app name: ${name}`);
    if (loader.isSingleApp && resolve(base, name) !== resolve(loader.dir)) {
      throw new BuilderRequestError(`Unknown app ${name}: this server serves ${loader.dir}`);
    }
    const root = resolve(base, name);
    if (!inside(base, root)) throw new BuilderRequestError(`Invalid app name: ${name}`);
    return root;
  };
  const draftRoot = (name: string) => join(appRoot(name), TMP, name);

  const read = (name: string, filePath: string | undefined, tmp: boolean): string => {
    const root = appRoot(name);
    if (!existsSync(root) || !statSync(root).isDirectory()) return '';
    let dir = root;
    if (tmp) {
      dir = draftRoot(name);
      if (!existsSync(dir)) copyApp(root, dir);
    }
    const file = resolve(dir, relativeYamlPath(filePath || 'root_agent.yaml'));
    if (!inside(dir, file) || !existsSync(file) || !statSync(file).isFile()) return '';
    return readFileSync(file, 'utf8');
  };

  const save = async (files: File[], tmp: boolean, pathApp: string | undefined): Promise<void> => {
    if (files.length === 0) throw new BuilderRequestError('No files: send multipart form data with `files`');
    const uploads: { rel: string; text: string }[] = [];
    const apps = new Set<string>();
    for (const file of files) {
      const name = file.name.replace(/\\/g, '/').replace(/^\/+/, '');
      const slash = name.indexOf('/');
      if (slash <= 0)
        throw new BuilderRequestError(`Upload names must be {app}/{path}, got ${JSON.stringify(file.name)}`);
      apps.add(name.slice(0, slash));
      uploads.push({ rel: relativeYamlPath(name.slice(slash + 1)), text: await file.text() });
    }
    if (apps.size !== 1)
      throw new BuilderRequestError(`Exactly one app per save, got ${[...apps].sort().join(', ')}`);
    const name = [...apps][0] as string;
    if (pathApp !== undefined && name !== pathApp) {
      throw new BuilderRequestError(`Upload for app ${name} sent to the builder of ${pathApp}`);
    }
    const root = appRoot(name);
    const config = await import('@adk/config');
    // Checked where the files will live in the app, so a draft passes exactly when the save will.
    for (const upload of uploads) {
      try {
        config.checkAgentConfig(upload.text, {
          file: join(root, upload.rel),
          appRoot: root,
          agentsRoot: base,
        });
      } catch (error) {
        throw new BuilderRequestError(isAdkError(error) ? error.message : describeError(error));
      }
    }
    const target = tmp ? draftRoot(name) : root;
    // A draft starts as a copy of the app, so the code it names (copied beside it) resolves.
    if (tmp && !existsSync(target) && existsSync(root)) copyApp(root, target);
    mkdirSync(target, { recursive: true });
    if (!tmp && existsSync(draftRoot(name))) copyApp(draftRoot(name), root);
    for (const upload of uploads) {
      const file = resolve(target, upload.rel);
      if (!inside(target, file)) throw new BuilderRequestError(`Invalid file path: ${upload.rel}`);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, upload.text);
    }
    if (tmp) {
      // The draft is served as the app `__draft__{app}`: the next run there uses these files.
      const loaded = await loader.reload(
        draftAppName(name),
        uploads.map((u) => join(target, u.rel)),
      );
      if (!loaded.ok) {
        throw new BuilderRequestError(
          `The draft was saved but does not load: ${loaded.error.file}: ${loaded.error.message}`,
          { details: { file: loaded.error.file } },
        );
      }
    } else {
      cancel(name);
      // Served at once: the next run uses the saved files (the watcher would reload them too, later).
      if (loader.reloadable)
        await loader.reload(
          name,
          uploads.map((u) => join(root, u.rel)),
        );
    }
  };

  const cancel = (name: string): void => {
    rmSync(draftRoot(name), { recursive: true, force: true });
    const tmpDir = join(appRoot(name), TMP);
    if (existsSync(tmpDir) && readdirSync(tmpDir).length === 0)
      rmSync(tmpDir, { recursive: true, force: true });
  };

  return (app: ServerApp) => {
    const answer = async <T>(
      work: () => T | Promise<T>,
      respond: (value: T) => Response,
    ): Promise<Response> => {
      try {
        return respond(await work());
      } catch (error) {
        if (error instanceof BuilderRequestError) {
          return new Response(JSON.stringify({ detail: error.message, code: error.code }), {
            status: 400,
            headers: { 'content-type': 'application/json' },
          });
        }
        throw error;
      }
    };
    const yaml = (text: string) =>
      new Response(text, {
        headers: { 'content-type': 'application/x-yaml; charset=utf-8', 'cache-control': 'no-store' },
      });
    const json = (value: unknown) =>
      new Response(JSON.stringify(value), { headers: { 'content-type': 'application/json' } });
    const isTrue = (value: string | undefined) => value === 'true' || value === '1';
    const filesOf = async (body: Record<string, unknown>): Promise<File[]> => {
      const value = body.files ?? body['files[]'];
      const list = Array.isArray(value) ? value : value === undefined ? [] : [value];
      if (list.some((f) => !(f instanceof File)))
        throw new BuilderRequestError('`files` must be file uploads');
      return list as File[];
    };

    for (const path of ['/builder/app/:app', '/dev/apps/:app/builder']) {
      app.get(path, (c) =>
        answer(() => {
          // As ADK answers: an empty file for a bad name or path, or one that does not exist.
          try {
            return read(c.req.param('app') ?? '', c.req.query('file_path'), isTrue(c.req.query('tmp')));
          } catch (error) {
            if (error instanceof BuilderRequestError) return '';
            throw error;
          }
        }, yaml),
      );
    }
    for (const [path, pathApp] of [
      ['/builder/save', false],
      ['/dev/apps/:app/builder/save', true],
    ] as const) {
      app.post(path, (c) =>
        answer(async () => {
          let body: Record<string, unknown>;
          try {
            body = (await c.req.parseBody({ all: true })) as Record<string, unknown>;
          } catch (error) {
            throw new BuilderRequestError(`Expected multipart form data: ${describeError(error)}`);
          }
          await save(
            await filesOf(body),
            isTrue(c.req.query('tmp')),
            pathApp ? c.req.param('app') : undefined,
          );
          return true;
        }, json),
      );
    }
    for (const path of ['/builder/app/:app/cancel', '/dev/apps/:app/builder/cancel']) {
      app.post(path, (c) =>
        answer(() => {
          cancel(c.req.param('app') ?? '');
          return true;
        }, json),
      );
    }
  };
}
