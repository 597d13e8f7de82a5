/** `createUser` or `update` with a username another user already has. */
export class DuplicateUsername extends Error {
  override name = 'DuplicateUsername';
  constructor(readonly username: string) {
    super(`A user with username "${username}" already exists.`);
  }
}

/** A store operation named a user that does not exist. */
export class UserNotFound extends Error {
  override name = 'UserNotFound';
  constructor(readonly lookup: string | number) {
    super(typeof lookup === 'number' ? `No user with id ${lookup}.` : `No user with username "${lookup}".`);
  }
}

/** Bad input to a store operation (empty username, bad list bounds). */
export class InvalidUserData extends Error {
  override name = 'InvalidUserData';
}
