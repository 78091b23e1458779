import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import {
  AdkError,
  type AdkErrorOptions,
  type AuthCredential,
  type CredentialScope,
  type CredentialService,
  isPlainObject,
} from '@adk/core';
import { sql } from 'kysely';
import { type KyselyFromUrlOptions, kyselyFromUrl, splitConnectionOptions } from './connect.js';
import { microsFromMs } from './rows.js';
import { credentialTableFor } from './schema/credential-migrations.js';
import { tablesFor } from './schema/tables.js';
import { SqlStore, type SqlStoreOptions } from './sql-store.js';

/** The environment variable the encryption key is read from. */
export const CREDENTIAL_KEY_ENV = 'ADK_CREDENTIAL_KEY';

/**
 * The credential encryption key is missing or unusable, or a stored credential was encrypted with
 * another key. The message never contains the key.
 */
export class CredentialKeyError extends AdkError {
  constructor(message: string, options?: AdkErrorOptions) {
    super('CREDENTIAL_KEY', message, options);
  }
}

export interface SqlCredentialServiceOptions extends SqlStoreOptions {
  /**
   * The AES-256 key: 32 bytes, or their base64 / hex text. Default: the `ADK_CREDENTIAL_KEY`
   * environment variable (e.g. from `openssl rand -base64 32`).
   */
  encryptionKey?: string | Uint8Array;
}

function parseKey(value: string | Uint8Array | undefined): Buffer {
  if (value === undefined || value === '') {
    throw new CredentialKeyError(
      `SqlCredentialService needs an encryption key: set ${CREDENTIAL_KEY_ENV} to 32 random bytes in base64 or hex (e.g. \`openssl rand -base64 32\`) or pass \`encryptionKey\`.`,
      { details: { envVar: CREDENTIAL_KEY_ENV } },
    );
  }
  if (typeof value !== 'string') {
    if (value.length !== 32)
      throw new CredentialKeyError(`The credential encryption key must be 32 bytes (got ${value.length})`);
    return Buffer.from(value);
  }
  const text = value.trim();
  const bytes = /^[0-9a-f]{64}$/i.test(text) ? Buffer.from(text, 'hex') : Buffer.from(text, 'base64');
  if (bytes.length !== 32)
    throw new CredentialKeyError(
      `The credential encryption key must be 32 bytes in base64 or hex (it decodes to ${bytes.length} bytes)`,
    );
  return bytes;
}

interface Row {
  ciphertext: string;
  key_id: string;
}

/**
 * Tool credentials in the session database, encrypted at rest with AES-256-GCM (a fresh 12-byte
 * IV per write; app, user and key bound in as associated data so a row cannot be moved to another
 * user). The key comes from `ADK_CREDENTIAL_KEY` or the options and never leaves the process.
 */
export class SqlCredentialService extends SqlStore implements CredentialService {
  private readonly table;
  private readonly key: Buffer;
  private readonly keyId: string;

  constructor(options: SqlCredentialServiceOptions) {
    super(options);
    const tables = tablesFor(options.tablePrefix);
    this.table = sql.table(credentialTableFor(tables));
    this.key = parseKey(options.encryptionKey ?? process.env[CREDENTIAL_KEY_ENV]);
    this.keyId = createHash('sha256').update(this.key).digest('hex').slice(0, 16);
  }

  /** A service on its own database, built from a URL (see `kyselyFromUrl`); close() releases it. */
  static async fromUrl(
    url = 'pglite://memory',
    options: Omit<SqlCredentialServiceOptions, 'db'> & KyselyFromUrlOptions = {},
  ): Promise<SqlCredentialService> {
    const { connection, rest } = splitConnectionOptions(options);
    parseKey(rest.encryptionKey ?? process.env[CREDENTIAL_KEY_ENV]);
    const db = await kyselyFromUrl(url, connection);
    return new SqlCredentialService({ destroyOnClose: true, ...rest, db });
  }

  async loadCredential(params: CredentialScope & { key: string }): Promise<AuthCredential | undefined> {
    await this.ready(params.signal);
    const { rows } = await sql<Row>`
      select ciphertext, key_id from ${this.table}
      where app_name = ${params.appName} and user_id = ${params.userId} and credential_key = ${params.key}`.execute(
      this.db,
    );
    const row = rows[0];
    if (!row) return undefined;
    if (row.key_id !== this.keyId)
      throw new CredentialKeyError(
        `The stored credential "${params.key}" was encrypted with another key than the current ${CREDENTIAL_KEY_ENV}`,
      );
    return this.decrypt(row.ciphertext, params);
  }

  async saveCredential(params: CredentialScope & { key: string; credential: AuthCredential }): Promise<void> {
    const ciphertext = this.encrypt(params.credential, params);
    const now = this.f.time(microsFromMs(Date.now()));
    await this.ready(params.signal);
    await sql`
      insert into ${this.table} (app_name, user_id, credential_key, ciphertext, key_id, updated_at)
      values (${params.appName}, ${params.userId}, ${params.key}, ${ciphertext}, ${this.keyId}, ${now})
      on conflict (app_name, user_id, credential_key)
      do update set ciphertext = excluded.ciphertext, key_id = excluded.key_id, updated_at = excluded.updated_at`.execute(
      this.db,
    );
  }

  async deleteCredential(params: CredentialScope & { key: string }): Promise<void> {
    await this.ready(params.signal);
    await sql`
      delete from ${this.table}
      where app_name = ${params.appName} and user_id = ${params.userId} and credential_key = ${params.key}`.execute(
      this.db,
    );
  }

  private aad(params: CredentialScope & { key: string }): Buffer {
    return Buffer.from(`${params.appName}\u0000${params.userId}\u0000${params.key}`, 'utf8');
  }

  private encrypt(credential: AuthCredential, params: CredentialScope & { key: string }): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(this.aad(params));
    const body = Buffer.concat([cipher.update(JSON.stringify(credential), 'utf8'), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
  }

  private decrypt(ciphertext: string, params: CredentialScope & { key: string }): AuthCredential {
    const bytes = Buffer.from(ciphertext, 'base64');
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, bytes.subarray(0, 12));
      decipher.setAAD(this.aad(params));
      decipher.setAuthTag(bytes.subarray(12, 28));
      const text = Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8');
      const value: unknown = JSON.parse(text);
      if (!isPlainObject(value) || typeof value.authType !== 'string') throw new Error('not a credential');
      return value as unknown as AuthCredential;
    } catch (error) {
      // Tampered row, a row moved to another user or key, or a corrupt value: never return garbage.
      throw new CredentialKeyError(`The stored credential "${params.key}" could not be decrypted`, {
        cause: error,
      });
    }
  }
}
