import { createRequire } from 'node:module';

/** What a validator may compare a password with (Django passes the user object). */
export interface PasswordUser {
  readonly username?: string | null;
  readonly email?: string | null;
}

/**
 * One rule a new password must pass, as Django's `AUTH_PASSWORD_VALIDATORS`
 * entries: `validate` returns the problems in words (empty when none).
 */
export interface PasswordValidator {
  validate(password: string, user?: PasswordUser): string[];
  /** One sentence for forms and `--help`, as Django's `get_help_text()`. */
  helpText(): string;
}

/**
 * Every problem the validators find with `password`, in their order (Django's
 * `validate_password`, which reports them all at once).
 *
 * @example
 * validatePassword('1', { username: 'alice' }, settings.AUTH_PASSWORD_VALIDATORS)
 * // ['This password is too short. It must contain at least 8 characters.', 'This password is too common.', 'This password is entirely numeric.']
 */
export function validatePassword(password: string, user: PasswordUser | undefined, validators: readonly PasswordValidator[]): string[] {
  const problems: string[] = [];
  for (const v of validators) problems.push(...v.validate(password, user));
  return problems;
}

/** Django's `MinimumLengthValidator`: at least `minLength` characters (8). */
export class MinimumLengthValidator implements PasswordValidator {
  constructor(readonly minLength = 8) {}

  validate(password: string): string[] {
    if ([...password].length >= this.minLength) return [];
    return [`This password is too short. It must contain at least ${this.minLength} ${this.minLength === 1 ? 'character' : 'characters'}.`];
  }

  helpText(): string {
    return `Your password must contain at least ${this.minLength} ${this.minLength === 1 ? 'character' : 'characters'}.`;
  }
}

/** Django's `NumericPasswordValidator`: not digits only. */
export class NumericPasswordValidator implements PasswordValidator {
  validate(password: string): string[] {
    return /^\p{Nd}+$/u.test(password) ? ['This password is entirely numeric.'] : [];
  }

  helpText(): string {
    return 'Your password can’t be entirely numeric.';
  }
}

let common: ((password: string) => boolean) | null = null;
/** Mozilla's list of common passwords (`fxa-common-password-list`), loaded on first use. */
function isCommon(password: string): boolean {
  common ??= (createRequire(import.meta.url)('fxa-common-password-list') as { test(p: string): boolean }).test;
  return common(password);
}

/**
 * Django's `CommonPasswordValidator`: not on a list of common passwords,
 * compared lower-cased and trimmed. The list is Mozilla's
 * (`fxa-common-password-list`); pass another `isCommon` to use your own.
 */
export class CommonPasswordValidator implements PasswordValidator {
  constructor(private readonly listed: (password: string) => boolean = isCommon) {}

  validate(password: string): string[] {
    return this.listed(password.toLowerCase().trim()) ? ['This password is too common.'] : [];
  }

  helpText(): string {
    return 'Your password can’t be a commonly used password.';
  }
}

/** Field names as Django's user model calls them in messages. */
const VERBOSE_NAMES: Readonly<Record<string, string>> = { username: 'username', email: 'email address' };

/**
 * Django's `UserAttributeSimilarityValidator`: not too like the username or
 * e-mail address (or a part of them split at non-word characters), by
 * Python's `SequenceMatcher.quick_ratio()` >= `maxSimilarity` (0.7).
 */
export class UserAttributeSimilarityValidator implements PasswordValidator {
  constructor(
    readonly userAttributes: readonly (keyof PasswordUser)[] = ['username', 'email'],
    readonly maxSimilarity = 0.7,
  ) {
    if (maxSimilarity < 0.1) throw new Error('maxSimilarity must be at least 0.1');
  }

  validate(password: string, user?: PasswordUser): string[] {
    if (!user) return [];
    const lower = password.toLowerCase();
    for (const name of this.userAttributes) {
      const value = user[name];
      if (!value || typeof value !== 'string') continue;
      const valueLower = value.toLowerCase();
      for (const part of [...valueLower.split(/[^\p{L}\p{N}_]+/u), valueLower]) {
        if (exceedsMaximumLengthRatio(lower, this.maxSimilarity, part)) continue;
        if (quickRatio(lower, part) >= this.maxSimilarity) {
          return [`The password is too similar to the ${VERBOSE_NAMES[name] ?? name}.`];
        }
      }
    }
    return [];
  }

  helpText(): string {
    return 'Your password can’t be too similar to your other personal information.';
  }
}

/** Django: a password ten times longer than a short value cannot be "similar" to it. */
function exceedsMaximumLengthRatio(password: string, maxSimilarity: number, value: string): boolean {
  const pwdLen = [...password].length;
  const valueLen = [...value].length;
  return pwdLen >= 10 * valueLen && valueLen < (maxSimilarity / 2) * pwdLen;
}

/** Python's `SequenceMatcher(a=a, b=b).quick_ratio()`: shared characters, order ignored. */
export function quickRatio(a: string, b: string): number {
  const [ca, cb] = [[...a], [...b]];
  const total = ca.length + cb.length;
  if (total === 0) return 1;
  const avail = new Map<string, number>();
  for (const c of cb) avail.set(c, (avail.get(c) ?? 0) + 1);
  let matches = 0;
  for (const c of ca) {
    const n = avail.get(c) ?? 0;
    avail.set(c, n - 1);
    if (n > 0) matches++;
  }
  return (2 * matches) / total;
}

/** Django's default `AUTH_PASSWORD_VALIDATORS` (the `startproject` template's four). */
export function defaultPasswordValidators(): PasswordValidator[] {
  return [new UserAttributeSimilarityValidator(), new MinimumLengthValidator(), new CommonPasswordValidator(), new NumericPasswordValidator()];
}
