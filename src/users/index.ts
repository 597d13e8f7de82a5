export { AnonymousUser, type User } from './user.js';
export { UserRecord, type UserFields } from './user-record.js';
export type {
  CreateUserInput,
  ListUsersOptions,
  UserCreatedHook,
  UserSavedHook,
  UserSavedInfo,
  UserStore,
  UserUpdate,
} from './store.js';
export { KyselyUserStore, type KyselyUserStoreOptions } from './kysely-user-store.js';
export { DuplicateUsername, InvalidUserData, UserNotFound } from './errors.js';
export {
  DEFAULT_SCRYPT_PARAMS,
  hashPassword,
  isUsablePassword,
  makeUnusablePassword,
  needsRehash,
  passwordHashLoad,
  setPasswordHashConcurrency,
  setPasswordHashQueueLimit,
  PasswordHashBusy,
  verifyPassword,
  type ScryptParams,
  type VerifyOptions,
} from './passwords.js';
export { DEFAULT_DJANGO_HASHERS, WEAK_DJANGO_HASHERS, type DjangoHasherName } from './django-hashers.js';
export {
  importDjango,
  openDjangoSource,
  type DjangoImportOptions,
  type DjangoImportSummary,
  type DjangoSource,
  type DjangoUserColumns,
} from './django-import.js';
