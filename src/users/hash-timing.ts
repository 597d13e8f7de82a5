import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Keeps failed logins in one time band whatever hash a user has.
 *
 * Imported Django hashes cost what Django made them cost (PBKDF2 with
 * 870,000 iterations takes several times a Trestle scrypt hash), so without
 * care a wrong password would reveal which users still have a legacy hash.
 * Every hash check records its cost under the hash's kind (algorithm and
 * parameters, never the salt); a failed login then waits until the slowest
 * kind seen in this process would have finished. The fastest run of each
 * kind is kept, so a moment of load does not raise the band for good.
 * Successful logins are never delayed. Django's `harden_runtime` pads cheap
 * hashes up to its default cost in the same spirit.
 */
export class HashTiming {
  private readonly fastest = new Map<string, number>();
  private floor = 0;

  /** Records how long one check of a hash of kind `kind` took. */
  record(kind: string, ms: number): void {
    const known = this.fastest.get(kind);
    if (known !== undefined && known <= ms) return;
    if (this.fastest.size >= 64 && known === undefined) return; // a hostile table cannot grow this without bound
    this.fastest.set(kind, ms);
    let floor = 0;
    for (const value of this.fastest.values()) floor = Math.max(floor, value);
    this.floor = Math.min(floor, MAX_FLOOR_MS);
  }

  /** How long a failed check takes at least, in ms. */
  floorMs(): number {
    return this.floor;
  }

  /** Waits until `floorMs()` has passed since `startedAt` (a `performance.now()` value). */
  async padFailure(startedAt: number): Promise<void> {
    const rest = this.floor - (performance.now() - startedAt);
    if (rest > 1) await sleep(rest);
  }
}

/** A failed login never waits longer than this for the band. */
const MAX_FLOOR_MS = 3_000;

/**
 * The kind of a stored hash: algorithm and cost parameters, without salt or
 * digest. `$scrypt$ln=14,r=8,p=1$…` → `$scrypt$ln=14,r=8,p=1`;
 * `pbkdf2_sha256$870000$…` → `pbkdf2_sha256$870000`.
 */
export function hashKind(encoded: string): string {
  const parts = encoded.split('$');
  if (encoded.startsWith('$')) return parts.slice(0, 3).join('$');
  switch (parts[0]) {
    case 'argon2':
      return parts.slice(0, parts.length - 2).join('$');
    case 'bcrypt':
    case 'bcrypt_sha256':
      return parts.slice(0, 4).join('$');
    case 'scrypt':
      return [parts[0], parts[1], parts[3], parts[4]].join('$');
    default:
      return parts.length > 2 ? `${parts[0]}$${/^\d+$/.test(parts[1] ?? '') ? parts[1] : ''}` : 'unsalted';
  }
}
