/**
 * Media types as DRF reads them: type and subtype lower-cased, parameters
 * kept (the Accept-header versioning scheme reads `version=`), and a
 * precedence used to order the client's Accept list.
 */
export interface MediaType {
  /** The text as the client sent it, trimmed. */
  readonly raw: string;
  readonly type: string;
  readonly subtype: string;
  readonly params: Readonly<Record<string, string>>;
  /** 3: type/subtype with params; 2: type/subtype; 1: type/*; 0: * /*. */
  readonly precedence: 0 | 1 | 2 | 3;
}

export function parseMediaType(text: string): MediaType {
  const raw = text.trim();
  const parts = raw.split(';');
  const full = (parts[0] ?? '').trim().toLowerCase();
  const slash = full.indexOf('/');
  const type = slash === -1 ? full : full.slice(0, slash).trim();
  const subtype = slash === -1 ? '' : full.slice(slash + 1).trim();
  const params: Record<string, string> = {};
  for (let i = 1; i < parts.length; i++) {
    const p = parts[i]!;
    const eq = p.indexOf('=');
    if (eq === -1) continue;
    const name = p.slice(0, eq).trim().toLowerCase();
    let value = p.slice(eq + 1).trim();
    if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) {
      value = value.slice(1, -1).replace(/\\(.)/g, '$1');
    }
    if (name) params[name] = value;
  }
  let precedence: MediaType['precedence'];
  if (type === '*') precedence = 0;
  else if (subtype === '*') precedence = 1;
  else {
    const names = Object.keys(params);
    precedence = names.length === 0 || (names.length === 1 && names[0] === 'q') ? 2 : 3;
  }
  return { raw, type, subtype, params, precedence };
}

const parsedTypes = new Map<string, MediaType>();
const MAX_PARSED_TYPES = 256;

/**
 * `parseMediaType`, remembered per text (at most 256 texts, then started
 * afresh): a parser's type and a request's `Content-Type` are the same few
 * strings request after request. The result is frozen, its `params` too.
 */
export function parsedMediaType(text: string): MediaType {
  // The last text first: a request's Content-Type is a fresh string each time, compared here rather than hashed.
  if (text === lastText) return lastType!;
  let found = parsedTypes.get(text);
  if (found === undefined) {
    const parsed = parseMediaType(text);
    Object.freeze(parsed.params);
    found = Object.freeze(parsed);
    if (parsedTypes.size >= MAX_PARSED_TYPES) parsedTypes.clear();
    parsedTypes.set(text, found);
  }
  lastText = text;
  lastType = found;
  return found;
}
let lastText: string | undefined;
let lastType: MediaType | undefined;

/**
 * True when `lhs` (what the server offers: a renderer's or parser's type)
 * satisfies `rhs` (what the client sent). Parameters of `lhs` other than `q`
 * must be present with the same value in `rhs`; wildcards match anything.
 */
export function mediaTypeMatches(lhs: MediaType, rhs: MediaType): boolean {
  const offered = lhs.params;
  for (const key in offered) {
    if (key !== 'q' && rhs.params[key] !== offered[key]) return false;
  }
  if (lhs.subtype !== '*' && rhs.subtype !== '*' && rhs.subtype !== lhs.subtype) return false;
  if (lhs.type !== '*' && rhs.type !== '*' && rhs.type !== lhs.type) return false;
  return true;
}

/** Splits an Accept header into media types (DRF ignores `q` for ordering). */
export function parseAccept(header: string | undefined): MediaType[] {
  const text = header === undefined || header.trim() === '' ? '*/*' : header;
  const out: MediaType[] = [];
  for (const token of text.split(',')) {
    if (token.trim() === '') continue;
    out.push(parseMediaType(token));
  }
  return out;
}

/** Groups media types by precedence, most specific first, keeping the client's order. */
export function orderByPrecedence(types: MediaType[]): MediaType[][] {
  const groups: MediaType[][] = [[], [], [], []];
  for (const t of types) groups[3 - t.precedence]!.push(t);
  return groups.filter((g) => g.length > 0);
}
