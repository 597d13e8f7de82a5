import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabases } from '../helpers/databases.js';
import { getWith, postJson, tokenApp, type TokenTestApp } from './helpers.js';

const NOT_PROVIDED = { detail: 'Authentication credentials were not provided.' };

describe.each(testDatabases())('TokenAuthentication on $name', ({ open }) => {
  let t: TokenTestApp;
  let key: string;
  beforeAll(async () => {
    t = await tokenApp(open);
    const alice = await t.users.createUser({ username: 'alice', password: 'pw' });
    key = (await t.tokens.getOrCreate(alice)).token.key;
  });
  afterAll(() => t.close());

  it('authenticates "Token <key>": user is the owner, auth the token', async () => {
    const res = await getWith(t.app, '/me/', `Token ${key}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ username: 'alice', key });
  });

  it('matches the keyword case-insensitively and splits on any whitespace run, as DRF', async () => {
    for (const header of [`token ${key}`, `TOKEN   ${key}`, `Token\t${key}`]) {
      const res = await getWith(t.app, '/me/', header);
      expect(res.status, header).toBe(200);
      expect(res.body).toEqual({ username: 'alice', key });
    }
  });

  it('does not attempt other keywords: 401 "not provided" with WWW-Authenticate: Token', async () => {
    for (const header of [undefined, '', 'Basic YWxpY2U6cHc=', `Tokens ${key}`, `Bearer ${key}`]) {
      const res = await getWith(t.app, '/me/', header);
      expect(res.status, String(header)).toBe(401);
      expect(res.headers['www-authenticate']).toBe('Token');
      expect(res.body).toEqual(NOT_PROVIDED);
    }
  });

  const malformed: Array<[string, string, string]> = [
    ['the keyword alone', 'Token', 'Invalid token header. No credentials provided.'],
    ['the keyword and trailing spaces', 'Token   ', 'Invalid token header. No credentials provided.'],
    ['a key with a space in it', 'Token abc def', 'Invalid token header. Token string should not contain spaces.'],
    ['three words', 'Token a b c', 'Invalid token header. Token string should not contain spaces.'],
    ['bytes that are not UTF-8', 'Token \xe9\xff', 'Invalid token header. Token string should not contain invalid characters.'],
    ['valid UTF-8 that is no key', `Token ${Buffer.from('clé', 'utf8').toString('latin1')}`, 'Invalid token.'],
    ['an unknown key', `Token ${'0'.repeat(40)}`, 'Invalid token.'],
    ['the key in capitals', 'Token KEY_UPPER', 'Invalid token.'],
    ['a very long key', `Token ${'a'.repeat(400)}`, 'Invalid token.'],
    ['punctuation', "Token ';drop/**/table/**/trestle_token;--", 'Invalid token.'],
  ];
  it.each(malformed)('answers %s with 401 and DRF\'s message', async (_what, header, detail) => {
    const sent = header.replace('KEY_UPPER', key.toUpperCase());
    const res = await getWith(t.app, '/me/', sent);
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Token');
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.body).toEqual({ detail });
  });

  it('refuses the key of an inactive user with "User inactive or deleted."', async () => {
    const dora = await t.users.createUser({ username: 'dora', password: 'pw' });
    const doraKey = (await t.tokens.getOrCreate(dora)).token.key;
    await t.users.update(dora.pk, { isActive: false });
    const res = await getWith(t.app, '/me/', `Token ${doraKey}`);
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Token');
    expect(res.body).toEqual({ detail: 'User inactive or deleted.' });
  });

  it('a regenerated token makes the old key 401 "Invalid token." at once and the new one work', async () => {
    const erin = await t.users.createUser({ username: 'erin', password: 'pw-erin' });
    const old = (await postJson(t.app, '/api-token-auth/', { username: 'erin', password: 'pw-erin' })).body as { token: string };
    expect((await getWith(t.app, '/me/', `Token ${old.token}`)).status).toBe(200);
    const fresh = await t.tokens.regenerate(erin);
    expect(fresh.key).not.toBe(old.token);
    const res = await getWith(t.app, '/me/', `Token ${old.token}`);
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Token');
    expect(res.body).toEqual({ detail: 'Invalid token.' });
    expect((await getWith(t.app, '/me/', `Token ${fresh.key}`)).body).toEqual({ username: 'erin', key: fresh.key });
    const again = await postJson(t.app, '/api-token-auth/', { username: 'erin', password: 'pw-erin' });
    expect(again.body).toEqual({ token: fresh.key });
  });

  it('a revoked token is refused; the endpoint then issues a new one', async () => {
    const fay = await t.users.createUser({ username: 'fay', password: 'pw-fay' });
    const before = (await t.tokens.getOrCreate(fay)).token.key;
    expect(await t.tokens.revoke(fay)).toBe(true);
    expect((await getWith(t.app, '/me/', `Token ${before}`)).body).toEqual({ detail: 'Invalid token.' });
    const after = (await postJson(t.app, '/api-token-auth/', { username: 'fay', password: 'pw-fay' })).body as { token: string };
    expect(after.token).not.toBe(before);
  });

  it('a subclass with keyword = "Bearer" reads Bearer headers and ignores Token ones', async () => {
    const ok = await getWith(t.app, '/bearer/me/', `Bearer ${key}`);
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ username: 'alice', key });
    const other = await getWith(t.app, '/bearer/me/', `Token ${key}`);
    expect(other.status).toBe(401);
    expect(other.headers['www-authenticate']).toBe('Bearer');
    expect(other.body).toEqual(NOT_PROVIDED);
    const bad = await getWith(t.app, '/bearer/me/', 'Bearer');
    expect(bad.status).toBe(401);
    expect(bad.body).toEqual({ detail: 'Invalid token header. No credentials provided.' });
  });
});
