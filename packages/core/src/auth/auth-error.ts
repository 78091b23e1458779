import { AdkError, type AdkErrorOptions } from '../errors/errors.js';

/**
 * A credential could not be obtained: the authorization server refused the code or the refresh
 * token, the callback carried an error or a state we did not issue, or the auth config is
 * incomplete. Messages never contain secrets.
 */
export class AuthError extends AdkError {
  constructor(message: string, options?: AdkErrorOptions) {
    super('AUTH', message, options);
  }
}
