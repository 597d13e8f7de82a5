import { pbkdf2Sync } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { HASH_THREAD_NICE, hashThreadStats, setHashThreadIdleTimeout } from '../../src/users/hash-threads.js';
import {
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
} from '../../src/users/passwords.js';

const CHEAP = { ln: 10, r: 8, p: 1 };

describe('passwords', () => {
  it('stores a PHC scrypt string with the default cost', async () => {
    const encoded = await hashPassword('correct horse');
    expect(encoded).toMatch(/^\$scrypt\$ln=14,r=8,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
    expect(DEFAULT_SCRYPT_PARAMS).toEqual({ ln: 14, r: 8, p: 1 });
    expect(await verifyPassword('correct horse', encoded)).toBe(true);
    expect(await verifyPassword('correct horsE', encoded)).toBe(false);
  });

  // On one busy core a hash on libuv's pool took half the core from the event loop; these threads yield to it.
  it('derives keys on threads that lower their own priority on Linux (scrypt and Django\'s PBKDF2 alike)', async () => {
    const before = hashThreadStats().derivations;
    const encoded = await hashPassword('threads', CHEAP);
    expect(await verifyPassword('threads', encoded)).toBe(true);
    const django = `pbkdf2_sha256$1000$seasalt$${pbkdf2Sync('threads', 'seasalt', 1000, 32, 'sha256').toString('base64')}`;
    expect(await verifyPassword('threads', django)).toBe(true);
    expect(await verifyPassword('thread', django)).toBe(false);
    const after = hashThreadStats();
    expect(after.derivations.scrypt - before.scrypt).toBe(2);
    expect(after.derivations.pbkdf2 - before.pbkdf2).toBe(2);
    expect(after.nices.length).toBeGreaterThan(0);
    if (process.platform === 'linux') {
      expect(after.nices.every((n) => n === HASH_THREAD_NICE)).toBe(true);
      // The kernel's view: threads of this process at that nice value, while the event loop's thread is not.
      const nices = readdirSync('/proc/self/task').map((tid) => Number(readFileSync(`/proc/self/task/${tid}/stat`, 'utf8').split(') ')[1]!.split(' ')[16]));
      expect(nices.filter((n) => n === HASH_THREAD_NICE).length).toBeGreaterThanOrEqual(after.nices.length);
      expect(Number(readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[16])).toBe(0);
    }
  });

  it('stops a hashing thread once it has been idle for the timeout; the next hash starts one again', async () => {
    const threadsAtNice = () =>
      readdirSync('/proc/self/task').filter((tid) => {
        try {
          return Number(readFileSync(`/proc/self/task/${tid}/stat`, 'utf8').split(') ')[1]!.split(' ')[16]) === HASH_THREAD_NICE;
        } catch {
          return false; // the thread ended while being read
        }
      }).length;
    setHashThreadIdleTimeout(50);
    try {
      const encoded = await hashPassword('idle', CHEAP);
      expect(hashThreadStats().nices.length).toBeGreaterThan(0);
      await expect.poll(() => hashThreadStats().nices.length, { timeout: 5_000, interval: 20 }).toBe(0);
      // The kernel's view: no thread of this process is left at the hashing threads' nice value.
      if (process.platform === 'linux') await expect.poll(threadsAtNice, { timeout: 5_000, interval: 20 }).toBe(0);
      const before = hashThreadStats().derivations.scrypt;
      expect(await verifyPassword('idle', encoded)).toBe(true);
      expect(hashThreadStats().derivations.scrypt - before).toBe(1);
      expect(hashThreadStats().nices.length).toBe(1);
    } finally {
      setHashThreadIdleTimeout(60_000);
    }
    expect(() => setHashThreadIdleTimeout(-1)).toThrow(RangeError);
  });

  it('salts every hash', async () => {
    const [a, b] = await Promise.all([hashPassword('same', CHEAP), hashPassword('same', CHEAP)]);
    expect(a).not.toBe(b);
  });

  it('verifies with the parameters stored in the hash and flags old costs', async () => {
    const encoded = await hashPassword('pw', CHEAP);
    expect(encoded.startsWith('$scrypt$ln=10,r=8,p=1$')).toBe(true);
    expect(await verifyPassword('pw', encoded)).toBe(true);
    expect(needsRehash(encoded)).toBe(true);
    expect(needsRehash(encoded, CHEAP)).toBe(false);
  });

  it('never matches an unusable, malformed or tampered hash', async () => {
    const unusable = makeUnusablePassword();
    expect(unusable.startsWith('!')).toBe(true);
    expect(isUsablePassword(unusable)).toBe(false);
    expect(await verifyPassword('', unusable)).toBe(false);
    expect(await verifyPassword('pw', 'plain-text')).toBe(false);
    const encoded = await hashPassword('pw', CHEAP);
    const tampered = encoded.slice(0, -2) + (encoded.endsWith('AA') ? 'BB' : 'AA');
    expect(await verifyPassword('pw', tampered)).toBe(false);
    expect(await verifyPassword('pw', encoded.replace('ln=10', 'ln=99'))).toBe(false);
  });

  it('treats Unicode-equivalent passwords alike (NFKC)', async () => {
    const encoded = await hashPassword('caf\u00e9', CHEAP);
    expect(await verifyPassword('cafe\u0301', encoded)).toBe(true);
  });

  it('runs at most the configured number of hashes at once and queues the rest', async () => {
    const before = passwordHashLoad().slots;
    setPasswordHashConcurrency(1);
    try {
      const cheap = { ln: 4, r: 8, p: 1 };
      const all = Promise.all([hashPassword('a', cheap), hashPassword('b', cheap), hashPassword('c', cheap)]);
      expect(passwordHashLoad()).toEqual({ running: 1, waiting: 2, slots: 1, queueLimit: 8 });
      const hashes = await all;
      expect(hashes).toHaveLength(3);
      expect(passwordHashLoad()).toEqual({ running: 0, waiting: 0, slots: 1, queueLimit: 8 });
      expect(() => setPasswordHashConcurrency(0)).toThrow(RangeError);
    } finally {
      setPasswordHashConcurrency(before);
    }
  });

  it('refuses a hash at once with PasswordHashBusy when the queue is full', async () => {
    const before = passwordHashLoad().slots;
    setPasswordHashConcurrency(1);
    setPasswordHashQueueLimit(1);
    try {
      const cheap = { ln: 4, r: 8, p: 1 };
      const first = hashPassword('a', cheap);
      const second = hashPassword('b', cheap);
      const third = hashPassword('c', cheap);
      await expect(third).rejects.toBeInstanceOf(PasswordHashBusy);
      await expect(third).rejects.toMatchObject({ statusCode: 503, headers: { 'Retry-After': '1' } });
      await Promise.all([first, second]);
      expect(passwordHashLoad()).toEqual({ running: 0, waiting: 0, slots: 1, queueLimit: 1 });
      expect(() => setPasswordHashQueueLimit(-1)).toThrow(RangeError);
    } finally {
      setPasswordHashConcurrency(before);
      setPasswordHashQueueLimit(8);
    }
  });
});
