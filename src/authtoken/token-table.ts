import type { ColumnType, Generated } from 'kysely';
import type { DbTimestamp } from '../db/schema.js';

type NullableTimestamp = ColumnType<Date | string | null, string | null, string | null>;

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
  created: DbTimestamp;
  /** Null for a token that never expires. */
  expires: NullableTimestamp;
  /** Written at most once a minute, in the lifecycle mode only. */
  last_used: NullableTimestamp;
}

declare module '../db/schema.js' {
  interface DB {
    trestle_token: TokenTable;
  }
}
