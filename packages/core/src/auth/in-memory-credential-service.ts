import { checkSignal } from '../utils/abort.js';
import type { AuthCredential } from './auth-credential.js';
import type { CredentialScope, CredentialService } from './credential-service.js';

/** Keeps credentials in process memory (lost on restart); the Runner's default. */
export class InMemoryCredentialService implements CredentialService {
  private readonly credentials = new Map<string, string>();

  private static keyOf(params: CredentialScope & { key: string }): string {
    return `${params.appName}\u0000${params.userId}\u0000${params.key}`;
  }

  async loadCredential(params: CredentialScope & { key: string }): Promise<AuthCredential | undefined> {
    checkSignal(params.signal);
    const stored = this.credentials.get(InMemoryCredentialService.keyOf(params));
    // Stored as JSON so callers never share (and mutate) the stored object.
    return stored === undefined ? undefined : (JSON.parse(stored) as AuthCredential);
  }

  async saveCredential(params: CredentialScope & { key: string; credential: AuthCredential }): Promise<void> {
    checkSignal(params.signal);
    this.credentials.set(InMemoryCredentialService.keyOf(params), JSON.stringify(params.credential));
  }

  async deleteCredential(params: CredentialScope & { key: string }): Promise<void> {
    checkSignal(params.signal);
    this.credentials.delete(InMemoryCredentialService.keyOf(params));
  }
}
