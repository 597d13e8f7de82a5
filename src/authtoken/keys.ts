import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { sha256Hex } from '../security.js';

/**
 * Token keys and how they are kept at rest.
 *
 * A key is DRF's: 40 lowercase hex characters from 20 CSPRNG bytes. The
 * database never holds it in clear; a row carries
 * - `digest`: SHA-256 of the key, hex. Requests are authenticated by this
 *   alone, so a lost SECRET_KEY never locks anyone out;
 * - `encrypted_key`: the key under AES-256-GCM with a key derived from
 *   SECRET_KEY (HKDF-SHA256), so get-or-create can hand an existing key back.
 *   The digest is the additional authenticated data, so a ciphertext copied
 *   onto another row does not decrypt.
 */

/** Bytes of randomness in a key (DRF: `os.urandom(20)`). */
export const KEY_BYTES = 20;

/** Longest key `lookup` hashes; anything longer cannot be stored and is refused without a query. */
export const MAX_KEY_LENGTH = 128;

/** A new key: 40 lowercase hex characters. */
export function generateKey(): string {
  return randomBytes(KEY_BYTES).toString('hex');
}

/** SHA-256 of a key, lowercase hex (64 characters): what the database indexes. */
export function digestKey(key: string): string {
  return sha256Hex(key);
}

const FORMAT = 'v1';
const HKDF_SALT = 'trestle.authtoken';
const HKDF_INFO_KEY = 'trestle.authtoken.key-encryption.v1';
const HKDF_INFO_ID = 'trestle.authtoken.key-id.v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * Encrypts and decrypts stored keys under one SECRET_KEY. Ciphertexts carry
 * a short identifier of the secret that made them (itself HKDF output, so it
 * says nothing about the secret), so a rotated secret is recognised at once
 * instead of failing as "corrupt".
 *
 * @example
 * const cipher = new KeyCipher(settings.SECRET_KEY);
 * const stored = cipher.encrypt(key, digestKey(key));
 * cipher.decrypt(stored, digestKey(key)); // key, or null under another secret
 */
export class KeyCipher {
  readonly #key: Buffer;
  /** 8 hex characters naming the secret (not derived from the encryption key). */
  readonly keyId: string;

  constructor(secret: string) {
    if (typeof secret !== 'string' || secret.length === 0) throw new Error('SECRET_KEY must be a non-empty string.');
    this.#key = Buffer.from(hkdfSync('sha256', secret, HKDF_SALT, HKDF_INFO_KEY, 32));
    this.keyId = Buffer.from(hkdfSync('sha256', secret, HKDF_SALT, HKDF_INFO_ID, 4)).toString('hex');
  }

  /** `v1$<key id>$<iv>$<ciphertext+tag>` (base64url parts). */
  encrypt(key: string, digest: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv);
    cipher.setAAD(Buffer.from(digest, 'utf8'));
    const body = Buffer.concat([cipher.update(key, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return `${FORMAT}$${this.keyId}$${iv.toString('base64url')}$${body.toString('base64url')}`;
  }

  /**
   * The key, or `null` when the value was made under another secret, was
   * tampered with, or does not belong to `digest`.
   */
  decrypt(stored: string, digest: string): string | null {
    const parts = stored.split('$');
    if (parts.length !== 4 || parts[0] !== FORMAT || parts[1] !== this.keyId) return null;
    const iv = Buffer.from(parts[2]!, 'base64url');
    const body = Buffer.from(parts[3]!, 'base64url');
    if (iv.length !== IV_BYTES || body.length <= TAG_BYTES) return null;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.#key, iv);
      decipher.setAAD(Buffer.from(digest, 'utf8'));
      decipher.setAuthTag(body.subarray(body.length - TAG_BYTES));
      const key = Buffer.concat([decipher.update(body.subarray(0, body.length - TAG_BYTES)), decipher.final()]).toString('utf8');
      return digestKey(key) === digest ? key : null;
    } catch {
      return null;
    }
  }
}
