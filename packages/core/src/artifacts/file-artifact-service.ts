import { randomUUID } from 'node:crypto';
import { link, mkdir, open, readdir, readFile, rename, rm, unlink, writeFile } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { ValidationError } from '../errors/errors.js';
import type { JsonValue, Part } from '../events/content.js';
import { checkSignal } from '../utils/abort.js';
import { isPlainObject, parseJson } from '../utils/json.js';
import {
  type ArtifactRef,
  type ArtifactScope,
  type ArtifactService,
  ArtifactTooLargeError,
  type ArtifactVersion,
  artifactMimeType,
  assertSafeArtifactName,
  DEFAULT_MAX_ARTIFACT_BYTES,
  type DeleteArtifactParams,
  type LoadArtifactParams,
  type SaveArtifactParams,
  USER_ARTIFACT_PREFIX,
} from './artifact-service.js';

export interface FileArtifactServiceOptions {
  /** Folder that holds every artifact (created on first save). */
  rootDir: string;
  /** Largest artifact accepted, in bytes of content (default 32 MiB). */
  maxArtifactBytes?: number;
}

/** Names Windows reserves for devices, with or without an extension. */
const RESERVED_DEVICE = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³]|conin\$|conout\$)(\..*)?$/i;
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what we reject
const UNSAFE_CHARS = /[\u0000-\u001f\u007f<>:"/\\|?*]/;
const SIDECAR = /^v(\d+)\.json$/;
const TOMBSTONE = /^v(\d+)\.deleted$/;

/** What the JSON sidecar of a version holds; the bytes live in the data file beside it. */
interface Sidecar {
  version: number;
  createTime: number;
  sizeBytes: number;
  mimeType?: string;
  customMetadata?: Record<string, JsonValue>;
  /** How the data file maps back to the part. */
  kind: 'inline' | 'text' | 'part';
  /** The part without its bytes (display name, thought flags, file references, …). */
  part: Part;
  /** The data file's name in the same folder. */
  dataFile?: string;
}

/**
 * Artifacts as files under a root folder: `<root>/<app>/<user>/sessions/<session>/<name>/` (or
 * `<root>/<app>/<user>/user/<name>/` for `user:` names) holds `v<N>.json` (the metadata sidecar) and
 * the version's bytes in a data file. Writes are atomic (temporary file + rename); a version number
 * is claimed with an exclusive hard link, so concurrent writers, even in several processes, never
 * share one. Names are checked to stay inside the root on every platform.
 */
export class FileArtifactService implements ArtifactService {
  readonly rootDir: string;
  private readonly maxBytes: number;

  constructor(options: FileArtifactServiceOptions) {
    this.rootDir = resolve(options.rootDir);
    this.maxBytes = options.maxArtifactBytes ?? DEFAULT_MAX_ARTIFACT_BYTES;
  }

  async saveArtifact(params: SaveArtifactParams): Promise<number> {
    checkSignal(params.signal);
    const dir = this.nameDir(params);
    const { bytes, sidecar } = this.encode(params);
    await mkdir(dir, { recursive: true });
    checkSignal(params.signal);
    let version = (await this.highestVersion(dir)) + 1;
    const token = randomUUID();
    let dataFile: string | undefined;
    if (bytes) {
      dataFile = `v${version}.${token}.bin`;
      await atomicWrite(join(dir, dataFile), bytes, token);
    }
    const tmpSidecar = join(dir, `.tmp-${token}.json`);
    try {
      for (;;) {
        const record: Sidecar = { ...sidecar, version, ...(dataFile ? { dataFile } : {}) };
        await writeFile(tmpSidecar, JSON.stringify(record));
        try {
          // link() fails if the name exists: the version is ours only if nobody claimed it first.
          await link(tmpSidecar, join(dir, `v${version}.json`));
          return version;
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        }
        version = Math.max(version + 1, (await this.highestVersion(dir)) + 1);
        if (dataFile) {
          const next = `v${version}.${token}.bin`;
          await rename(join(dir, dataFile), join(dir, next));
          dataFile = next;
        }
      }
    } catch (error) {
      if (dataFile) await rm(join(dir, dataFile), { force: true });
      throw error;
    } finally {
      await rm(tmpSidecar, { force: true });
    }
  }

  async loadArtifact(params: LoadArtifactParams): Promise<Part | undefined> {
    checkSignal(params.signal);
    const dir = this.nameDir(params);
    const sidecar = await this.findSidecar(dir, params.version);
    if (!sidecar) return undefined;
    if (sidecar.kind === 'part' || !sidecar.dataFile) return sidecar.part;
    let bytes: Buffer;
    try {
      bytes = await readFile(join(dir, sidecar.dataFile), { signal: params.signal });
    } catch (error) {
      // Deleted between reading the sidecar and the data.
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
    if (sidecar.kind === 'text') return { ...sidecar.part, text: bytes.toString('utf8') };
    const inline = sidecar.part.inlineData;
    return {
      ...sidecar.part,
      inlineData: { ...inline, mimeType: inline?.mimeType ?? '', data: bytes.toString('base64') },
    };
  }

  async getArtifactVersion(params: LoadArtifactParams): Promise<ArtifactVersion | undefined> {
    checkSignal(params.signal);
    const sidecar = await this.findSidecar(this.nameDir(params), params.version);
    return sidecar ? versionInfo(sidecar) : undefined;
  }

  async listArtifactVersions(params: ArtifactRef): Promise<ArtifactVersion[]> {
    checkSignal(params.signal);
    const dir = this.nameDir(params);
    const infos: ArtifactVersion[] = [];
    for (const version of await this.versions(dir)) {
      const sidecar = await this.readSidecar(dir, version);
      if (sidecar) infos.push(versionInfo(sidecar));
    }
    return infos;
  }

  async listVersions(params: ArtifactRef): Promise<number[]> {
    checkSignal(params.signal);
    return this.versions(this.nameDir(params));
  }

  async listArtifactKeys(params: ArtifactScope): Promise<string[]> {
    checkSignal(params.signal);
    const base = this.userDir(params);
    const names: string[] = [];
    const collect = async (dir: string, prefix: string) => {
      for (const name of await listDir(dir)) {
        if ((await this.versions(join(dir, name))).length > 0) names.push(prefix + name);
      }
    };
    await collect(join(base, 'sessions', segment(params.sessionId, 'sessionId')), '');
    await collect(join(base, 'user'), USER_ARTIFACT_PREFIX);
    return names.sort();
  }

  async deleteArtifact(params: DeleteArtifactParams): Promise<void> {
    checkSignal(params.signal);
    const dir = this.nameDir(params);
    if (params.version === undefined) {
      await rm(dir, { recursive: true, force: true });
      return;
    }
    const sidecar = await this.readSidecar(dir, params.version);
    if (!sidecar) return;
    // The tombstone first: the number stays taken, so it is never handed out again.
    await writeFile(join(dir, `v${params.version}.deleted`), '');
    await rm(join(dir, `v${params.version}.json`), { force: true });
    if (sidecar.dataFile) await rm(join(dir, sidecar.dataFile), { force: true });
  }

  private encode(params: SaveArtifactParams): {
    bytes: Buffer | undefined;
    sidecar: Omit<Sidecar, 'version'>;
  } {
    const part = params.artifact;
    let bytes: Buffer | undefined;
    let kind: Sidecar['kind'] = 'part';
    let rest: Part = part;
    if (part.inlineData) {
      // The size is checked before decoding, so an oversize artifact is never held twice.
      this.checkSize(Buffer.byteLength(part.inlineData.data, 'base64'), params.filename);
      bytes = Buffer.from(part.inlineData.data, 'base64');
      const { data: _data, ...inlineRest } = part.inlineData;
      rest = { ...part, inlineData: { ...inlineRest, data: '' } };
      kind = 'inline';
    } else if (part.text !== undefined) {
      this.checkSize(Buffer.byteLength(part.text, 'utf8'), params.filename);
      bytes = Buffer.from(part.text, 'utf8');
      const { text: _text, ...partRest } = part;
      rest = partRest;
      kind = 'text';
    } else {
      this.checkSize(Buffer.byteLength(JSON.stringify(part), 'utf8'), params.filename);
    }
    const mimeType = artifactMimeType(part);
    return {
      bytes,
      sidecar: {
        createTime: Date.now(),
        sizeBytes: bytes?.length ?? Buffer.byteLength(JSON.stringify(part), 'utf8'),
        kind,
        part: rest,
        ...(mimeType === undefined ? {} : { mimeType }),
        ...(params.customMetadata ? { customMetadata: params.customMetadata } : {}),
      },
    };
  }

  private checkSize(size: number, filename: string): void {
    if (size > this.maxBytes)
      throw new ArtifactTooLargeError(
        `Artifact ${JSON.stringify(filename)} is ${size} bytes, over the limit of ${this.maxBytes} bytes`,
        { details: { sizeBytes: size, maxBytes: this.maxBytes } },
      );
  }

  private userDir(scope: ArtifactScope): string {
    const dir = join(this.rootDir, segment(scope.appName, 'appName'), segment(scope.userId, 'userId'));
    const inside = relative(this.rootDir, dir);
    if (!inside || inside.startsWith('..') || isAbsolute(inside))
      throw new ValidationError('Artifact path escapes the root folder');
    return dir;
  }

  private nameDir(ref: ArtifactRef): string {
    assertSafeArtifactName(ref.filename);
    const shared = ref.filename.startsWith(USER_ARTIFACT_PREFIX);
    const bare = shared ? ref.filename.slice(USER_ARTIFACT_PREFIX.length) : ref.filename;
    const base = this.userDir(ref);
    const scopeDir = shared
      ? join(base, 'user')
      : join(base, 'sessions', segment(ref.sessionId, 'sessionId'));
    return join(scopeDir, segment(bare, 'artifact name'));
  }

  private async versions(dir: string): Promise<number[]> {
    const versions: number[] = [];
    for (const name of await listDir(dir)) {
      const match = SIDECAR.exec(name);
      if (match) versions.push(Number(match[1]));
    }
    return versions.sort((a, b) => a - b);
  }

  /** The highest number ever used in the folder, deleted ones included (-1 when none). */
  private async highestVersion(dir: string): Promise<number> {
    let highest = -1;
    for (const name of await listDir(dir)) {
      const match = SIDECAR.exec(name) ?? TOMBSTONE.exec(name);
      if (match) highest = Math.max(highest, Number(match[1]));
    }
    return highest;
  }

  private async findSidecar(dir: string, version: number | undefined): Promise<Sidecar | undefined> {
    if (version !== undefined) return this.readSidecar(dir, version);
    const versions = await this.versions(dir);
    for (let i = versions.length - 1; i >= 0; i--) {
      const sidecar = await this.readSidecar(dir, versions[i] as number);
      if (sidecar) return sidecar;
    }
    return undefined;
  }

  private async readSidecar(dir: string, version: number): Promise<Sidecar | undefined> {
    if (!Number.isInteger(version) || version < 0) return undefined;
    let text: string;
    try {
      text = await readFile(join(dir, `v${version}.json`), 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
    const value = parseJson(text, `artifact metadata ${join(dir, `v${version}.json`)}`);
    if (!isPlainObject(value) || typeof value.version !== 'number' || !isPlainObject(value.part))
      throw new ValidationError(`Malformed artifact metadata in ${join(dir, `v${version}.json`)}`);
    return value as unknown as Sidecar;
  }
}

/**
 * One path segment taken from a caller's value: rejected (typed VALIDATION error) when it could
 * leave its folder or is not a portable file name — separators, `.`/`..`, NUL and control
 * characters, characters Windows forbids, reserved device names, trailing dots or spaces.
 */
function segment(value: string, what: string): string {
  if (
    value.length === 0 ||
    value.length > 255 ||
    value === '.' ||
    value === '..' ||
    UNSAFE_CHARS.test(value) ||
    RESERVED_DEVICE.test(value) ||
    /[. ]$/.test(value)
  ) {
    throw new ValidationError(
      `Unsafe ${what} ${JSON.stringify(value)} for a file store: use 1–255 characters without path separators, control characters, <>:"|?*, reserved device names (CON, NUL, COM1, …) or a trailing dot or space`,
    );
  }
  return value;
}

async function listDir(dir: string): Promise<string[]> {
  try {
    return await readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

async function atomicWrite(path: string, bytes: Buffer, token: string): Promise<void> {
  const tmp = `${path}.${token}.tmp`;
  try {
    const file = await open(tmp, 'wx');
    try {
      await file.writeFile(bytes);
      // Flushed before the rename, so a crash never leaves a visible file with missing bytes.
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(tmp, path);
  } catch (error) {
    await unlink(tmp).catch(() => {});
    throw error;
  }
}

function versionInfo(sidecar: Sidecar): ArtifactVersion {
  return {
    version: sidecar.version,
    createTime: sidecar.createTime,
    sizeBytes: sidecar.sizeBytes,
    ...(sidecar.mimeType === undefined ? {} : { mimeType: sidecar.mimeType }),
    ...(sidecar.customMetadata === undefined ? {} : { customMetadata: sidecar.customMetadata }),
  };
}
