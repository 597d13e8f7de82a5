import { isDatabaseInputError } from '../db/input-errors.js';
import { sql, type Kysely, type Selectable, type Updateable } from 'kysely';
import type { DB, UserTable } from '../db/schema.js';
import { fromDbBoolean, fromDbTimestamp, toDbBoolean, toDbTimestamp } from '../db/schema.js';
import { DuplicateUsername, InvalidUserData, UserNotFound } from './errors.js';
import {
  burnHashTime,
  DEFAULT_SCRYPT_PARAMS,
  hashPassword,
  makeUnusablePassword,
  needsRehash,
  verifyPassword,
  type ScryptParams,
  type VerifyOptions,
} from './passwords.js';
import type { DjangoHasherName } from './django-hashers.js';
import { HashTiming } from './hash-timing.js';
import { UserRecord } from './user-record.js';
import { USER_ORDERINGS } from './store.js';
import type {
  CreateUserInput,
  ListUsersOptions,
  UserCreatedHook,
  UserSavedHook,
  UserStore,
  UserUpdate,
} from './store.js';

const PUBLIC_COLUMNS = [
  'id',
  'username',
  'email',
  'is_active',
  'is_staff',
  'is_superuser',
  'date_joined',
  'last_login',
] as const;

type PublicRow = Pick<Selectable<UserTable>, (typeof PUBLIC_COLUMNS)[number]>;

export interface KyselyUserStoreOptions {
  /** scrypt cost for new hashes (default `DEFAULT_SCRYPT_PARAMS`). */
  hashParams?: ScryptParams;
  /**
   * Django hashers whose hashes are accepted (users imported with `trestle
   * import-django`); default `DEFAULT_DJANGO_HASHERS`, the ones Django
   * ships as safe. MD5 and SHA-1 hashes are accepted only when listed here,
   * e.g. `[...DEFAULT_DJANGO_HASHERS, 'md5']`; `[]` accepts none.
   */
  djangoHashers?: readonly DjangoHasherName[];
}

/** Longest username accepted, as Django. */
const MAX_USERNAME = 150;

/** The default `UserStore`: the `trestle_user` table through Kysely (SQLite or PostgreSQL). */
export class KyselyUserStore implements UserStore {
  private readonly createdHooks = new Set<UserCreatedHook>();
  private readonly savedHooks = new Set<UserSavedHook>();
  private readonly hashParams: ScryptParams;
  private readonly verifyOptions: VerifyOptions;
  private readonly timing = new HashTiming();

  constructor(
    private readonly db: Kysely<DB>,
    options: KyselyUserStoreOptions = {},
  ) {
    this.hashParams = options.hashParams ?? DEFAULT_SCRYPT_PARAMS;
    this.verifyOptions = Object.freeze({
      timing: this.timing,
      ...(options.djangoHashers ? { djangoHashers: Object.freeze([...options.djangoHashers]) } : {}),
    });
  }

  async getById(pk: number): Promise<UserRecord | null> {
    if (!Number.isSafeInteger(pk)) return null;
    try {
      const row = await this.db.selectFrom('trestle_user').select(PUBLIC_COLUMNS).where('id', '=', pk).executeTakeFirst();
      return row ? toRecord(row) : null;
    } catch (err) {
      // A pk beyond the column's range (PostgreSQL `serial` is 32-bit) names no user.
      if (isDatabaseInputError(err)) return null;
      throw err;
    }
  }

  async getByUsername(username: string): Promise<UserRecord | null> {
    // No stored name holds NUL, and PostgreSQL rejects it in text: not found, never an error.
    if (username.includes('\u0000')) return null;
    const row = await this.db
      .selectFrom('trestle_user')
      .select(PUBLIC_COLUMNS)
      .where('username', '=', username)
      .executeTakeFirst();
    return row ? toRecord(row) : null;
  }

  async authenticate(username: string, password: string): Promise<UserRecord | null> {
    const started = performance.now();
    const row = username.includes('\u0000')
      ? undefined
      : await this.db
          .selectFrom('trestle_user')
          .select([...PUBLIC_COLUMNS, 'password'])
          .where('username', '=', username)
          .executeTakeFirst();
    if (!row) {
      await burnHashTime(password, this.hashParams);
      await this.timing.padFailure(started);
      return null;
    }
    if (!(await verifyPassword(password, row.password, this.verifyOptions)) || !fromDbBoolean(row.is_active)) {
      await this.timing.padFailure(started);
      return null;
    }
    if (needsRehash(row.password, this.hashParams)) {
      // Django's upgrade on login: an imported (or older-cost) hash becomes
      // today's Trestle hash. Only if the row still holds the hash just
      // checked, so a password changed meanwhile is never overwritten.
      await this.db
        .updateTable('trestle_user')
        .set({ password: await hashPassword(password, this.hashParams) })
        .where('id', '=', row.id)
        .where('password', '=', row.password)
        .execute();
    }
    return toRecord(row);
  }

  async checkPassword(pk: number, password: string): Promise<boolean> {
    const row = Number.isSafeInteger(pk)
      ? await this.db
          .selectFrom('trestle_user')
          .select('password')
          .where('id', '=', pk)
          .executeTakeFirst()
          .catch((err: unknown) => {
            if (isDatabaseInputError(err)) return undefined;
            throw err;
          })
      : undefined;
    if (!row) {
      await burnHashTime(password, this.hashParams);
      return false;
    }
    return verifyPassword(password, row.password, this.verifyOptions);
  }

  async setPassword(pk: number, password: string | null): Promise<void> {
    const encoded = password === null ? makeUnusablePassword() : await hashPassword(password, this.hashParams);
    if (!(await this.writePassword(pk, encoded))) throw new UserNotFound(pk);
    const user = await this.getById(pk);
    if (user) await this.emitSaved(user, false);
  }

  async createUser(input: CreateUserInput): Promise<UserRecord> {
    const username = checkUsername(input.username);
    const password =
      input.password === undefined || input.password === null
        ? makeUnusablePassword()
        : await hashPassword(input.password, this.hashParams);
    if (await this.getByUsername(username)) throw new DuplicateUsername(username);
    let row: PublicRow;
    try {
      row = await this.db
        .insertInto('trestle_user')
        .values({
          username,
          email: normalizeEmail(input.email ?? ''),
          password,
          is_active: toDbBoolean(input.isActive ?? true),
          is_staff: toDbBoolean(input.isStaff ?? false),
          is_superuser: toDbBoolean(input.isSuperuser ?? false),
          date_joined: toDbTimestamp(new Date()),
          last_login: null,
        })
        .returning(PUBLIC_COLUMNS)
        .executeTakeFirstOrThrow();
    } catch (err) {
      // Another writer won the race between the check above and this insert.
      if (isUniqueViolation(err)) throw new DuplicateUsername(username);
      throw err;
    }
    const user = toRecord(row);
    for (const hook of this.createdHooks) await hook(user);
    await this.emitSaved(user, true);
    return user;
  }

  createSuperuser(input: Omit<CreateUserInput, 'isStaff' | 'isSuperuser'>): Promise<UserRecord> {
    return this.createUser({ ...input, isStaff: true, isSuperuser: true });
  }

  async update(pk: number, fields: UserUpdate): Promise<UserRecord> {
    const values: Updateable<UserTable> = {};
    if (fields.username !== undefined) values.username = checkUsername(fields.username);
    if (fields.email !== undefined) values.email = normalizeEmail(fields.email);
    if (fields.isActive !== undefined) values.is_active = toDbBoolean(fields.isActive);
    if (fields.isStaff !== undefined) values.is_staff = toDbBoolean(fields.isStaff);
    if (fields.isSuperuser !== undefined) values.is_superuser = toDbBoolean(fields.isSuperuser);
    if (fields.lastLogin !== undefined) values.last_login = fields.lastLogin && toDbTimestamp(fields.lastLogin);
    if (Object.keys(values).length > 0) {
      try {
        const result = await this.db.updateTable('trestle_user').set(values).where('id', '=', pk).executeTakeFirst();
        if (Number(result.numUpdatedRows) === 0) throw new UserNotFound(pk);
      } catch (err) {
        if (isUniqueViolation(err) && values.username !== undefined) throw new DuplicateUsername(values.username);
        if (isDatabaseInputError(err)) throw new UserNotFound(pk);
        throw err;
      }
    }
    const user = await this.getById(pk);
    if (!user) throw new UserNotFound(pk);
    await this.emitSaved(user, false);
    return user;
  }

  async list(options: ListUsersOptions): Promise<UserRecord[]> {
    const { limit, offset } = options;
    if (!Number.isInteger(limit) || limit < 0 || !Number.isInteger(offset) || offset < 0) {
      throw new InvalidUserData('limit and offset must be non-negative integers.');
    }
    let query = this.searchQuery(options.search).select(PUBLIC_COLUMNS);
    const ordering = options.ordering;
    if (ordering !== undefined) {
      if (!USER_ORDERINGS.includes(ordering)) throw new InvalidUserData(`Unknown ordering "${String(ordering)}".`);
      const desc = ordering.startsWith('-');
      const column = (desc ? ordering.slice(1) : ordering) as 'username' | 'email' | 'date_joined' | 'last_login';
      // A NULL last login ("never") is the oldest, on every dialect: first ascending, last descending.
      if (column === 'last_login') query = query.orderBy(sql`${sql.ref(column)} is null`, desc ? 'asc' : 'desc');
      query = query.orderBy(column, desc ? 'desc' : 'asc');
    }
    const rows = await query
      .orderBy('id')
      .limit(limit)
      .offset(offset)
      .execute();
    return rows.map(toRecord);
  }

  async count(options: { search?: string } = {}): Promise<number> {
    const row = await this.searchQuery(options.search)
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  onUserCreated(fn: UserCreatedHook): () => void {
    this.createdHooks.add(fn);
    return () => void this.createdHooks.delete(fn);
  }

  onUserSaved(fn: UserSavedHook): () => void {
    this.savedHooks.add(fn);
    return () => void this.savedHooks.delete(fn);
  }

  private searchQuery(search: string | undefined) {
    const query = this.db.selectFrom('trestle_user');
    // No stored name holds NUL (PostgreSQL refuses it in a query): drop it.
    search = search?.replaceAll('\u0000', '');
    if (!search) return query;
    const pattern = `%${search.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    // lower() on both sides: LIKE is case-insensitive on SQLite but not on PostgreSQL.
    return query.where((eb) =>
      eb.or([
        sql<boolean>`lower(${eb.ref('username')}) like ${pattern} escape '\\'`,
        sql<boolean>`lower(${eb.ref('email')}) like ${pattern} escape '\\'`,
      ]),
    );
  }

  private async writePassword(pk: number, encoded: string): Promise<boolean> {
    const result = await this.db
      .updateTable('trestle_user')
      .set({ password: encoded })
      .where('id', '=', pk)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  private async emitSaved(user: UserRecord, created: boolean): Promise<void> {
    for (const hook of this.savedHooks) await hook(user, { created });
  }
}

function toRecord(row: PublicRow): UserRecord {
  return new UserRecord({
    pk: Number(row.id),
    username: row.username,
    email: row.email,
    isActive: fromDbBoolean(row.is_active),
    isStaff: fromDbBoolean(row.is_staff),
    isSuperuser: fromDbBoolean(row.is_superuser),
    dateJoined: fromDbTimestamp(row.date_joined),
    lastLogin: fromDbTimestamp(row.last_login),
  });
}

function checkUsername(username: string): string {
  if (typeof username !== 'string' || username.trim() === '') {
    throw new InvalidUserData('The username must not be empty.');
  }
  if (username.length > MAX_USERNAME) {
    throw new InvalidUserData(`The username must have at most ${MAX_USERNAME} characters.`);
  }
  return username;
}

/** Lower-cases the domain part, as Django's `normalize_email`. */
function normalizeEmail(email: string): string {
  const at = email.lastIndexOf('@');
  return at < 0 ? email.trim() : `${email.slice(0, at).trim()}@${email.slice(at + 1).trim().toLowerCase()}`;
}

function isUniqueViolation(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}
