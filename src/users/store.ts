import type { UserRecord } from './user-record.js';

export { UserRecord } from './user-record.js';

/** What `createUser` accepts. Without `password` the user gets an unusable one. */
export interface CreateUserInput {
  username: string;
  password?: string | null;
  email?: string;
  isActive?: boolean;
  isStaff?: boolean;
  isSuperuser?: boolean;
}

/** Fields `update` may change. Passwords change through `setPassword` only. */
export interface UserUpdate {
  username?: string;
  email?: string;
  isActive?: boolean;
  isStaff?: boolean;
  isSuperuser?: boolean;
  lastLogin?: Date | null;
}

/** A column users can be listed by; `-` for descending. Ties are broken by pk. */
export type UserOrdering = `${'' | '-'}${'username' | 'email' | 'date_joined' | 'last_login'}`;

/** The orderings `list` accepts, for checking a query parameter. */
export const USER_ORDERINGS: readonly UserOrdering[] = ['username', 'email', 'date_joined', 'last_login'].flatMap((c) => [c, `-${c}`]) as UserOrdering[];

export interface ListUsersOptions {
  /** Case-insensitive substring of username or email. */
  search?: string;
  /** Default: by pk. */
  ordering?: UserOrdering;
  limit: number;
  offset: number;
}

/** Django's `post_save` flag: whether the save created the user. */
export interface UserSavedInfo {
  created: boolean;
}

export type UserCreatedHook = (user: UserRecord) => void | Promise<void>;
export type UserSavedHook = (user: UserRecord, info: UserSavedInfo) => void | Promise<void>;

/**
 * Where users live. `KyselyUserStore` is the default; an app may register
 * its own implementation under the `users` service (LDAP, another table…).
 *
 * Hooks run after the write, in registration order, and are awaited: an
 * error thrown by a hook reaches the caller of `createUser` / `update`.
 */
export interface UserStore {
  getById(pk: number): Promise<UserRecord | null>;
  getByUsername(username: string): Promise<UserRecord | null>;
  /**
   * The active user with this username and password, else `null`. Costs one
   * password hash whether or not the user exists, so response time does not
   * reveal which usernames exist. Inactive users get `null` (as Django's
   * ModelBackend).
   */
  authenticate(username: string, password: string): Promise<UserRecord | null>;
  /** Whether `password` is the user's password (false for unknown users). */
  checkPassword(pk: number, password: string): Promise<boolean>;
  /** Sets (or, with `null`, makes unusable) a user's password. */
  setPassword(pk: number, password: string | null): Promise<void>;
  /** Throws `DuplicateUsername` when the username is taken. */
  createUser(input: CreateUserInput): Promise<UserRecord>;
  /** `createUser` with `isStaff` and `isSuperuser` set. */
  createSuperuser(input: Omit<CreateUserInput, 'isStaff' | 'isSuperuser'>): Promise<UserRecord>;
  /** Throws `UserNotFound` or `DuplicateUsername`. */
  update(pk: number, fields: UserUpdate): Promise<UserRecord>;
  /** Users ordered by `ordering` (default pk). */
  list(options: ListUsersOptions): Promise<UserRecord[]>;
  count(options?: { search?: string }): Promise<number>;
  /** Subscribes to user creation; returns the unsubscribe function. */
  onUserCreated(fn: UserCreatedHook): () => void;
  /** Subscribes to every create, update and password change; returns the unsubscribe function. */
  onUserSaved(fn: UserSavedHook): () => void;
}
