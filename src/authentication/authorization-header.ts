import type { ApiRequest } from '../request.js';
import { AuthenticationFailed } from '../exceptions.js';

/** Python's `bytes.split()` separators. */
const WHITESPACE = /[ \t\n\r\x0b\x0c]+/;

/** The whitespace of Python's `bytes.split()` other than the space. */
const OTHER_WHITESPACE = /[\t\n\r\x0b\x0c]/;

/**
 * `header.split()` as Python splits bytes. Most headers are `<keyword> <credentials>`
 * with one space: two slices, no array to filter. The last header's words
 * are kept: each scheme of a request (Basic, then Token…) reads the same
 * header, and the words are only read.
 */
function splitWords(header: string): readonly string[] {
  if (header !== lastHeader) {
    lastWords = wordsOf(header);
    lastHeader = header;
  }
  return lastWords;
}
let lastHeader = '';
let lastWords: readonly string[] = [];

function wordsOf(header: string): string[] {
  const space = header.indexOf(' ');
  if (space > 0 && space < header.length - 1 && header.indexOf(' ', space + 1) === -1 && !OTHER_WHITESPACE.test(header)) {
    return [header.slice(0, space), header.slice(space + 1)];
  }
  return header.split(WHITESPACE).filter((part) => part !== '');
}

/** Python's `a.lower() == b.lower()` on bytes: equal ignoring the case of ASCII letters only. */
function asciiEqualIgnoringCase(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x >= 0x41 && x <= 0x5a) x += 0x20;
    if (y >= 0x41 && y <= 0x5a) y += 0x20;
    if (x !== y) return false;
  }
  return true;
}

/** The two messages every `Authorization: <keyword> <credentials>` scheme raises. */
export interface AuthorizationMessages {
  readonly noCredentialsMessage: string;
  readonly spacesMessage: string;
}

/**
 * The credentials after `keyword` in the Authorization header, split as
 * DRF's `get_authorization_header(request).split()`: `null` when the header
 * is absent or names another keyword (the scheme was not attempted), 401
 * when nothing or more than one word follows the keyword.
 */
export function authorizationCredentials(req: ApiRequest, keyword: string, messages: AuthorizationMessages): string | null {
  const header = req.headers.authorization;
  if (typeof header !== 'string') return null;
  const auth = splitWords(header);
  if (auth.length === 0 || !asciiEqualIgnoringCase(auth[0]!, keyword)) return null;
  if (auth.length === 1) throw new AuthenticationFailed(messages.noCredentialsMessage);
  if (auth.length > 2) throw new AuthenticationFailed(messages.spacesMessage);
  return auth[1]!;
}
