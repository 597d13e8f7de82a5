import { sha256Hex } from '../security.js';
import type { SessionData, SessionStore } from './store.js';

/** Sessions in process memory: for tests and apps without a database. */
export class MemorySessionStore implements SessionStore {
  private readonly sessions = new Map<string, { data: string; expiresAt: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  async load(key: string): Promise<SessionData | null> {
    const hit = this.sessions.get(sha256Hex(key));
    if (!hit || hit.expiresAt <= this.now()) return null;
    return JSON.parse(hit.data) as SessionData;
  }

  async save(key: string, data: SessionData, expiresAt: Date): Promise<void> {
    this.sessions.set(sha256Hex(key), { data: JSON.stringify(data), expiresAt: expiresAt.getTime() });
  }

  async delete(key: string): Promise<void> {
    this.sessions.delete(sha256Hex(key));
  }

  async clearExpired(): Promise<number> {
    let n = 0;
    for (const [k, v] of this.sessions) {
      if (v.expiresAt <= this.now()) {
        this.sessions.delete(k);
        n++;
      }
    }
    return n;
  }
}
