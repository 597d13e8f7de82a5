import type { User } from './user.js';

/** The stored fields of a user, password hash excluded. */
export interface UserFields {
  pk: number;
  username: string;
  email: string;
  isActive: boolean;
  isStaff: boolean;
  isSuperuser: boolean;
  dateJoined: Date;
  lastLogin: Date | null;
}

/**
 * A real user as stores return it and the pipeline sees it. Immutable; it
 * never carries the password hash, so it is safe to log or serialise.
 */
export class UserRecord implements User, UserFields {
  readonly pk: number;
  readonly username: string;
  readonly email: string;
  readonly isActive: boolean;
  readonly isStaff: boolean;
  readonly isSuperuser: boolean;
  readonly dateJoined: Date;
  readonly lastLogin: Date | null;
  readonly isAuthenticated = true;
  readonly isAnonymous = false;

  constructor(fields: UserFields) {
    this.pk = fields.pk;
    this.username = fields.username;
    this.email = fields.email;
    this.isActive = fields.isActive;
    this.isStaff = fields.isStaff;
    this.isSuperuser = fields.isSuperuser;
    this.dateJoined = fields.dateJoined;
    this.lastLogin = fields.lastLogin;
    Object.freeze(this);
  }

  toString(): string {
    return this.username;
  }
}
