/**
 * Cookies without a per-request hook: the `Cookie` header is parsed the
 * first time a view reads `request.cookies`, and `setCookie` writes the
 * `Set-Cookie` line on the reply at once. The `cookie` package parses and
 * serializes, with `@fastify/cookie`'s rules: `SameSite=Lax`
 * unless told otherwise, and setting a cookie again (same name, domain and
 * path) replaces the earlier line instead of adding a second one.
 */
import { parse, serialize } from 'cookie';
import type { FastifyReply } from 'fastify';

export interface CookieOptions {
  path?: string;
  domain?: string;
  /** Seconds. */
  maxAge?: number;
  expires?: Date;
  httpOnly?: boolean;
  secure?: boolean;
  sameSite?: 'lax' | 'strict' | 'none';
}

const WRITTEN = Symbol('trestle.setCookies');
type WithWritten = FastifyReply & { [WRITTEN]?: Map<string, string> };

/** The cookies of a `Cookie` header (an empty object when there is none). */
export function parseCookies(header: string | undefined): Record<string, string | undefined> {
  return header ? parse(header) : {};
}

/** Adds a `Set-Cookie` line to the reply, replacing one this request set before for the same cookie. */
export function setCookie(reply: FastifyReply, name: string, value: string, options: CookieOptions = {}): void {
  const opts: CookieOptions = { sameSite: 'lax', ...options };
  const line = serialize(name, value, opts);
  const key = `${name};${opts.domain};${opts.path ?? '/'}`;
  const written = ((reply as WithWritten)[WRITTEN] ??= new Map());
  const previous = written.get(key);
  written.set(key, line);
  const current = reply.getHeader('set-cookie');
  const lines = current === undefined ? [] : Array.isArray(current) ? current.map(String) : [String(current)];
  if (previous !== undefined) {
    const at = lines.indexOf(previous);
    if (at !== -1) lines.splice(at, 1);
  }
  lines.push(line);
  reply.removeHeader('set-cookie');
  reply.header('set-cookie', lines.length === 1 ? lines[0]! : lines);
}

/** Expires a cookie in the browser (`Expires` in 1970, `Max-Age=0`). */
export function clearCookie(reply: FastifyReply, name: string, options: CookieOptions = {}): void {
  setCookie(reply, name, '', { path: '/', ...options, expires: new Date(0), maxAge: 0 });
}
