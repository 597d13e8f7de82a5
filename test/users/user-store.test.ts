import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.js';
import { migrate } from '../../src/db/migrate.js';
import { DuplicateUsername, InvalidUserData, UserNotFound } from '../../src/users/errors.js';
import { KyselyUserStore } from '../../src/users/kysely-user-store.js';
import { UserRecord } from '../../src/users/user-record.js';
import type { User } from '../../src/users/user.js';
import { testDatabases } from '../helpers/databases.js';
import { hashThreadStats } from '../../src/users/hash-threads.js';

/** Cheap hashes keep the suite light; one test checks the default cost. */
const CHEAP = { ln: 10, r: 8, p: 1 };

describe.each(testDatabases())('KyselyUserStore on $name', ({ open }) => {
  let database: Database;
  let users: KyselyUserStore;

  beforeEach(async () => {
    database = await open();
    await migrate(database);
    users = new KyselyUserStore(database.db, { hashParams: CHEAP });
  });
  afterEach(async () => {
    await database.close();
  });

  async function storedHash(username: string): Promise<string> {
    const row = await database.db.selectFrom('trestle_user').select('password').where('username', '=', username).executeTakeFirstOrThrow();
    return row.password;
  }

  it('a username with a NUL character is simply not found, never a database error', async () => {
    await users.createUser({ username: 'alice', password: 'pw' });
    await expect(users.getByUsername('ali\u0000ce')).resolves.toBeNull();
    await expect(users.authenticate('alice\u0000', 'pw')).resolves.toBeNull();
  });

  it('creates a user with defaults and no password on the record', async () => {
    const user = await users.createUser({ username: 'alice', password: 'pw', email: 'Alice@EXAMPLE.org' });
    expect(user).toBeInstanceOf(UserRecord);
    expect(user).toMatchObject({
      username: 'alice',
      email: 'Alice@example.org',
      isActive: true,
      isStaff: false,
      isSuperuser: false,
      lastLogin: null,
      isAuthenticated: true,
      isAnonymous: false,
    });
    expect(typeof user.pk).toBe('number');
    expect(user.dateJoined).toBeInstanceOf(Date);
    expect(Math.abs(user.dateJoined.getTime() - Date.now())).toBeLessThan(60_000);
    expect(JSON.stringify(user)).not.toMatch(/scrypt|password/);
    const asUser: User = user;
    expect(asUser.pk).toBe(user.pk);
    expect(await users.getById(user.pk)).toEqual(user);
    expect(await users.getByUsername('alice')).toEqual(user);
    expect(await users.getByUsername('nobody')).toBeNull();
    expect(await users.getById(987654)).toBeNull();
  });

  it('stores a PHC scrypt string with the default cost', async () => {
    const store = new KyselyUserStore(database.db);
    await store.createUser({ username: 'dflt', password: 'pw' });
    expect(await storedHash('dflt')).toMatch(/^\$scrypt\$ln=14,r=8,p=1\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]+$/);
  });

  it('refuses a duplicate username with DuplicateUsername', async () => {
    await users.createUser({ username: 'bob' });
    await expect(users.createUser({ username: 'bob', password: 'x' })).rejects.toBeInstanceOf(DuplicateUsername);
    await expect(users.createUser({ username: 'bob' })).rejects.toThrow('A user with username "bob" already exists.');
    expect(await users.count()).toBe(1);
  });

  it('refuses an empty username', async () => {
    await expect(users.createUser({ username: '  ' })).rejects.toBeInstanceOf(InvalidUserData);
  });

  it('authenticates good, bad, unknown, inactive and password-less users', async () => {
    const carol = await users.createUser({ username: 'carol', password: 's3cret' });
    await users.createUser({ username: 'dave', password: 's3cret', isActive: false });
    await users.createUser({ username: 'erin' });
    expect(await users.authenticate('carol', 's3cret')).toEqual(carol);
    expect(await users.authenticate('carol', 'wrong')).toBeNull();
    expect(await users.authenticate('Carol', 's3cret')).toBeNull();
    expect(await users.authenticate('dave', 's3cret')).toBeNull();
    expect(await users.authenticate('erin', '')).toBeNull();
    expect(await storedHash('erin')).toMatch(/^!/);
  });

  it('spends one scrypt on an unknown username, as on a known one', async () => {
    await users.createUser({ username: 'frank', password: 'pw' });
    const scrypts = () => hashThreadStats().derivations.scrypt;
    let before = scrypts();
    expect(await users.authenticate('nobody', 'pw')).toBeNull();
    expect(scrypts() - before).toBe(1);
    before = scrypts();
    expect(await users.authenticate('frank', 'nope')).toBeNull();
    expect(scrypts() - before).toBe(1);
  });

  it('rehashes a password made with an older cost on login', async () => {
    await users.createUser({ username: 'gina', password: 'pw' });
    const stronger = new KyselyUserStore(database.db, { hashParams: { ln: 11, r: 8, p: 1 } });
    expect(await stronger.authenticate('gina', 'pw')).not.toBeNull();
    expect(await storedHash('gina')).toMatch(/^\$scrypt\$ln=11,/);
    expect(await users.authenticate('gina', 'pw')).not.toBeNull();
  });

  it('sets, checks and removes passwords', async () => {
    const user = await users.createUser({ username: 'hank' });
    expect(await users.checkPassword(user.pk, 'new')).toBe(false);
    await users.setPassword(user.pk, 'new');
    expect(await users.checkPassword(user.pk, 'new')).toBe(true);
    expect(await users.authenticate('hank', 'new')).not.toBeNull();
    await users.setPassword(user.pk, null);
    expect(await users.checkPassword(user.pk, 'new')).toBe(false);
    expect(await users.checkPassword(424242, 'new')).toBe(false);
    await expect(users.setPassword(424242, 'x')).rejects.toBeInstanceOf(UserNotFound);
  });

  it('creates superusers', async () => {
    const root = await users.createSuperuser({ username: 'root', password: 'pw', email: 'r@x.io' });
    expect(root).toMatchObject({ isStaff: true, isSuperuser: true, isActive: true });
  });

  it('updates fields, refusing duplicates and unknown users', async () => {
    const ivy = await users.createUser({ username: 'ivy' });
    await users.createUser({ username: 'jack' });
    const login = new Date('2024-05-06T07:08:09.010Z');
    const updated = await users.update(ivy.pk, { email: 'ivy@x.io', isStaff: true, lastLogin: login });
    expect(updated).toMatchObject({ username: 'ivy', email: 'ivy@x.io', isStaff: true, lastLogin: login });
    expect((await users.update(ivy.pk, { lastLogin: null })).lastLogin).toBeNull();
    await expect(users.update(ivy.pk, { username: 'jack' })).rejects.toBeInstanceOf(DuplicateUsername);
    await expect(users.update(999_999, { email: 'x' })).rejects.toBeInstanceOf(UserNotFound);
  });

  it('lists and counts with a case-insensitive search', async () => {
    for (const name of ['kim', 'Kimberly', 'lee', 'per%cent']) await users.createUser({ username: name, email: `${name}@mail.test` });
    const page = await users.list({ limit: 2, offset: 1 });
    expect(page.map((u) => u.username)).toEqual(['Kimberly', 'lee']);
    expect((await users.list({ search: 'KIM', limit: 10, offset: 0 })).map((u) => u.username)).toEqual(['kim', 'Kimberly']);
    expect(await users.count({ search: 'kim' })).toBe(2);
    expect(await users.count({ search: '%' })).toBe(1);
    expect(await users.count({ search: 'MAIL.TEST' })).toBe(4);
    expect(await users.count()).toBe(4);
    await expect(users.list({ limit: -1, offset: 0 })).rejects.toBeInstanceOf(InvalidUserData);
  });

  it('runs created and saved hooks, and unsubscribes', async () => {
    const created: string[] = [];
    const saved: string[] = [];
    const offCreated = users.onUserCreated(async (u) => void created.push(u.username));
    const offSaved = users.onUserSaved((u, { created: isNew }) => void saved.push(`${u.username}:${isNew}`));
    const max = await users.createUser({ username: 'max', password: 'pw' });
    await users.update(max.pk, { email: 'max@x.io' });
    await users.setPassword(max.pk, 'pw2');
    expect(created).toEqual(['max']);
    expect(saved).toEqual(['max:true', 'max:false', 'max:false']);
    offCreated();
    offSaved();
    await users.createUser({ username: 'ned' });
    expect(created).toEqual(['max']);
    expect(saved).toHaveLength(3);
  });
});
