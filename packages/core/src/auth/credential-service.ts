import type { StorageCallOptions } from '../sessions/session.js';
import type { AuthCredential } from './auth-credential.js';

/**
 * Credentials belong to one user of one app. Every call takes `signal` (`StorageCallOptions`): a
 * store checks it before and between its queries.
 */
export interface CredentialScope extends StorageCallOptions {
  appName: string;
  userId: string;
}

/**
 * Stores tool credentials (tokens, API keys) per app and user, under the key of their auth config
 * (see `credentialKeyOf`). Implementations keep secrets out of logs; persistent ones encrypt them.
 */
export interface CredentialService {
  loadCredential(params: CredentialScope & { key: string }): Promise<AuthCredential | undefined>;
  saveCredential(params: CredentialScope & { key: string; credential: AuthCredential }): Promise<void>;
  deleteCredential(params: CredentialScope & { key: string }): Promise<void>;
}
