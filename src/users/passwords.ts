import { randomBytes, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { ApiError } from '../exceptions.js';
import { hashKind, type HashTiming } from './hash-timing.js';
import { scryptKey } from './hash-threads.js';
import {
  DEFAULT_DJANGO_HASHERS,
  identifyDjangoHasher,
  MissingHasherLibrary,
  verifyDjangoPassword,
  type DjangoHasherName,
} from './django-hashers.js';

const warnedMissing = new Set<string>();

/**
 * Password hashing with `node:crypto` scrypt, stored as a PHC string:
 * `$scrypt$ln=14,r=8,p=1$<salt base64>$<hash base64>` (unpadded base64).
 * Hashing runs off the event loop, on threads that yield to it
 * (hash-threads.ts). The parameters travel with each hash, so raising the
 * cost later keeps old hashes valid.
 */

/** Cost parameters: N = 2^ln, block size r, parallelism p. */
export interface ScryptParams {
  ln: number;
  r: number;
  p: number;
}

/** Today's cost: N = 16384, r = 8, p = 1 (16 MiB, ~50 ms). */
export const DEFAULT_SCRYPT_PARAMS: Readonly<ScryptParams> = Object.freeze({ ln: 14, r: 8, p: 1 });

const SALT_BYTES = 16;
const KEY_BYTES = 32;
/** Prefix of passwords that can never match (Django's UNUSABLE_PASSWORD_PREFIX). */
export const UNUSABLE_PASSWORD_PREFIX = '!';

/**
 * How many hashes run at once in this process. Each one occupies a thread
 * and 16 MiB; left unbounded, a burst of logins fills every core and starves
 * the event loop that serves everything else. One core is left to the loop.
 */
let hashSlots = Math.max(1, availableParallelism() - 1);
let running = 0;
const waiting: (() => void)[] = [];
/**
 * How many hashes may wait for a slot. Past it a login is refused at once
 * (503, `Retry-After: 1`) instead of queueing: an unbounded queue let 32
 * wrong-password connections make every real login wait 1.5 s and more.
 */
let queueLimit = 8;

/**
 * 503 for a login that arrives while the password-hash queue is full: the
 * server is busy checking other passwords; the client may retry shortly.
 */
export class PasswordHashBusy extends ApiError {
  static override statusCode = 503;
  static override defaultDetail = 'Too many logins are being checked at once. Try again shortly.';
  static override defaultCode = 'password_hash_busy';

  constructor() {
    super();
    this.headers['Retry-After'] = '1';
  }
}

/** Changes how many password hashes may wait for a slot (0 = none wait: busy at once). */
export function setPasswordHashQueueLimit(n: number): void {
  if (!Number.isInteger(n) || n < 0) throw new RangeError('Password hash queue limit must be a non-negative integer.');
  queueLimit = n;
}

/** Changes the number of concurrent password hashes (at least 1). */
export function setPasswordHashConcurrency(n: number): void {
  if (!Number.isInteger(n) || n < 1) throw new RangeError('Password hash concurrency must be a positive integer.');
  hashSlots = n;
  while (running < hashSlots && waiting.length > 0) {
    running++;
    waiting.shift()!();
  }
}

async function withHashSlot<T>(work: () => Promise<T>): Promise<T> {
  if (running >= hashSlots) {
    if (waiting.length >= queueLimit) throw new PasswordHashBusy();
    await new Promise<void>((resolve) => waiting.push(resolve));
  } else running++;
  try {
    return await work();
  } finally {
    running--;
    while (running < hashSlots && waiting.length > 0) {
      running++;
      waiting.shift()!();
    }
  }
}

/** Hashes running and waiting in this process (for monitoring and tests). */
export function passwordHashLoad(): { running: number; waiting: number; slots: number; queueLimit: number } {
  return { running, waiting: waiting.length, slots: hashSlots, queueLimit };
}

function derive(password: string, salt: Buffer, params: ScryptParams, keylen: number): Promise<Buffer> {
  const N = 2 ** params.ln;
  const options: ScryptOptions = { N, r: params.r, p: params.p, maxmem: 256 * N * params.r + 1024 * 1024 };
  return withHashSlot(() => scryptKey(password.normalize('NFKC'), salt, keylen, options));
}

const b64 = (buf: Buffer): string => buf.toString('base64').replace(/=+$/, '');

/** Hashes a password into a PHC string. */
export async function hashPassword(password: string, params: ScryptParams = DEFAULT_SCRYPT_PARAMS): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, params, KEY_BYTES);
  return `$scrypt$ln=${params.ln},r=${params.r},p=${params.p}$${b64(salt)}$${b64(key)}`;
}

interface ParsedHash {
  params: ScryptParams;
  salt: Buffer;
  key: Buffer;
}

const PHC = /^\$scrypt\$ln=(\d{1,2}),r=(\d{1,3}),p=(\d{1,3})\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/;

function parseHash(encoded: string): ParsedHash | null {
  const m = PHC.exec(encoded);
  if (!m) return null;
  const params = { ln: Number(m[1]), r: Number(m[2]), p: Number(m[3]) };
  if (params.ln < 1 || params.ln > 20 || params.r < 1 || params.p < 1) return null;
  const key = Buffer.from(m[5]!, 'base64');
  if (key.length < 16) return null;
  return { params, salt: Buffer.from(m[4]!, 'base64'), key };
}

/** Which hashes besides Trestle's own a check accepts. */
export interface VerifyOptions {
  /** Django hashers whose hashes are verified (imported users); default `DEFAULT_DJANGO_HASHERS`. */
  djangoHashers?: readonly DjangoHasherName[];
  /** Records what each check cost, by kind of hash (see `HashTiming`). */
  timing?: HashTiming;
}

/**
 * Checks a password against a stored hash in constant time. An unusable or
 * malformed hash never matches (and costs the same scrypt run, so timing
 * does not tell the two cases apart). Hashes written by Django's hashers
 * (users imported with `trestle import-django`) are verified too; `needsRehash`
 * is true for them, so a login replaces them with a Trestle hash.
 */
export async function verifyPassword(password: string, encoded: string, options: VerifyOptions = {}): Promise<boolean> {
  const started = performance.now();
  const parsed = parseHash(encoded);
  let ok: boolean;
  if (parsed) {
    ok = timingSafeEqual(await derive(password, parsed.salt, parsed.params, parsed.key.length), parsed.key);
  } else {
    const enabled = options.djangoHashers ?? DEFAULT_DJANGO_HASHERS;
    const hasher = identifyDjangoHasher(encoded);
    if (hasher === null || !enabled.includes(hasher)) {
      await burnHashTime(password);
      return false;
    }
    try {
      ok = await withHashSlot(() => verifyDjangoPassword(password, encoded, enabled));
    } catch (err) {
      if (!(err instanceof MissingHasherLibrary)) throw err;
      // A login must not become a 500 because an optional package is missing: refuse it, say why once.
      if (!warnedMissing.has(err.packageName)) {
        warnedMissing.add(err.packageName);
        process.emitWarning(err.message, 'TrestleWarning');
      }
      await burnHashTime(password);
      return false;
    }
  }
  options.timing?.record(hashKind(encoded), performance.now() - started);
  return ok;
}

/** True when a hash was made with other parameters than today's and should be redone. */
export function needsRehash(encoded: string, params: ScryptParams = DEFAULT_SCRYPT_PARAMS): boolean {
  const parsed = parseHash(encoded);
  if (!parsed) return identifyDjangoHasher(encoded) !== null;
  return parsed.params.ln !== params.ln || parsed.params.r !== params.r || parsed.params.p !== params.p;
}

/** A value that marks "no password": login with a password is impossible. */
export function makeUnusablePassword(): string {
  return UNUSABLE_PASSWORD_PREFIX + randomBytes(30).toString('base64url');
}

/** False for hashes `makeUnusablePassword()` made (Django's `!` prefix) and anything that is not a known hash. */
export function isUsablePassword(encoded: string): boolean {
  if (encoded.startsWith(UNUSABLE_PASSWORD_PREFIX)) return false;
  return parseHash(encoded) !== null || identifyDjangoHasher(encoded) !== null;
}

/**
 * Spends the time of one hash (today's parameters unless given), so that "unknown
 * user" and "wrong password" take equally long.
 */
export async function burnHashTime(password: string, params: ScryptParams = DEFAULT_SCRYPT_PARAMS): Promise<void> {
  await derive(password, randomBytes(SALT_BYTES), params, KEY_BYTES);
}
