import { CompiledQuery, createQueryId, type Kysely, type Selectable, type Transaction } from 'kysely';
import { readFirstNow } from '../db/direct.js';
import { promiseOf } from '../utils/thenable.js';
import type { DB } from '../db/schema.js';
import { fromDbBoolean, fromDbTimestamp, toDbTimestamp } from '../db/schema.js';
import { dialectOf } from '../db/dialect.js';
import { UserRecord } from '../users/user-record.js';
import type { TokenTable } from './token-table.js';
import { digestKey, generateKey, KeyCipher, MAX_KEY_LENGTH } from './keys.js';
import { TokenError, TokenKeyUnavailable } from './errors.js';
import './token-table.js';

/** What is known about a stored token without its key. */
export interface TokenInfo {
  readonly id: number;
  readonly userId: number;
  /** `''` for the user's token in the default mode. */
  readonly name: string;
  readonly created: Date;
  /** `null`: never expires. */
  readonly expiresAt: Date | null;
  /** Lifecycle mode only; precise to a minute. */
  readonly lastUsedAt: Date | null;
}

/** A token with its key: what `request.auth` is for Token authentication (DRF's `Token`). */
export interface Token extends TokenInfo {
  readonly key: string;
}

/** A successful `lookup`: the token and its user, from one query. */
export interface TokenLookup {
  token: Token;
  user: UserRecord;
}

/** A user, or a user's primary key. */
export type UserRef = number | { readonly pk: number | string | null };

export interface TokenStoreOptions {
  /** SECRET_KEY, or a function returning it (called once, when a key is first encrypted or shown). */
  secret: string | (() => string);
  /** `'single'` (DRF, default) or `'multi'` (named tokens, `lastUsedAt`). */
  mode?: 'single' | 'multi';
  /** Lifetime of new tokens in seconds; `null` (default) = never expire. */
  ttlSeconds?: number | null;
  /** The time; injectable for tests of expiry. */
  clock?: () => Date;
}

export interface CreateMissingProgress {
  done: number;
  total: number;
}

/** `lastUsedAt` is written at most this often per token. */
const LAST_USED_RESOLUTION_MS = 60_000;
/** Users handled per transaction by `createMissing`. */
const BATCH_SIZE = 500;

const TOKEN_COLUMNS = ['id', 'user_id', 'name', 'created', 'expires', 'last_used'] as const;
type TokenRow = Pick<Selectable<TokenTable>, (typeof TOKEN_COLUMNS)[number]>;

/**
 * Every token operation, in one place: the obtain-token endpoint, Token
 * authentication, `trestle token`, the admin console and the user-created
 * hook all go through it. Registered as the `tokens` service.
 *
 * Keys are never stored in clear (see `keys.ts`): `lookup` finds a token by
 * the key's SHA-256 digest in one indexed query that also returns the user;
 * `getOrCreate` hands an existing key back by decrypting it.
 *
 * @example
 * const tokens = app.services.get('tokens');
 * const { token } = await tokens.getOrCreate(user);   // same key every call
 * const fresh = await tokens.regenerate(user);         // old key invalid now
 * const found = await tokens.lookup(fresh.key);        // { token, user } | null
 */
/** One row of the token lookup: the token's columns and its user's. */
type LookupRow = Pick<Selectable<TokenTable>, 'id' | 'user_id' | 'name' | 'created' | 'expires' | 'last_used'> &
  Pick<Selectable<DB['trestle_user']>, 'username' | 'email' | 'is_active' | 'is_staff' | 'is_superuser' | 'date_joined' | 'last_login'>;

export class TokenStore {
  readonly mode: 'single' | 'multi';
  readonly ttlSeconds: number | null;
  private readonly secret: string | (() => string);
  private readonly clock: () => Date;
  private cipherInstance: KeyCipher | null = null;
  private compiledLookup: CompiledQuery | null = null;
  private lookupNode: CompiledQuery['query'] | null = null;

  constructor(
    private readonly db: Kysely<DB>,
    options: TokenStoreOptions,
  ) {
    this.secret = options.secret;
    this.mode = options.mode ?? 'single';
    this.ttlSeconds = options.ttlSeconds ?? null;
    this.clock = options.clock ?? (() => new Date());
    if (this.mode !== 'single' && this.mode !== 'multi') throw new TokenError(`TOKEN_MODE must be "single" or "multi".`);
    if (this.ttlSeconds !== null && !(Number.isFinite(this.ttlSeconds) && this.ttlSeconds > 0)) {
      throw new TokenError('TOKEN_TTL must be a positive number of seconds or null.');
    }
  }

  private get cipher(): KeyCipher {
    this.cipherInstance ??= new KeyCipher(typeof this.secret === 'function' ? this.secret() : this.secret);
    return this.cipherInstance;
  }

  // ------------------------------------------------------------- requests

  /**
   * The lookup runs on every authenticated request: its SQL is built and
   * compiled once, then executed with the digest as its only parameter.
   */
  private lookupSql(): string {
    if (this.compiledLookup === null) {
      const compiled = this.db
        .selectFrom('trestle_token as t')
        .innerJoin('trestle_user as u', 'u.id', 't.user_id')
        .select([
          't.id',
          't.user_id',
          't.name',
          't.created',
          't.expires',
          't.last_used',
          'u.username',
          'u.email',
          'u.is_active',
          'u.is_staff',
          'u.is_superuser',
          'u.date_joined',
          'u.last_login',
        ])
        .where('t.digest', '=', '')
        .compile();
      if (compiled.parameters.length !== 1) throw new Error('The token lookup query must have exactly one parameter.');
      this.compiledLookup = compiled;
    }
    return this.compiledLookup.sql;
  }

  private lookupQuery(digest: string): CompiledQuery<LookupRow> {
    const sql = this.lookupSql();
    // CompiledQuery.raw(sql, [digest]) without building and freezing the same RawNode per request.
    this.lookupNode ??= CompiledQuery.raw(sql).query;
    return Object.freeze({
      sql,
      query: this.lookupNode,
      parameters: Object.freeze([digest]),
      queryId: createQueryId(),
    }) as CompiledQuery<LookupRow>;
  }

  /**
   * The token whose key this is and its user, in one query; `null` for an
   * unknown or expired key. Inactive users are returned: the caller decides
   * (Token authentication answers `User inactive or deleted.`).
   */
  lookup(key: string): Promise<TokenLookup | null> {
    return promiseOf(() => this.lookupNow(key));
  }

  /**
   * `lookup` without a promise where the database answers at once (SQLite
   * outside a transaction, see `readFirstNow`); else a promise, as `lookup`.
   * Token authentication calls this one.
   */
  lookupNow(key: string): TokenLookup | null | Promise<TokenLookup | null> {
    if (typeof key !== 'string' || key.length === 0 || key.length > MAX_KEY_LENGTH) return null;
    const digest = digestKey(key);
    const executor = this.db.getExecutor();
    const row = readFirstNow<LookupRow>(executor, { sql: this.lookupSql(), parameters: [digest] });
    if (row !== undefined) return this.found(row ?? undefined, key);
    // One promise from the query to the caller: no async function in between.
    return this.db.executeQuery(this.lookupQuery(digest)).then((result) => this.found(result.rows[0], key));
  }

  private found(row: LookupRow | undefined, key: string): TokenLookup | null | Promise<TokenLookup | null> {
    if (!row) return null;
    // The clock is read only when something depends on it (most tokens never expire).
    if (row.expires !== null && this.isExpired(row, this.clock())) return null;
    const user = new UserRecord({
      pk: Number(row.user_id),
      username: row.username,
      email: row.email,
      isActive: fromDbBoolean(row.is_active),
      isStaff: fromDbBoolean(row.is_staff),
      isSuperuser: fromDbBoolean(row.is_superuser),
      dateJoined: storedTime(row.date_joined, TimeSlot.DateJoined),
      lastLogin: storedTime(row.last_login, TimeSlot.LastLogin),
    });
    if (this.mode !== 'multi') return { token: toToken(row, key), user };
    // One frozen object for the token: spreading an already frozen one takes V8's slow path.
    return this.touch(toInfo(row), this.clock()).then((info) => ({ token: Object.freeze({ ...info, key }), user }));
  }

  // ------------------------------------------------------ one user, DRF's API

  /**
   * DRF's `Token.objects.get_or_create(user=user)`: the user's token (its
   * key decrypted), creating it when there is none. An expired token is
   * replaced. Throws `TokenKeyUnavailable` when the token exists but was
   * stored under another SECRET_KEY.
   */
  async getOrCreate(user: UserRef): Promise<{ token: Token; created: boolean }> {
    const userId = toUserId(user);
    const now = this.clock();
    for (let attempt = 0; attempt < 3; attempt++) {
      const row = await this.row(this.db, userId, '');
      if (row && this.isExpired(row, now)) return { token: await this.regenerate(userId), created: true };
      if (row) {
        const key = this.cipher.decrypt(row.encrypted_key, row.digest);
        if (key === null) throw new TokenKeyUnavailable(userId);
        return { token: toToken(row, key), created: false };
      }
      const inserted = await this.insert(this.db, userId, '', now, this.ttlSeconds, true);
      if (inserted) return { token: inserted, created: true };
      // Another request created it between the select and the insert: read it.
    }
    throw new Error(`Could not get or create the token of user ${userId}.`);
  }

  /**
   * Replaces the user's token with a new key, atomically: the old key stops
   * working in the same transaction that stores the new one.
   */
  async regenerate(user: UserRef, name = ''): Promise<Token> {
    const userId = toUserId(user);
    this.checkName(name);
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.db.transaction().execute(async (trx) => {
          // Regenerations of one user's token take turns on PostgreSQL (SQLite
          // transactions already do), so none inserts beside another's new row.
          if (dialectOf(trx) === 'postgres') {
            await trx.selectFrom('trestle_user').select('id').where('id', '=', userId).forUpdate().execute();
          }
          await trx.deleteFrom('trestle_token').where('user_id', '=', userId).where('name', '=', name).execute();
          return (await this.insert(trx, userId, name, this.clock(), this.ttlSeconds, false))!;
        });
      } catch (err) {
        // A concurrent regenerate committed first; doing it again is what the caller asked for.
        if (attempt < 2 && isUniqueViolation(err)) continue;
        throw err;
      }
    }
  }

  /** Deletes the user's token (or the named one); `true` when there was one. */
  async revoke(user: UserRef, name = ''): Promise<boolean> {
    const result = await this.db
      .deleteFrom('trestle_token')
      .where('user_id', '=', toUserId(user))
      .where('name', '=', name)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  /** Deletes every token of the user; returns how many. */
  async revokeAll(user: UserRef): Promise<number> {
    const result = await this.db.deleteFrom('trestle_token').where('user_id', '=', toUserId(user)).executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  /**
   * The user's token (or the named one) without creating it: `null` when
   * there is none; `key` is `null` when it was stored under another SECRET_KEY.
   */
  async get(user: UserRef, name = ''): Promise<(TokenInfo & { key: string | null }) | null> {
    const row = await this.row(this.db, toUserId(user), name);
    if (!row) return null;
    return toToken(row, this.cipher.decrypt(row.encrypted_key, row.digest));
  }

  // ---------------------------------------------------------- lifecycle mode

  /**
   * A new named token (lifecycle mode). `ttlSeconds` overrides TOKEN_TTL for
   * this token (`null`: never expires). Throws when the name is taken.
   */
  async create(user: UserRef, options: { name: string; ttlSeconds?: number | null }): Promise<Token> {
    if (this.mode !== 'multi') throw new TokenError('Named tokens need TOKEN_MODE "multi".');
    const userId = toUserId(user);
    this.checkName(options.name);
    const ttl = options.ttlSeconds === undefined ? this.ttlSeconds : options.ttlSeconds;
    const token = await this.insert(this.db, userId, options.name, this.clock(), ttl, true);
    if (!token) throw new TokenError(`User ${userId} already has a token named "${options.name}".`);
    return token;
  }

  /** The user's tokens, keys not included, oldest first. */
  async list(user: UserRef): Promise<TokenInfo[]> {
    const rows = await this.db
      .selectFrom('trestle_token')
      .select(TOKEN_COLUMNS)
      .where('user_id', '=', toUserId(user))
      .orderBy('id')
      .execute();
    return rows.map(toInfo);
  }

  /** Deletes every expired token; returns how many. */
  async purgeExpired(): Promise<number> {
    const result = await this.db
      .deleteFrom('trestle_token')
      .where('expires', 'is not', null)
      .where('expires', '<=', toDbTimestamp(this.clock()))
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  // --------------------------------------------------------------- in bulk

  /**
   * Gives every user without a token one (DRF's "create tokens for existing
   * users"), in batches of 500 by ascending id so a large table is never
   * loaded at once. `onProgress` runs after each batch.
   */
  async createMissing(onProgress?: (p: CreateMissingProgress) => void): Promise<CreateMissingProgress> {
    const total = Number(
      (
        await this.withoutToken()
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
    let done = 0;
    let after = 0;
    for (;;) {
      const ids = await this.withoutToken()
        .select('u.id')
        .where('u.id', '>', after)
        .orderBy('u.id')
        .limit(BATCH_SIZE)
        .execute();
      if (ids.length === 0) break;
      const now = this.clock();
      await this.db.transaction().execute(async (trx) => {
        for (const { id } of ids) {
          if (await this.insert(trx, Number(id), '', now, this.ttlSeconds, true)) done++;
        }
      });
      after = Number(ids[ids.length - 1]!.id);
      onProgress?.({ done, total: Math.max(total, done) });
    }
    return { done, total: Math.max(total, done) };
  }

  /**
   * Stores a key made elsewhere (a DRF `authtoken_token` row) as the user's
   * token, keeping the key so clients need not change. Returns `false` and
   * changes nothing when the user already has a token.
   */
  async importKey(user: UserRef, key: string, options: { created?: Date } = {}): Promise<boolean> {
    if (typeof key !== 'string' || key.length === 0 || key.length > MAX_KEY_LENGTH || /[\s\x00-\x1f\x7f]/.test(key)) {
      throw new TokenError('A key must be 1 to 128 characters without spaces or control characters.');
    }
    const userId = toUserId(user);
    const created = options.created ?? this.clock();
    const digest = digestKey(key);
    const expires = this.ttlSeconds === null ? null : toDbTimestamp(new Date(created.getTime() + this.ttlSeconds * 1000));
    try {
      const row = await this.db
        .insertInto('trestle_token')
        .values({ user_id: userId, name: '', digest, encrypted_key: this.cipher.encrypt(key, digest), created: toDbTimestamp(created), expires })
        .onConflict((oc) => oc.columns(['user_id', 'name']).doNothing())
        .returning('id')
        .executeTakeFirst();
      return row !== undefined;
    } catch (err) {
      if (isUniqueViolation(err)) throw new TokenError(`That key is already stored for another user.`);
      throw err;
    }
  }

  // -------------------------------------------------------------- internals

  private withoutToken() {
    return this.db
      .selectFrom('trestle_user as u')
      .leftJoin('trestle_token as t', (join) => join.onRef('t.user_id', '=', 'u.id').on('t.name', '=', ''))
      .where('t.id', 'is', null);
  }

  private row(db: Kysely<DB> | Transaction<DB>, userId: number, name: string) {
    return db
      .selectFrom('trestle_token')
      .select([...TOKEN_COLUMNS, 'digest', 'encrypted_key'])
      .where('user_id', '=', userId)
      .where('name', '=', name)
      .executeTakeFirst();
  }

  /**
   * Inserts a fresh token. With `skipExisting`, returns `null` instead of
   * failing when the user already has a token of that name.
   */
  private async insert(
    db: Kysely<DB> | Transaction<DB>,
    userId: number,
    name: string,
    now: Date,
    ttlSeconds: number | null,
    skipExisting: boolean,
  ): Promise<Token | null> {
    const key = generateKey();
    const digest = digestKey(key);
    let query = db.insertInto('trestle_token').values({
      user_id: userId,
      name,
      digest,
      encrypted_key: this.cipher.encrypt(key, digest),
      created: toDbTimestamp(now),
      expires: ttlSeconds === null ? null : toDbTimestamp(new Date(now.getTime() + ttlSeconds * 1000)),
      last_used: null,
    });
    if (skipExisting) query = query.onConflict((oc) => oc.columns(['user_id', 'name']).doNothing());
    const row = await query.returning(TOKEN_COLUMNS).executeTakeFirst();
    return row ? toToken(row, key) : null;
  }

  private isExpired(row: { expires: string | Date | null }, now: Date): boolean {
    return row.expires !== null && fromDbTimestamp(row.expires).getTime() <= now.getTime();
  }

  /** Writes `last_used` when it is unset or over a minute old (lifecycle mode). */
  private async touch(info: TokenInfo, now: Date): Promise<TokenInfo> {
    if (info.lastUsedAt && now.getTime() - info.lastUsedAt.getTime() < LAST_USED_RESOLUTION_MS) return info;
    const threshold = toDbTimestamp(new Date(now.getTime() - LAST_USED_RESOLUTION_MS));
    try {
      await this.db
        .updateTable('trestle_token')
        .set({ last_used: toDbTimestamp(now) })
        .where('id', '=', info.id)
        .where((eb) => eb.or([eb('last_used', 'is', null), eb('last_used', '<=', threshold)]))
        .execute();
    } catch {
      // Bookkeeping only: a busy database must not turn a good token into an error.
      return info;
    }
    return { ...info, lastUsedAt: now };
  }

  private checkName(name: string): void {
    if (typeof name !== 'string' || name.length > 64 || /[\x00-\x1f\x7f]/.test(name)) {
      throw new TokenError('A token name must be at most 64 characters without control characters.');
    }
    if (name !== '' && this.mode !== 'multi') throw new TokenError('Named tokens need TOKEN_MODE "multi".');
  }
}

/** A token row's public fields, not yet frozen (so the key can be added without a copy). */
function infoFields(row: TokenRow): { -readonly [F in keyof TokenInfo]: TokenInfo[F] } {
  return {
    id: Number(row.id),
    userId: Number(row.user_id),
    name: row.name,
    created: storedTime(row.created, TimeSlot.Created),
    expiresAt: storedTime(row.expires, TimeSlot.Expires),
    lastUsedAt: storedTime(row.last_used, TimeSlot.LastUsed),
  };
}

/**
 * `fromDbTimestamp`, with the text of recent timestamps remembered as
 * milliseconds: a token's and its user's times come back on every request
 * it authenticates, and a `Date` from a number skips the date parser. Each
 * column (`slot`) first compares with the text it read last (a fresh string
 * is compared, not hashed), then looks in the map. Each call still gets its
 * own `Date`.
 */
function storedTime(value: string | Date, slot: TimeSlot): Date;
function storedTime(value: string | Date | null, slot: TimeSlot): Date | null;
function storedTime(value: string | Date | null, slot: TimeSlot): Date | null {
  if (typeof value !== 'string') return fromDbTimestamp(value);
  if (value === lastTexts[slot]) return new Date(lastTimes[slot]!);
  let ms = parsedTimes.get(value);
  if (ms === undefined) {
    ms = fromDbTimestamp(value).getTime();
    if (parsedTimes.size >= 1000) parsedTimes.clear();
    parsedTimes.set(value, ms);
  }
  lastTexts[slot] = value;
  lastTimes[slot] = ms;
  return new Date(ms);
}
const parsedTimes = new Map<string, number>();
/** The column a timestamp was read from (its own last text in `lastTexts`). */
const TimeSlot = { Created: 0, Expires: 1, LastUsed: 2, DateJoined: 3, LastLogin: 4 } as const;
type TimeSlot = (typeof TimeSlot)[keyof typeof TimeSlot];
const lastTexts: (string | undefined)[] = [undefined, undefined, undefined, undefined, undefined];
const lastTimes = new Float64Array(5);

function toInfo(row: TokenRow): TokenInfo {
  return Object.freeze(infoFields(row));
}

/**
 * `toInfo(row)` with the key, frozen once: spreading an already frozen object
 * takes V8's slow path, and `Object.assign` its generic one; a store to the
 * fresh object is one shape transition.
 */
function toToken<K extends string | null>(row: TokenRow, key: K): TokenInfo & { readonly key: K } {
  const token = infoFields(row) as ReturnType<typeof infoFields> & { key: K };
  token.key = key;
  return Object.freeze(token);
}

function toUserId(user: UserRef): number {
  const pk = typeof user === 'number' ? user : Number(user.pk);
  if (!Number.isSafeInteger(pk)) throw new TokenError('Tokens belong to stored users (an integer pk).');
  return pk;
}

function isUniqueViolation(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}
