import type { Part } from '../events/content.js';
import { getOrCreate } from '../utils/json.js';
import {
  type ArtifactRef,
  type ArtifactScope,
  type ArtifactService,
  assertSafeArtifactName,
  type LoadArtifactParams,
  type SaveArtifactParams,
  USER_ARTIFACT_PREFIX,
} from './artifact-service.js';

function storageKey(ref: ArtifactRef): string {
  const scope = ref.filename.startsWith(USER_ARTIFACT_PREFIX) ? 'user' : ref.sessionId;
  return `${ref.appName}\u0000${ref.userId}\u0000${scope}\u0000${ref.filename}`;
}

/** Artifacts in process memory. */
export class InMemoryArtifactService implements ArtifactService {
  private readonly store = new Map<string, Part[]>();

  async saveArtifact(params: SaveArtifactParams): Promise<number> {
    assertSafeArtifactName(params.filename);
    const versions = getOrCreate(this.store, storageKey(params), () => []);
    versions.push(structuredClone(params.artifact));
    return versions.length - 1;
  }

  async loadArtifact(params: LoadArtifactParams): Promise<Part | undefined> {
    assertSafeArtifactName(params.filename);
    const versions = this.store.get(storageKey(params));
    if (!versions || versions.length === 0) return undefined;
    const part = params.version === undefined ? versions.at(-1) : versions[params.version];
    return part === undefined ? undefined : structuredClone(part);
  }

  async listArtifactKeys(params: ArtifactScope): Promise<string[]> {
    const names = new Set<string>();
    const sessionPrefix = `${params.appName}\u0000${params.userId}\u0000${params.sessionId}\u0000`;
    const userPrefix = `${params.appName}\u0000${params.userId}\u0000user\u0000`;
    for (const [key, versions] of this.store) {
      if (versions.length === 0) continue;
      if (key.startsWith(sessionPrefix)) names.add(key.slice(sessionPrefix.length));
      else if (key.startsWith(userPrefix)) names.add(key.slice(userPrefix.length));
    }
    return [...names].sort();
  }

  async deleteArtifact(params: ArtifactRef): Promise<void> {
    assertSafeArtifactName(params.filename);
    this.store.delete(storageKey(params));
  }

  async listVersions(params: ArtifactRef): Promise<number[]> {
    assertSafeArtifactName(params.filename);
    const versions = this.store.get(storageKey(params)) ?? [];
    return versions.map((_, i) => i);
  }
}
