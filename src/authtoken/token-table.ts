import type { Generated } from 'kysely';

/** `trestle_token`, as Kysely sees it (migration `0002_tokens`). */
export interface TokenTable {
  id: Generated<number>;
  user_id: number;
  /** `''` for the user's token in the default mode; a label in the lifecycle mode. */
  name: Generated<string>;
  /** SHA-256 of the key, lowercase hex; unique. */
  digest: string;
  /** The key under AES-256-GCM (`v1$<key id>$<iv>$<ciphertext>`). */
  encrypted_key: string;
  /** ISO-8601 UTC. */
  created: string;
  /** ISO-8601 UTC, or null for a token that never expires. */
  expires: string | null;
  /** ISO-8601 UTC; written at most once a minute, in the lifecycle mode only. */
  last_used: string | null;
}

declare module '../db/schema.js' {
  interface DB {
    trestle_token: TokenTable;
  }
}
