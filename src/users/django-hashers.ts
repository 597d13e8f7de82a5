import { createHash, timingSafeEqual } from 'node:crypto';
import { pbkdf2Key, scryptKey } from './hash-threads.js';
import { createRequire } from 'node:module';

/**
 * Verifies password hashes written by Django's `django.contrib.auth.hashers`,
 * so users imported from a Django database log in with the passwords they
 * have. Trestle never writes these formats: a user who logs in successfully
 * gets a Trestle (scrypt PHC) hash instead, as Django upgrades on login.
 *
 * ```
 * pbkdf2_sha256$870000$<salt>$<base64 sha256>      Django's default
 * pbkdf2_sha1$<iterations>$<salt>$<base64 sha1>
 * argon2$argon2id$v=19$m=102400,t=2,p=8$<salt>$<hash>   needs @node-rs/argon2
 * bcrypt_sha256$$2b$12$<salt+hash>                  needs @node-rs/bcrypt
 * bcrypt$$2b$12$<salt+hash>                         needs @node-rs/bcrypt
 * scrypt$16384$<salt>$8$1$<base64 64 bytes>         Django 4.2+
 * md5$<salt>$<hex>, sha1$<salt>$<hex>, sha1$$<hex>, md5$$<hex>, <32 hex>
 *                                                   weak: only when enabled
 * ```
 */

/** Django's hasher names (its `algorithm` attribute). */
export type DjangoHasherName =
  | 'pbkdf2_sha256'
  | 'pbkdf2_sha1'
  | 'argon2'
  | 'bcrypt_sha256'
  | 'bcrypt'
  | 'scrypt'
  | 'md5'
  | 'unsalted_md5'
  | 'sha1'
  | 'unsalted_sha1';

/** Accepted unless the store is told otherwise: the hashers Django ships as safe. */
export const DEFAULT_DJANGO_HASHERS: readonly DjangoHasherName[] = Object.freeze([
  'pbkdf2_sha256',
  'pbkdf2_sha1',
  'argon2',
  'bcrypt_sha256',
  'bcrypt',
  'scrypt',
]);

/** Hashers Django keeps only for old databases; Trestle accepts them only when listed explicitly. */
export const WEAK_DJANGO_HASHERS: readonly DjangoHasherName[] = Object.freeze([
  'md5',
  'unsalted_md5',
  'sha1',
  'unsalted_sha1',
]);

/** Which Django hasher wrote `encoded`, or `null` when it is not a Django hash. */
export function identifyDjangoHasher(encoded: string): DjangoHasherName | null {
  if (/^[0-9a-f]{32}$/.test(encoded) || encoded.startsWith('md5$$')) return 'unsalted_md5';
  if (encoded.startsWith('sha1$$')) return 'unsalted_sha1';
  const algorithm = encoded.slice(0, encoded.indexOf('$'));
  switch (algorithm) {
    case 'pbkdf2_sha256':
    case 'pbkdf2_sha1':
    case 'argon2':
    case 'bcrypt_sha256':
    case 'bcrypt':
    case 'scrypt':
    case 'md5':
    case 'sha1':
      return algorithm;
    default:
      return null;
  }
}

/** Thrown when a hash needs an optional package that is not installed. */
export class MissingHasherLibrary extends Error {
  override name = 'MissingHasherLibrary';
  constructor(
    readonly hasher: DjangoHasherName,
    readonly packageName: string,
  ) {
    super(`Verifying Django "${hasher}" password hashes needs the package ${packageName}: npm install ${packageName}`);
  }
}

/**
 * Checks `password` against a Django hash. `false` for a wrong password, a
 * malformed hash, or a hasher not in `enabled`. Throws `MissingHasherLibrary`
 * when the hash is well formed but its library is not installed.
 */
export async function verifyDjangoPassword(
  password: string,
  encoded: string,
  enabled: readonly DjangoHasherName[] = DEFAULT_DJANGO_HASHERS,
): Promise<boolean> {
  const hasher = identifyDjangoHasher(encoded);
  if (hasher === null || !enabled.includes(hasher)) return false;
  switch (hasher) {
    case 'pbkdf2_sha256':
      return verifyPbkdf2(password, encoded, 'sha256');
    case 'pbkdf2_sha1':
      return verifyPbkdf2(password, encoded, 'sha1');
    case 'scrypt':
      return verifyScrypt(password, encoded);
    case 'argon2':
      return verifyArgon2(password, encoded);
    case 'bcrypt_sha256':
      return verifyBcrypt(password, encoded, true);
    case 'bcrypt':
      return verifyBcrypt(password, encoded, false);
    case 'md5':
      return verifySaltedDigest(password, encoded, 'md5');
    case 'sha1':
      return verifySaltedDigest(password, encoded, 'sha1');
    case 'unsalted_md5':
      return safeEqualText(hexDigest('md5', password), encoded.startsWith('md5$$') ? encoded.slice(5) : encoded);
    case 'unsalted_sha1':
      return safeEqualText(hexDigest('sha1', password), encoded.slice(6));
  }
}

// pbkdf2_sha256$<iterations>$<salt>$<base64 digest>
const PBKDF2 = /^pbkdf2_sha(?:256|1)\$(\d{1,9})\$([^$]+)\$([A-Za-z0-9+/]+={0,2})$/;

function verifyPbkdf2(password: string, encoded: string, digest: 'sha256' | 'sha1'): Promise<boolean> {
  const m = PBKDF2.exec(encoded);
  if (!m) return Promise.resolve(false);
  const iterations = Number(m[1]);
  const expected = Buffer.from(m[3]!, 'base64');
  if (iterations < 1 || expected.length === 0) return Promise.resolve(false);
  return pbkdf2Key(Buffer.from(password, 'utf8'), Buffer.from(m[2]!, 'utf8'), iterations, expected.length, digest).then((key) => timingSafeEqual(key, expected));
}

// scrypt$<work factor N>$<salt>$<block size r>$<parallelism p>$<base64 64 bytes>
const DJANGO_SCRYPT = /^scrypt\$(\d{1,9})\$([^$]+)\$(\d{1,3})\$(\d{1,3})\$([A-Za-z0-9+/]+={0,2})$/;

function verifyScrypt(password: string, encoded: string): Promise<boolean> {
  const m = DJANGO_SCRYPT.exec(encoded);
  if (!m) return Promise.resolve(false);
  const N = Number(m[1]);
  const r = Number(m[3]);
  const p = Number(m[4]);
  const expected = Buffer.from(m[5]!, 'base64');
  // N must be a power of two; refuse absurd costs from a hostile row.
  if (N < 2 || (N & (N - 1)) !== 0 || N > 2 ** 20 || r < 1 || p < 1 || expected.length === 0) {
    return Promise.resolve(false);
  }
  // Django's maxmem: work_factor * 2 * block_size * 64 (bytes), with headroom.
  const maxmem = 128 * N * r + 1024 * 1024;
  return scryptKey(Buffer.from(password, 'utf8'), Buffer.from(m[2]!, 'utf8'), expected.length, { N, r, p, maxmem }).then((key) => timingSafeEqual(key, expected));
}

function verifySaltedDigest(password: string, encoded: string, digest: 'md5' | 'sha1'): boolean {
  const [, salt, hash] = encoded.split('$');
  if (salt === undefined || hash === undefined) return false;
  return safeEqualText(hexDigest(digest, salt + password), hash);
}

// Optional libraries, loaded on first use: most Django databases hold only
// PBKDF2 hashes, which node:crypto verifies alone (Django, too, needs
// argon2-cffi or bcrypt installed for these hashers).
const requireOptional = createRequire(import.meta.url);

interface Argon2Lib {
  verify(hashed: string, password: string): Promise<boolean>;
}
interface BcryptLib {
  verify(password: string | Buffer, hash: string): Promise<boolean>;
}

/** The optional package a hasher needs, if any, and whether it is installed. */
export function hasherLibrary(hasher: DjangoHasherName): { packageName: string; installed: boolean } | null {
  const packageName = hasher === 'argon2' ? '@node-rs/argon2' : hasher.startsWith('bcrypt') ? '@node-rs/bcrypt' : null;
  if (packageName === null) return null;
  try {
    requireOptional.resolve(packageName);
    return { packageName, installed: true };
  } catch {
    return { packageName, installed: false };
  }
}

function load<T>(hasher: DjangoHasherName, packageName: string): T {
  try {
    return requireOptional(packageName) as T;
  } catch {
    throw new MissingHasherLibrary(hasher, packageName);
  }
}

async function verifyArgon2(password: string, encoded: string): Promise<boolean> {
  // Django stores "argon2" followed by argon2's own PHC string ("$argon2id$v=19$…").
  const phc = encoded.slice('argon2'.length);
  if (!/^\$argon2(id|i|d)\$/.test(phc)) return false;
  const argon2 = load<Argon2Lib>('argon2', '@node-rs/argon2');
  try {
    return await argon2.verify(phc, password);
  } catch {
    return false; // malformed PHC string
  }
}

async function verifyBcrypt(password: string, encoded: string, sha256: boolean): Promise<boolean> {
  const hash = encoded.slice(encoded.indexOf('$') + 1);
  if (!/^\$2[abxy]?\$\d{2}\$[./A-Za-z0-9]{53}$/.test(hash)) return false;
  const bcrypt = load<BcryptLib>(sha256 ? 'bcrypt_sha256' : 'bcrypt', '@node-rs/bcrypt');
  // bcrypt_sha256 hashes the hex SHA-256 of the password, so long passwords are not truncated at 72 bytes.
  const secret = sha256 ? hexDigest('sha256', password) : Buffer.from(password, 'utf8');
  try {
    return await bcrypt.verify(secret, hash);
  } catch {
    return false;
  }
}

function hexDigest(algorithm: string, text: string): string {
  return createHash(algorithm).update(text, 'utf8').digest('hex');
}

function safeEqualText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
