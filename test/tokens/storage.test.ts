import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { KeyCipher, TokenError, TokenKeyUnavailable, TokenStore, digestKey } from '../../src/index.js';
import { testDatabases } from '../helpers/databases.js';
import { getWith, postJson, tokenApp, TEST_SECRET, type TokenTestApp } from './helpers.js';

const open: TokenTestApp[] = [];
afterEach(async () => {
  for (const t of open.splice(0)) await t.close();
});

describe.each(testDatabases())('token storage on $name', ({ open: openDb }) => {
  async function start(...args: Parameters<typeof tokenApp> extends [unknown, ...infer R] ? R : never) {
    const t = await tokenApp(openDb, ...args);
    open.push(t);
    return t;
  }

  it('the tokens table holds no key in clear: only its SHA-256 and an AES-GCM ciphertext', async () => {
    const t = await start();
    const alice = await t.users.createUser({ username: 'alice', password: 'pw' });
    const key = (await t.tokens.getOrCreate(alice)).token.key;
    const { rows } = await sql<Record<string, unknown>>`select * from trestle_token`.execute(t.database.db);
    expect(rows).toHaveLength(1);
    const dump = JSON.stringify(rows);
    for (const form of [key, key.toUpperCase(), Buffer.from(key, 'hex').toString('base64'), Buffer.from(key).toString('base64')]) {
      expect(dump).not.toContain(form);
    }
    expect(rows[0]!['digest']).toBe(createHash('sha256').update(key).digest('hex'));
    expect(String(rows[0]!['encrypted_key'])).toMatch(/^v1\$[0-9a-f]{8}\$[\w-]{16}\$[\w-]+$/);
  });

  it('every lookup gives the stored times in Date objects of its own', async () => {
    const t = await start();
    const alice = await t.users.createUser({ username: 'alice', password: 'pw' });
    const { token } = await t.tokens.getOrCreate(alice);
    const first = (await t.tokens.lookup(token.key))!;
    const second = (await t.tokens.lookup(token.key))!;
    expect(first.token.created.getTime()).toBe(token.created.getTime());
    expect(second.token.created.getTime()).toBe(token.created.getTime());
    expect(second.user.dateJoined.getTime()).toBe(alice.dateJoined.getTime());
    expect(second.token.created).not.toBe(first.token.created);
    expect(second.user.dateJoined).not.toBe(first.user.dateJoined);
    first.token.created.setTime(0);
    first.user.dateJoined.setTime(0);
    const third = (await t.tokens.lookup(token.key))!;
    expect(third.token.created.getTime()).toBe(token.created.getTime());
    expect(third.user.dateJoined.getTime()).toBe(alice.dateJoined.getTime());
    expect(Object.isFrozen(third.token)).toBe(true);
  });

  it('a copy of the database alone yields no usable token: the digest is not a key', async () => {
    const t = await start();
    const alice = await t.users.createUser({ username: 'alice', password: 'pw' });
    await t.tokens.getOrCreate(alice);
    const row = await t.database.db.selectFrom('trestle_token').selectAll().executeTakeFirstOrThrow();
    for (const guess of [row.digest, row.encrypted_key]) {
      const res = await getWith(t.app, '/me/', `Token ${guess}`);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ detail: 'Invalid token.' });
    }
    // Without SECRET_KEY the ciphertext does not open.
    expect(new KeyCipher('some other secret').decrypt(row.encrypted_key, row.digest)).toBeNull();
  });

  it('a ciphertext moved onto another row does not decrypt (bound to its digest)', async () => {
    const t = await start();
    const a = await t.users.createUser({ username: 'a', password: 'pw' });
    const b = await t.users.createUser({ username: 'b', password: 'pw' });
    await t.tokens.getOrCreate(a);
    await t.tokens.getOrCreate(b);
    const rowA = await t.database.db.selectFrom('trestle_token').selectAll().where('user_id', '=', a.pk).executeTakeFirstOrThrow();
    await t.database.db.updateTable('trestle_token').set({ encrypted_key: rowA.encrypted_key }).where('user_id', '=', b.pk).execute();
    expect((await t.tokens.get(b))?.key).toBeNull();
  });

  it('after SECRET_KEY changes, tokens still authenticate, keys cannot be shown, and login issues a new key', async () => {
    const t = await start();
    const alice = await t.users.createUser({ username: 'alice', password: 'pw-alice' });
    const key = (await t.tokens.getOrCreate(alice)).token.key;
    const rotated = new TokenStore(t.database.db, { secret: 'a brand new secret' });
    expect((await rotated.lookup(key))?.user.username).toBe('alice');
    expect((await rotated.get(alice))?.key).toBeNull();
    await expect(rotated.getOrCreate(alice)).rejects.toBeInstanceOf(TokenKeyUnavailable);

    const t2 = await tokenApp(async () => t.database, { SECRET_KEY: 'a brand new secret' });
    try {
      expect((await getWith(t2.app, '/me/', `Token ${key}`)).status).toBe(200);
      const res = await postJson(t2.app, '/api-token-auth/', { username: 'alice', password: 'pw-alice' });
      expect(res.status).toBe(200);
      const fresh = (res.body as { token: string }).token;
      expect(fresh).not.toBe(key);
      expect((await getWith(t2.app, '/me/', `Token ${key}`)).body).toEqual({ detail: 'Invalid token.' });
      expect((await postJson(t2.app, '/api-token-auth/', { username: 'alice', password: 'pw-alice' })).body).toEqual({ token: fresh });
    } finally {
      await t2.app.close();
    }
  });

  it('concurrent get-or-create calls agree on one key', async () => {
    const t = await start();
    const alice = await t.users.createUser({ username: 'alice', password: 'pw' });
    const results = await Promise.all(Array.from({ length: 8 }, () => t.tokens.getOrCreate(alice)));
    expect(new Set(results.map((r) => r.token.key)).size).toBe(1);
    expect(results.filter((r) => r.created)).toHaveLength(1);
    const n = await t.database.db.selectFrom('trestle_token').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
    expect(Number(n.n)).toBe(1);
  });

  it('concurrent regenerations leave exactly one token, whose key works', async () => {
    const t = await start();
    const alice = await t.users.createUser({ username: 'alice', password: 'pw' });
    const first = (await t.tokens.getOrCreate(alice)).token.key;
    const keys = (await Promise.all(Array.from({ length: 4 }, () => t.tokens.regenerate(alice)))).map((k) => k.key);
    const rows = await t.database.db.selectFrom('trestle_token').select('digest').execute();
    expect(rows).toHaveLength(1);
    const survivor = keys.find((k) => digestKey(k) === rows[0]!.digest)!;
    expect(await t.tokens.lookup(first)).toBeNull();
    expect((await t.tokens.lookup(survivor))?.user.username).toBe('alice');
  });

  it('deleting a user deletes their token', async () => {
    const t = await start();
    const alice = await t.users.createUser({ username: 'alice', password: 'pw' });
    const key = (await t.tokens.getOrCreate(alice)).token.key;
    await t.database.db.deleteFrom('trestle_user').where('id', '=', alice.pk).execute();
    expect(await t.tokens.lookup(key)).toBeNull();
  });

  it('the default mode keeps one token per user and refuses named tokens', async () => {
    const t = await start();
    const alice = await t.users.createUser({ username: 'alice', password: 'pw' });
    await expect(t.tokens.create(alice, { name: 'ci' })).rejects.toBeInstanceOf(TokenError);
    expect(t.tokens).toBeInstanceOf(TokenStore);
    expect(t.tokens.mode).toBe('single');
  });
});

describe.each(testDatabases())('lifecycle mode (TOKEN_MODE "multi", TOKEN_TTL) on $name', ({ open: openDb }) => {
  function clockAt(iso: string) {
    const clock = { now: new Date(iso), advance: (s: number) => void (clock.now = new Date(clock.now.getTime() + s * 1000)) };
    return clock;
  }

  async function start(clock: { now: Date }, ttl: number | null = 3600) {
    const database = await openDb();
    const tokens = new TokenStore(database.db, { secret: TEST_SECRET, mode: 'multi', ttlSeconds: ttl, clock: () => clock.now });
    const t = await tokenApp(async () => database, { TOKEN_MODE: 'multi', TOKEN_TTL: ttl }, { tokens });
    open.push(t);
    return t;
  }

  it('an expired token is refused as "Invalid token." and the endpoint issues a fresh one', async () => {
    const clock = clockAt('2030-01-01T00:00:00Z');
    const t = await start(clock);
    await t.users.createUser({ username: 'alice', password: 'pw-alice' });
    const first = ((await postJson(t.app, '/api-token-auth/', { username: 'alice', password: 'pw-alice' })).body as { token: string }).token;
    clock.advance(3599);
    expect((await getWith(t.app, '/me/', `Token ${first}`)).status).toBe(200);
    clock.advance(1);
    const res = await getWith(t.app, '/me/', `Token ${first}`);
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Token');
    expect(res.body).toEqual({ detail: 'Invalid token.' });
    const second = ((await postJson(t.app, '/api-token-auth/', { username: 'alice', password: 'pw-alice' })).body as { token: string }).token;
    expect(second).not.toBe(first);
    expect((await getWith(t.app, '/me/', `Token ${second}`)).status).toBe(200);
  });

  it('purgeExpired deletes expired tokens only', async () => {
    const clock = clockAt('2030-01-01T00:00:00Z');
    const t = await start(clock);
    const alice = await t.users.createUser({ username: 'alice', password: 'pw' });
    await t.tokens.getOrCreate(alice);
    const forever = await t.tokens.create(alice, { name: 'deploy', ttlSeconds: null });
    await t.tokens.create(alice, { name: 'short', ttlSeconds: 60 });
    clock.advance(61);
    expect(await t.tokens.purgeExpired()).toBe(1);
    expect((await t.tokens.list(alice)).map((x) => x.name)).toEqual(['', 'deploy']);
    clock.advance(3600);
    expect(await t.tokens.purgeExpired()).toBe(1);
    expect((await t.tokens.lookup(forever.key))?.token.name).toBe('deploy');
  });

  it('several named tokens per user each authenticate; revokeAll ends them all', async () => {
    const clock = clockAt('2030-01-01T00:00:00Z');
    const t = await start(clock, null);
    const alice = await t.users.createUser({ username: 'alice', password: 'pw' });
    const laptop = await t.tokens.create(alice, { name: 'laptop' });
    const ci = await t.tokens.create(alice, { name: 'ci' });
    await expect(t.tokens.create(alice, { name: 'ci' })).rejects.toThrow(/already has a token named "ci"/);
    for (const k of [laptop.key, ci.key]) expect((await getWith(t.app, '/me/', `Token ${k}`)).body).toEqual({ username: 'alice', key: k });
    expect(await t.tokens.revokeAll(alice)).toBe(2);
    for (const k of [laptop.key, ci.key]) expect((await getWith(t.app, '/me/', `Token ${k}`)).body).toEqual({ detail: 'Invalid token.' });
  });

  it('lastUsedAt is written on use, then at most once a minute', async () => {
    const clock = clockAt('2030-01-01T00:00:00Z');
    const t = await start(clock, null);
    const alice = await t.users.createUser({ username: 'alice', password: 'pw' });
    const token = await t.tokens.create(alice, { name: 'cli' });
    const lastUsed = async () => (await t.tokens.list(alice))[0]!.lastUsedAt?.toISOString() ?? null;
    expect(await lastUsed()).toBeNull();
    await getWith(t.app, '/me/', `Token ${token.key}`);
    expect(await lastUsed()).toBe('2030-01-01T00:00:00.000Z');
    clock.advance(59);
    await getWith(t.app, '/me/', `Token ${token.key}`);
    expect(await lastUsed()).toBe('2030-01-01T00:00:00.000Z');
    clock.advance(1);
    await getWith(t.app, '/me/', `Token ${token.key}`);
    expect(await lastUsed()).toBe('2030-01-01T00:01:00.000Z');
  });
});
