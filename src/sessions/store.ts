/** What a session holds: JSON-serialisable values by name. */
export type SessionData = Record<string, unknown>;

/**
 * Where sessions live. Keys are the raw session ids from the `sessionid`
 * cookie; stores keep only their SHA-256, so a leaked table or dump cannot
 * be replayed as cookies.
 */
export interface SessionStore {
  /** The data of a live session, or `null` when unknown or expired. */
  load(key: string): Promise<SessionData | null>;
  /** Creates or replaces a session. */
  save(key: string, data: SessionData, expiresAt: Date): Promise<void>;
  delete(key: string): Promise<void>;
  /** Removes expired sessions (Django's `clearsessions`); returns how many when known. */
  clearExpired(): Promise<number>;
}
