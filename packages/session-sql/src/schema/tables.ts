import { ValidationError } from '@adk/core';

/** Table names of one store; all start with the configurable prefix (default `adk_`). */
export interface Tables {
  prefix: string;
  sessions: string;
  events: string;
  appStates: string;
  userStates: string;
  migrations: string;
  migrationsLock: string;
}

export const DEFAULT_TABLE_PREFIX = 'adk_';

export function tablesFor(prefix = DEFAULT_TABLE_PREFIX): Tables {
  // Index and constraint names are built from the prefix too, so keep it a plain identifier.
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(prefix) && prefix !== '') {
    throw new ValidationError(`Invalid table prefix ${JSON.stringify(prefix)}: use letters, digits and _`);
  }
  return {
    prefix,
    sessions: `${prefix}sessions`,
    events: `${prefix}events`,
    appStates: `${prefix}app_states`,
    userStates: `${prefix}user_states`,
    migrations: `${prefix}migrations`,
    migrationsLock: `${prefix}migrations_lock`,
  };
}
