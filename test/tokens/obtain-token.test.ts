import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabases } from '../helpers/databases.js';
import { postForm, postJson, tokenApp, type TokenTestApp } from './helpers.js';

const KEY = /^[0-9a-f]{40}$/;
const BAD_LOGIN = { non_field_errors: ['Unable to log in with provided credentials.'] };

describe.each(testDatabases())('obtain-token endpoint on $name', ({ open }) => {
  let t: TokenTestApp;
  beforeAll(async () => {
    t = await tokenApp(open);
    await t.users.createUser({ username: 'alice', password: 'correct horse', email: 'alice@example.com' });
    await t.users.createUser({ username: 'mallory', password: 'pw-mallory', isActive: false });
  });
  afterAll(() => t.close());

  it('answers a JSON body with {"token": key} as application/json', async () => {
    const res = await postJson(t.app, '/api-token-auth/', { username: 'alice', password: 'correct horse' });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.headers['allow']).toBe('POST, OPTIONS');
    expect(Object.keys(res.body as object)).toEqual(['token']);
    expect((res.body as { token: string }).token).toMatch(KEY);
  });

  it('gives the same key on every call, for JSON and form bodies alike', async () => {
    const first = await postJson(t.app, '/api-token-auth/', { username: 'alice', password: 'correct horse' });
    const second = await postForm(t.app, '/api-token-auth/', { username: 'alice', password: 'correct horse' });
    const multipart = await t.app.inject({
      method: 'POST',
      url: '/api-token-auth/',
      headers: { host: 'localhost', 'content-type': 'multipart/form-data; boundary=XyZ' },
      payload:
        '--XyZ\r\nContent-Disposition: form-data; name="username"\r\n\r\nalice\r\n' +
        '--XyZ\r\nContent-Disposition: form-data; name="password"\r\n\r\ncorrect horse\r\n--XyZ--\r\n',
    });
    expect(second.status).toBe(200);
    expect(multipart.statusCode).toBe(200);
    expect(second.body).toEqual(first.body);
    expect(JSON.parse(multipart.body)).toEqual(first.body);
  });

  it('refuses GET with 405 and DRF\'s message', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api-token-auth/', headers: { host: 'localhost' } });
    expect(res.statusCode).toBe(405);
    expect(res.headers['allow']).toBe('POST, OPTIONS');
    expect(res.headers['content-type']).toBe('application/json');
    expect(JSON.parse(res.body)).toEqual({ detail: 'Method "GET" not allowed.' });
  });

  it('gives the same 400 for a wrong password and for an unknown username', async () => {
    const wrong = await postJson(t.app, '/api-token-auth/', { username: 'alice', password: 'wrong' });
    const unknown = await postJson(t.app, '/api-token-auth/', { username: 'nobody', password: 'wrong' });
    expect(wrong.status).toBe(400);
    expect(wrong.body).toEqual(BAD_LOGIN);
    expect(unknown.status).toBe(wrong.status);
    expect(unknown.body).toEqual(wrong.body);
    expect(unknown.headers['content-type']).toBe(wrong.headers['content-type']);
  });

  it('refuses an inactive user with the same 400 even with the right password', async () => {
    const res = await postJson(t.app, '/api-token-auth/', { username: 'mallory', password: 'pw-mallory' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(BAD_LOGIN);
  });

  it('lists every missing field as required', async () => {
    const res = await postJson(t.app, '/api-token-auth/', {});
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ username: ['This field is required.'], password: ['This field is required.'] });
    const empty = await t.app.inject({ method: 'POST', url: '/api-token-auth/', headers: { host: 'localhost' } });
    expect(empty.statusCode).toBe(400);
    expect(JSON.parse(empty.body)).toEqual({ username: ['This field is required.'], password: ['This field is required.'] });
  });

  it('refuses blank fields, a whitespace-only username included, but not a whitespace password', async () => {
    const blank = await postForm(t.app, '/api-token-auth/', { username: '', password: '' });
    expect(blank.status).toBe(400);
    expect(blank.body).toEqual({ username: ['This field may not be blank.'], password: ['This field may not be blank.'] });
    const spaces = await postJson(t.app, '/api-token-auth/', { username: '   ', password: '   ' });
    expect(spaces.status).toBe(400);
    expect(spaces.body).toEqual({ username: ['This field may not be blank.'] });
  });

  it('answers wrong types with the field messages DRF uses', async () => {
    const res = await postJson(t.app, '/api-token-auth/', { username: null, password: ['x'] });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ username: ['This field may not be null.'], password: ['Not a valid string.'] });
    const nul = await postJson(t.app, '/api-token-auth/', { username: 'al\u0000ice', password: true });
    expect(nul.body).toEqual({ username: ['Null characters are not allowed.'], password: ['Not a valid string.'] });
  });

  it('turns a password sent as a JSON number into a string, as DRF\'s CharField (1e999 is "inf")', async () => {
    await t.users.createUser({ username: 'numbers', password: '12345' });
    await t.users.createUser({ username: 'overflow', password: 'inf' });
    const int = await postJson(t.app, '/api-token-auth/', { username: 'numbers', password: 12345 });
    expect(int.status).toBe(200);
    expect(int.headers['content-type']).toBe('application/json');
    expect((int.body as { token: string }).token).toMatch(KEY);
    const huge = await t.app.inject({
      method: 'POST',
      url: '/api-token-auth/',
      headers: { host: 'localhost', 'content-type': 'application/json' },
      payload: '{"username": "overflow", "password": 1e999}',
    });
    expect(huge.statusCode).toBe(200);
    expect(JSON.parse(huge.body)).toEqual({ token: expect.stringMatching(KEY) });
    const wrong = await postJson(t.app, '/api-token-auth/', { username: 'numbers', password: 0.5 });
    expect(wrong).toMatchObject({ status: 400, body: BAD_LOGIN });
    const bool = await postJson(t.app, '/api-token-auth/', { username: 'numbers', password: false });
    expect(bool).toMatchObject({ status: 400, body: { password: ['Not a valid string.'] } });
    const object = await postJson(t.app, '/api-token-auth/', { username: 'numbers', password: { a: 1 } });
    expect(object).toMatchObject({ status: 400, body: { password: ['Not a valid string.'] } });
  });

  it("OPTIONS describes username, password and token under actions.POST, as DRF's SimpleMetadata", async () => {
    const res = await t.app.inject({ method: 'OPTIONS', url: '/api-token-auth/', headers: { host: 'localhost' } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.headers['allow']).toBe('POST, OPTIONS');
    expect(res.body).toBe(JSON.stringify({
      name: 'Obtain Auth Token',
      description: '',
      renders: ['application/json'],
      parses: ['application/x-www-form-urlencoded', 'multipart/form-data', 'application/json'],
      actions: {
        POST: {
          username: { type: 'string', required: true, read_only: false, label: 'Username' },
          password: { type: 'string', required: true, read_only: false, label: 'Password' },
          token: { type: 'string', required: false, read_only: true, label: 'Token' },
        },
      },
    }));
  });

  it('answers bodies that are not objects as non-field errors', async () => {
    const list = await postJson(t.app, '/api-token-auth/', ['alice']);
    expect(list.status).toBe(400);
    expect(list.body).toEqual({ non_field_errors: ['Invalid data. Expected a dictionary, but got list.'] });
    const nothing = await postJson(t.app, '/api-token-auth/', null);
    expect(nothing.status).toBe(400);
    expect(nothing.body).toEqual({ non_field_errors: ['No data provided'] });
  });

  it('answers a body that does not parse with a 400, never a 500', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api-token-auth/',
      headers: { host: 'localhost', 'content-type': 'application/json' },
      payload: '{"username": ',
    });
    expect(res.statusCode).toBe(400);
    expect(JSON.parse(res.body).detail).toMatch(/^JSON parse error - /);
    const xml = await t.app.inject({
      method: 'POST',
      url: '/api-token-auth/',
      headers: { host: 'localhost', 'content-type': 'application/xml' },
      payload: '<x/>',
    });
    expect(xml.statusCode).toBe(415);
    expect(JSON.parse(xml.body)).toEqual({ detail: 'Unsupported media type "application/xml" in request.' });
  });

  it('the CustomAuthToken subclass adds user_id and email next to the same token', async () => {
    const plain = await postJson(t.app, '/api-token-auth/', { username: 'alice', password: 'correct horse' });
    const res = await postJson(t.app, '/api-token-auth/custom/', { username: 'alice', password: 'correct horse' });
    const alice = await t.users.getByUsername('alice');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ token: (plain.body as { token: string }).token, user_id: alice!.pk, email: 'alice@example.com' });
  });

  it('uses NON_FIELD_ERRORS_KEY for the credentials error', async () => {
    const other = await tokenApp(open, { NON_FIELD_ERRORS_KEY: 'errors' });
    try {
      const res = await postJson(other.app, '/api-token-auth/', { username: 'x', password: 'y' });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ errors: ['Unable to log in with provided credentials.'] });
    } finally {
      await other.close();
    }
  });
});

describe.each(testDatabases())('token provisioning hook on $name', ({ open }) => {
  it('TOKEN_CREATE_ON_USER_CREATED gives a new user a token at once, the one the endpoint returns', async () => {
    const t = await tokenApp(open, { TOKEN_CREATE_ON_USER_CREATED: true });
    try {
      const bob = await t.users.createUser({ username: 'bob', password: 'pw-bob' });
      const stored = await t.tokens.get(bob);
      expect(stored?.key).toMatch(KEY);
      const res = await postJson(t.app, '/api-token-auth/', { username: 'bob', password: 'pw-bob' });
      expect(res.body).toEqual({ token: stored!.key });
    } finally {
      await t.close();
    }
  });

  it('without the setting a new user has no token until one is asked for', async () => {
    const t = await tokenApp(open);
    try {
      const carol = await t.users.createUser({ username: 'carol', password: 'pw-carol' });
      expect(await t.tokens.get(carol)).toBeNull();
    } finally {
      await t.close();
    }
  });
});
