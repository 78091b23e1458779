import { ValidationError } from '../errors/errors.js';
import type { Part } from '../events/content.js';

export interface ArtifactScope {
  appName: string;
  userId: string;
  sessionId: string;
}

export interface SaveArtifactParams extends ArtifactScope {
  /** Names starting with `user:` are shared across all sessions of the user. */
  filename: string;
  artifact: Part;
}

export interface ArtifactRef extends ArtifactScope {
  filename: string;
}

export interface LoadArtifactParams extends ArtifactRef {
  /** Latest when omitted. */
  version?: number;
}

/** Versioned file storage scoped to a session, or to a user for `user:` names. */
export interface ArtifactService {
  /** Stores a new version and returns its number (0, 1, 2, …). */
  saveArtifact(params: SaveArtifactParams): Promise<number>;
  loadArtifact(params: LoadArtifactParams): Promise<Part | undefined>;
  /** Names visible to the session: its own and the user's `user:` names, sorted. */
  listArtifactKeys(params: ArtifactScope): Promise<string[]>;
  deleteArtifact(params: ArtifactRef): Promise<void>;
  listVersions(params: ArtifactRef): Promise<number[]>;
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
