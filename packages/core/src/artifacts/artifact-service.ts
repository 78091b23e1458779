import { AdkError, type AdkErrorOptions, ValidationError } from '../errors/errors.js';
import type { JsonValue, Part } from '../events/content.js';
import type { StorageCallOptions } from '../sessions/session.js';
import { base64ByteLength, utf8ByteLength } from '../utils/bytes.js';

/** Every call takes `signal` (`StorageCallOptions`): a store checks it before and between its queries. */
export interface ArtifactScope extends StorageCallOptions {
  appName: string;
  userId: string;
  sessionId: string;
}

export interface SaveArtifactParams extends ArtifactScope {
  /** Names starting with `user:` are shared across all sessions of the user. */
  filename: string;
  artifact: Part;
  /** Stored with the version and returned by `getArtifactVersion` (stores that keep metadata). */
  customMetadata?: Record<string, JsonValue>;
}

export interface ArtifactRef extends ArtifactScope {
  filename: string;
}

export interface LoadArtifactParams extends ArtifactRef {
  /** Latest when omitted. */
  version?: number;
}

export interface DeleteArtifactParams extends ArtifactRef {
  /** Only this version; every version of the name when omitted. */
  version?: number;
}

/** What is known about one stored version, without its content. */
export interface ArtifactVersion {
  version: number;
  /** `text/plain` for text parts, the part's own type for inline and file data. */
  mimeType?: string;
  customMetadata?: Record<string, JsonValue>;
  /** When the version was saved (ms since the epoch). */
  createTime: number;
  /** Size of the stored content in bytes (decoded bytes for inline data, UTF-8 for text). */
  sizeBytes?: number;
}

/** Versioned file storage scoped to a session, or to a user for `user:` names. */
export interface ArtifactService {
  /** Stores a new version and returns its number (0, 1, 2, …). */
  saveArtifact(params: SaveArtifactParams): Promise<number>;
  loadArtifact(params: LoadArtifactParams): Promise<Part | undefined>;
  /** Names visible to the session: its own and the user's `user:` names, sorted. */
  listArtifactKeys(params: ArtifactScope): Promise<string[]>;
  /** Deletes every version, or one when `version` is given. Deleting what is absent is a no-op. */
  deleteArtifact(params: DeleteArtifactParams): Promise<void>;
  listVersions(params: ArtifactRef): Promise<number[]>;
  /** MIME type, custom metadata, time and size of a version (latest when omitted). */
  getArtifactVersion?(params: LoadArtifactParams): Promise<ArtifactVersion | undefined>;
  /** Every stored version's metadata, oldest first. */
  listArtifactVersions?(params: ArtifactRef): Promise<ArtifactVersion[]>;
}

/** An artifact larger than the store's configured limit; nothing was stored. */
export class ArtifactTooLargeError extends AdkError {
  constructor(message: string, options?: AdkErrorOptions) {
    super('ARTIFACT_TOO_LARGE', message, options);
  }
}

/** Bytes a part occupies once stored: decoded inline data, UTF-8 text, else its JSON. */
export function artifactByteLength(part: Part): number {
  if (part.inlineData) return base64ByteLength(part.inlineData.data);
  if (part.text !== undefined) return utf8ByteLength(part.text);
  return utf8ByteLength(JSON.stringify(part));
}

/** The MIME type recorded for a part. */
export function artifactMimeType(part: Part): string | undefined {
  if (part.inlineData) return part.inlineData.mimeType;
  if (part.fileData) return part.fileData.mimeType;
  if (part.text !== undefined) return 'text/plain';
  return undefined;
}

export const USER_ARTIFACT_PREFIX = 'user:';

/** Rejects names that could escape their scope in a file- or key-based store. */
export function assertSafeArtifactName(filename: string): void {
  const bare = filename.startsWith(USER_ARTIFACT_PREFIX)
    ? filename.slice(USER_ARTIFACT_PREFIX.length)
    : filename;
  if (
    bare.length === 0 ||
    bare.length > 512 ||
    bare === '.' ||
    bare === '..' ||
    /[/\\]/.test(bare) ||
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what we reject
    /[\u0000-\u001f\u007f]/.test(bare)
  ) {
    throw new ValidationError(
      `Unsafe artifact name ${JSON.stringify(filename)}: names must be 1–512 characters without path separators, control characters, "." or ".."`,
    );
  }
}

/** Default size limit of the file and SQL artifact stores. */
export const DEFAULT_MAX_ARTIFACT_BYTES = 32 * 1024 * 1024;
