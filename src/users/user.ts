/**
 * The user as the request pipeline sees it. Stores return richer records
 * (`UserRecord` in `users/store.ts`); the pipeline only needs these fields.
 */
export interface User {
  readonly pk: number | string | null;
  readonly username: string;
  readonly email: string;
  readonly isActive: boolean;
  readonly isStaff: boolean;
  readonly isSuperuser: boolean;
  /** `true` for every real user, `false` for `AnonymousUser`. */
  readonly isAuthenticated: boolean;
  readonly isAnonymous: boolean;
}

/** The user of a request no scheme authenticated (Django's AnonymousUser). */
export class AnonymousUser implements User {
  readonly pk = null;
  readonly username = '';
  readonly email = '';
  readonly isActive = false;
  readonly isStaff = false;
  readonly isSuperuser = false;
  readonly isAuthenticated = false;
  readonly isAnonymous = true;

  toString(): string {
    return 'AnonymousUser';
  }
}
