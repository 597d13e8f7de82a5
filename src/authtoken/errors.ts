/**
 * A token exists but its key cannot be shown: it was encrypted under another
 * SECRET_KEY (lost or rotated). The token still authenticates requests;
 * `regenerate` replaces it with one whose key can be shown.
 */
export class TokenKeyUnavailable extends Error {
  override name = 'TokenKeyUnavailable';
  constructor(readonly userId: number) {
    super(
      `The token of user ${userId} exists but its key cannot be shown: it was stored under another SECRET_KEY. Regenerate it to get a new key.`,
    );
  }
}

/** A token operation that the current TOKEN_MODE does not allow, or bad input to one. */
export class TokenError extends Error {
  override name = 'TokenError';
}
