import { hash, randomInt, timingSafeEqual as nodeTimingSafeEqual } from 'node:crypto';

/**
 * Compares two strings in time that depends only on their lengths, never on
 * where they first differ (Django's `constant_time_compare`).
 */
export function timingSafeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  if (left.length !== right.length) {
    // Still spend a comparison so a length mismatch costs about the same.
    nodeTimingSafeEqual(left, left);
    return false;
  }
  return nodeTimingSafeEqual(left, right);
}

/** A random string from `alphabet` drawn with a CSPRNG (Django's `get_random_string`). */
export function randomString(length: number, alphabet: string): string {
  let out = '';
  for (let i = 0; i < length; i++) out += alphabet[randomInt(alphabet.length)];
  return out;
}

/**
 * Hex SHA-256 of a string's UTF-8 bytes, for storing secrets (token keys,
 * session keys) so a leaked table cannot be replayed. One-shot `hash`: a
 * `createHash` object per call cost about 1.5 µs more on every
 * authenticated request.
 */
export function sha256Hex(value: string): string {
  return hash('sha256', value, 'hex');
}
