import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APIView, AllowAny, clearCookie, createApp, path, setCookie, type ApiRequest, type TrestleApp } from '../../src/index.js';

class Jar extends APIView {
  override authenticationClasses = [];
  override permissionClasses = [AllowAny];
  get(req: ApiRequest) {
    setCookie(req.reply, 'theme', 'light');
    setCookie(req.reply, 'theme', 'dark', { maxAge: 60, httpOnly: true });
    setCookie(req.reply, 'lang', 'fr', { path: '/docs', sameSite: 'strict', secure: true });
    clearCookie(req.reply, 'old');
    return { cookies: { ...req.cookies } };
  }
}

let app: TrestleApp;
beforeAll(async () => {
  app = await createApp({ logger: false, settings: { ALLOWED_HOSTS: ['localhost'] }, routes: [path('jar/', Jar)] });
});
afterAll(() => app.close());

describe('cookies', () => {
  it('are read from the Cookie header and set once per name, domain and path', async () => {
    const res = await app.inject({ url: '/jar/', headers: { host: 'localhost', cookie: 'a=1; b=two%20words' } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.headers['set-cookie']).toEqual([
      'theme=dark; Max-Age=60; HttpOnly; SameSite=Lax',
      'lang=fr; Path=/docs; Secure; SameSite=Strict',
      'old=; Max-Age=0; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT; SameSite=Lax',
    ]);
    expect(res.json()).toEqual({ cookies: { a: '1', b: 'two words' } });
    const none = await app.inject({ url: '/jar/', headers: { host: 'localhost' } });
    expect(none.json()).toEqual({ cookies: {} });
  });
});
