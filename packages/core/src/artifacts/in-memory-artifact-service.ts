import type { Part } from '../events/content.js';
import { checkSignal } from '../utils/abort.js';
import { getOrCreate } from '../utils/json.js';
import {
  type ArtifactRef,
  type ArtifactScope,
  type ArtifactService,
  type ArtifactVersion,
  artifactByteLength,
  artifactMimeType,
  assertSafeArtifactName,
  type DeleteArtifactParams,
  type LoadArtifactParams,
  type SaveArtifactParams,
  USER_ARTIFACT_PREFIX,
} from './artifact-service.js';

function storageKey(ref: ArtifactRef): string {
  const scope = ref.filename.startsWith(USER_ARTIFACT_PREFIX) ? 'user' : ref.sessionId;
  return `${ref.appName}\u0000${ref.userId}\u0000${scope}\u0000${ref.filename}`;
}

interface Stored {
  part: Part;
  info: ArtifactVersion;
}

/** Artifacts in process memory. Version numbers are never reused, even after a version is deleted. */
export class InMemoryArtifactService implements ArtifactService {
  /** Per name, indexed by version; a deleted version leaves a hole. */
  private readonly store = new Map<string, (Stored | undefined)[]>();

  async saveArtifact(params: SaveArtifactParams): Promise<number> {
    checkSignal(params.signal);
    assertSafeArtifactName(params.filename);
    const versions = getOrCreate(this.store, storageKey(params), () => []);
    const version = versions.length;
    const mimeType = artifactMimeType(params.artifact);
    versions.push({
      part: structuredClone(params.artifact),
      info: {
        version,
        createTime: Date.now(),
        sizeBytes: artifactByteLength(params.artifact),
        ...(mimeType === undefined ? {} : { mimeType }),
        ...(params.customMetadata ? { customMetadata: structuredClone(params.customMetadata) } : {}),
      },
    });
    return version;
  }

  async loadArtifact(params: LoadArtifactParams): Promise<Part | undefined> {
    checkSignal(params.signal);
    const stored = this.find(params);
    return stored === undefined ? undefined : structuredClone(stored.part);
  }

  async getArtifactVersion(params: LoadArtifactParams): Promise<ArtifactVersion | undefined> {
    checkSignal(params.signal);
    const stored = this.find(params);
    return stored === undefined ? undefined : structuredClone(stored.info);
  }

  async listArtifactVersions(params: ArtifactRef): Promise<ArtifactVersion[]> {
    checkSignal(params.signal);
    assertSafeArtifactName(params.filename);
    const versions = this.store.get(storageKey(params)) ?? [];
    return versions.flatMap((v) => (v ? [structuredClone(v.info)] : []));
  }

  async listArtifactKeys(params: ArtifactScope): Promise<string[]> {
    checkSignal(params.signal);
    const names = new Set<string>();
    const sessionPrefix = `${params.appName}\u0000${params.userId}\u0000${params.sessionId}\u0000`;
    const userPrefix = `${params.appName}\u0000${params.userId}\u0000user\u0000`;
    for (const [key, versions] of this.store) {
      if (!versions.some((v) => v !== undefined)) continue;
      if (key.startsWith(sessionPrefix)) names.add(key.slice(sessionPrefix.length));
      else if (key.startsWith(userPrefix)) names.add(key.slice(userPrefix.length));
    }
    return [...names].sort();
  }

  async deleteArtifact(params: DeleteArtifactParams): Promise<void> {
    checkSignal(params.signal);
    assertSafeArtifactName(params.filename);
    const key = storageKey(params);
    if (params.version === undefined) {
      this.store.delete(key);
      return;
    }
    const versions = this.store.get(key);
    if (versions && params.version in versions) versions[params.version] = undefined;
  }

  async listVersions(params: ArtifactRef): Promise<number[]> {
    checkSignal(params.signal);
    return (await this.listArtifactVersions(params)).map((v) => v.version);
  }

  private find(params: LoadArtifactParams): Stored | undefined {
    assertSafeArtifactName(params.filename);
    const versions = this.store.get(storageKey(params));
    if (!versions) return undefined;
    if (params.version !== undefined) return versions[params.version];
    for (let i = versions.length - 1; i >= 0; i--) if (versions[i]) return versions[i];
    return undefined;
  }
}
