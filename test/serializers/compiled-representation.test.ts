/**
 * A serializer's `toRepresentation` is compiled for its fields (one object
 * literal of fixed shape, integers, strings and integer hyperlinks converted
 * in line); the generic loop stays for what it does not cover. These tests
 * render the same instances both ways in one request and require the same
 * JSON, key order included: nested serializers, null and missing values
 * (defaults, null, keys left out, DRF's error), dotted and `*` sources,
 * hyperlinks, datetimes, decimals, many-to-many lists, `depth`, and fields
 * or serializers whose `toRepresentation` is overridden. Link templates made
 * once per request (or per origin) are checked against `reverse` itself,
 * and the datetime fast path against the regular-expression form it replaced
 * and against the parsing path; the path of a hyperlink read back without
 * the URL parser against the parser's.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  APIView,
  CharField,
  HyperlinkedIdentityField,
  IntegerField,
  Serializer,
  boolean,
  computed,
  createApp,
  datetime,
  decimal,
  dict,
  field,
  hyperlinkedIdentity,
  hyperlinkedRelated,
  integer,
  list,
  model,
  modelSerializer,
  nested,
  path,
  reverse,
  serializer,
  string,
  type ApiRequest,
  type FieldContext,
} from '../../src/index.js';
import { DateTimeField, canonicalUtc } from '../../src/serializers/fields.js';
import { hasHttpScheme, plainUrlPath } from '../../src/serializers/relations.js';

// ------------------------------------------------------------------ declarations

const Author = model('cr_author', { name: field.char({ maxLength: 50 }), created: field.datetime({ autoNowAdd: true }) });
const Tag = model('cr_tag', { name: field.char({ maxLength: 20 }) });
const Book = model('cr_book', {
  title: field.char({ maxLength: 50 }),
  author: field.foreignKey(() => Author, { onDelete: 'cascade' }),
  editor: field.foreignKey(() => Author, { onDelete: 'setNull', null: true, relatedName: 'edited' }),
  year: field.integer({ null: true }),
  price: field.decimal({ maxDigits: 6, decimalPlaces: 2, default: '0.00' }),
  created: field.datetime({ autoNowAdd: true }),
  tags: field.manyToMany(() => Tag, { relatedName: 'books', blank: true }),
});

class Shout extends CharField {
  override toRepresentation(value: unknown): string {
    return String(value).toUpperCase();
  }
}
class Doubled extends IntegerField {
  override toRepresentation(value: unknown): number {
    return 2 * Number(value);
  }
}
class PlainIdentity extends HyperlinkedIdentityField {
  override toRepresentation(value: unknown, ctx: FieldContext): string {
    return `<${super.toRepresentation(value, ctx)}>`;
  }
}
class Wrapped<S extends Record<string, never>> extends Serializer<S> {
  override toRepresentation(instance: unknown, ctx: FieldContext) {
    return { wrapped: super.toRepresentation(instance, ctx) } as never;
  }
}

const Inner = serializer({ id: integer(), name: string(), when: datetime({ allowNull: true }) });

const serializers = {
  plain: serializer({
    id: integer(),
    title: string(),
    year: integer({ allowNull: true }),
    flag: boolean(),
    price: decimal({ maxDigits: 8, decimalPlaces: 2 }),
    cheap: decimal({ maxDigits: 8, decimalPlaces: 1, coerceToString: false }),
    created: datetime(),
  }),
  missing: serializer({
    id: integer(),
    fallback: string({ default: 'dflt' }),
    callable: integer({ default: () => 41 }),
    nullable: string({ allowNull: true, readOnly: true }),
    optional: string({ required: false }),
    after: string({ required: false }),
  }),
  sources: serializer({
    everything: computed((row: { id: number }) => `#${row.id}`, { type: 'string' }),
    city: string({ source: 'address.city' }),
    deep: integer({ source: 'a.b.c', allowNull: true, required: false }),
    length: integer({ source: 'title.length' }),
    whole: nested(Inner, { source: '*' }),
  }),
  nested: serializer({
    id: integer(),
    inner: Inner,
    maybe: nested(Inner, { allowNull: true }),
    many: list(Inner),
    tags: list(string()),
    extra: dict(integer()),
  }),
  links: serializer({
    url: hyperlinkedIdentity({ viewName: 'book-detail' }),
    author: hyperlinkedRelated({ viewName: 'author-detail', source: 'author_id', readOnly: true }),
    editor: hyperlinkedRelated({ viewName: 'author-detail', source: 'editor_id', readOnly: true, allowNull: true }),
    byName: hyperlinkedRelated({ viewName: (req: ApiRequest) => (req.query['x'] ? 'author-detail' : 'author-detail'), source: 'author_id', readOnly: true }),
    title: string(),
  }),
  overridden: serializer({
    id: new Doubled(),
    title: new Shout(),
    url: new PlainIdentity({ viewName: 'book-detail' }),
  }),
  wrapped: new Wrapped({ id: integer(), title: string() } as never),
  modelHyperlinked: modelSerializer(Book, { hyperlinked: true, fields: ['url', 'id', 'title', 'author', 'editor', 'year', 'price', 'created', 'tags'] }),
  modelDepth: modelSerializer(Book, { depth: 1, fields: ['id', 'title', 'author', 'editor', 'year', 'price', 'created', 'tags'] }),
  modelKeys: modelSerializer(Book, { fields: '__all__' }),
  proto: serializer({ ['__proto__']: string(), id: integer() } as never),
  many: serializer(Object.fromEntries(Array.from({ length: 70 }, (_, i) => [`f${i}`, integer()]))),
} as const;

const author = { id: 3, name: 'Ursula', created: '2020-02-29T23:59:59.5Z' };
const rows: Record<string, unknown>[] = [
  {
    id: 7,
    title: 'Les Misérables \u2028 "quoted" \\ <b>',
    year: 1862,
    flag: 1,
    price: '12.345',
    cheap: 3.25,
    created: '2019-01-07T16:00:00.000Z',
    author_id: 3,
    editor_id: null,
    author,
    editor: null,
    tags: [
      { id: 1, name: 'classic' },
      { id: 2, name: 'fr' },
    ],
    address: { city: 'Paris' },
    a: { b: { c: 5 } },
    inner: { id: 1, name: 'x', when: '2024-05-01 12:30:00.123456+02' },
    maybe: null,
    many: [{ id: 2, name: 'y', when: null }],
    extra: { z: 1, a: '2' },
    fallback: 'given',
    callable: 9,
    nullable: 'n',
    optional: 'o',
    after: 'a',
    ...Object.fromEntries(Array.from({ length: 70 }, (_, i) => [`f${i}`, i])),
  },
  {
    id: 9_007_199_254_740_991,
    title: 42,
    year: null,
    flag: 'no',
    price: 7,
    cheap: '1e2',
    created: new Date(Date.UTC(2021, 5, 1, 2, 3, 4, 5)),
    author_id: '4',
    editor_id: 0,
    author: { id: 4, name: 'B', created: '2020-01-01T00:00:00Z' },
    editor: { id: 0, name: 'Z', created: 'garbage' },
    tags: [],
    address: null,
    a: { b: null },
    inner: { id: '3', name: 5, when: '2024-13-01T00:00:00Z' },
    maybe: { id: 1.7, name: '', when: '2024-05-01T12:30:00.000001Z' },
    many: [],
    extra: {},
    // fallback, callable, nullable, optional missing: default, default, null, left out
    after: 'kept',
  },
  {
    id: -1,
    title: '',
    year: 2.9,
    flag: true,
    price: '-0.005',
    cheap: null,
    created: '2024-05-01T12:30:00.1234567Z',
    author_id: -5,
    editor_id: 12.5,
    author,
    editor: author,
    tags: [{ id: 3, name: 't' }],
    address: { city: null },
    a: null,
    inner: { id: 0, name: 'n', when: '0001-01-01T00:00:00Z' },
    maybe: null,
    many: [{ id: 1, name: 'm', when: '2019-01-07T16:00:00+00:00' }],
    extra: { k: null },
    fallback: null,
    callable: undefined,
    // `after` missing while `optional` is present
    optional: 'here',
  },
  { id: 5, title: 'gone' }, // most attributes missing: defaults, nulls, keys left out, or DRF's error
];

/** A serializer with its generic loop in reach. */
interface BothWays {
  toRepresentation(instance: unknown, ctx: FieldContext): unknown;
  representationFrom(instance: unknown, ctx: FieldContext, start: number, done: readonly unknown[]): unknown;
}

/** What rendering gives: the JSON, or the error's message. */
function outcome(render: () => unknown): string {
  try {
    return JSON.stringify(render());
  } catch (err) {
    return `error: ${(err as Error).message}`;
  }
}

class Compare extends APIView {
  override authenticationClasses = [];
  get(req: ApiRequest) {
    const ctx: FieldContext = { request: req, view: this };
    const out: Record<string, { compiled: string; generic: string }[]> = {};
    for (const [name, s] of Object.entries(serializers)) {
      const ser = s as unknown as BothWays;
      out[name] = rows.map((row) => ({
        compiled: outcome(() => ser.toRepresentation(row, ctx)),
        // The override wraps what the generic loop gives.
        generic: outcome(() => (s instanceof Wrapped ? { wrapped: ser.representationFrom(row, ctx, 0, []) } : ser.representationFrom(row, ctx, 0, []))),
      }));
    }
    return out;
  }
}

class Detail extends APIView {
  override authenticationClasses = [];
  get() {
    return {};
  }
}

class Links extends APIView {
  override authenticationClasses = [];
  get(req: ApiRequest) {
    const ctx: FieldContext = { request: req, view: this };
    const keys = [0, 1, 22, 9_007_199_254_740_991];
    return {
      rendered: keys.map((id) => serializers.links.toRepresentation({ id, author_id: id, editor_id: id, title: 't' } as never, ctx)),
      reversed: keys.map((id) => ({
        url: reverse('book-detail', { pk: id }, { request: req }),
        author: reverse('author-detail', { pk: id }, { request: req }),
      })),
    };
  }
}

const routes = [
  path('compare/', Compare),
  path('links/', Links),
  path('books/<int:pk>/', Detail, { name: 'book-detail' }),
  path('authors/<int:pk>/', Detail, { name: 'author-detail' }),
  path('tags/<int:pk>/', Detail, { name: 'tag-detail' }),
];

describe('compiled toRepresentation', () => {
  it('gives the generic loop’s JSON, key for key, for every kind of field and instance', async () => {
    const app = await createApp({ logger: false, routes, settings: { ALLOWED_HOSTS: ['*'] } });
    try {
      for (const url of ['/compare/', '/compare/?format=json&page=2', '/compare/?x=1']) {
        for (const host of ['localhost', 'api.example.com:8443']) {
          // Twice: the second request of an origin reuses its link templates.
          for (let round = 0; round < 2; round++) {
            const res = await app.inject({ url, headers: { host } });
            expect(res.statusCode).toBe(200);
            const body = res.json() as Record<string, { compiled: string; generic: string }[]>;
            expect(Object.keys(body)).toEqual(Object.keys(serializers));
            for (const [name, results] of Object.entries(body)) {
              for (const [i, r] of results.entries()) expect(r.compiled, `${name} row ${i} ${url} ${host}`).toBe(r.generic);
            }
            // Spot checks that the cases do what they say.
            const first = JSON.parse(body['links']![0]!.compiled) as Record<string, unknown>;
            const origin = host === 'localhost' ? 'http://localhost' : 'http://api.example.com:8443';
            const format = url.includes('format=json') ? '?format=json' : '';
            expect(first).toEqual({
              url: `${origin}/books/7/${format}`,
              author: `${origin}/authors/3/${format}`,
              editor: null,
              byName: `${origin}/authors/3/${format}`,
              title: rows[0]!['title'],
            });
            expect(JSON.parse(body['missing']![1]!.compiled)).toEqual({ id: 9_007_199_254_740_991, fallback: 'dflt', callable: 41, nullable: null, after: 'kept' });
            expect(Object.keys(JSON.parse(body['missing']![2]!.compiled) as object)).toEqual(['id', 'fallback', 'callable', 'nullable', 'optional']);
            expect(body['plain']![3]!.compiled).toMatch(/^error: Got KeyError when attempting to get a value for field `flag`/);
            expect(JSON.parse(body['overridden']![0]!.compiled)).toEqual({ id: 14, title: rows[0]!['title']!.toString().toUpperCase(), url: `<${origin}/books/7/${format}>` });
            expect(JSON.parse(body['wrapped']![0]!.compiled)).toEqual({ wrapped: { id: 7, title: rows[0]!['title'] } });
            expect(Object.keys(JSON.parse(body['many']![0]!.compiled) as object)).toHaveLength(70);
            // Compiled, except where it cannot be: a `__proto__` field, and more fields than are compiled.
            for (const [name, s] of Object.entries(serializers)) {
              const compiled = (s as unknown as { compiledRepresentation: unknown }).compiledRepresentation;
              expect(typeof compiled, name).toBe(name === 'proto' || name === 'many' ? 'object' : 'function');
            }
          }
        }
      }
    } finally {
      await app.close();
    }
  });

  it('is compiled from the second call on, each serializer with its own fields', () => {
    const [a, b] = [serializer({ id: integer(), name: string() }), serializer({ id: new Doubled(), name: new Shout() })];
    const compiledOf = (s: unknown) => (s as { compiledRepresentation: unknown }).compiledRepresentation;
    const ctx: FieldContext = { request: null };
    expect(a.toRepresentation({ id: 1, name: 'x' }, ctx)).toEqual({ id: 1, name: 'x' });
    expect(compiledOf(a)).toBeUndefined();
    expect(a.toRepresentation({ id: 2, name: 'y' }, ctx)).toEqual({ id: 2, name: 'y' });
    expect(typeof compiledOf(a)).toBe('function');
    for (let i = 0; i < 2; i++) expect(b.toRepresentation({ id: 2, name: 'y' }, ctx)).toEqual({ id: 4, name: 'Y' });
    expect(typeof compiledOf(b)).toBe('function');
    expect(a.toRepresentation({ id: 3, name: 'z' }, ctx)).toEqual({ id: 3, name: 'z' });
  });

  it('puts each key in a link template that is the URL reverse gives, request after request, origin after origin', async () => {
    const app = await createApp({ logger: false, routes, settings: { ALLOWED_HOSTS: ['*'] } });
    try {
      const cases = [
        ['/links/', 'a.example'],
        ['/links/', 'b.example:81'],
        ['/links/?format=json', 'a.example'],
        ['/links/?page=1', 'a.example'],
        ['/links/', 'a.example'],
        ['/links/?format=api&format=json', 'b.example:81'],
        ['/links/', 'b.example:81'],
      ] as const;
      for (const [url, host] of cases) {
        const res = await app.inject({ url, headers: { host } });
        const body = res.json() as { rendered: { url: string; author: string; editor: string }[]; reversed: { url: string; author: string }[] };
        expect(res.statusCode).toBe(200);
        for (const [i, r] of body.rendered.entries()) {
          expect([r.url, r.author, r.editor], `${url} ${host}`).toEqual([body.reversed[i]!.url, body.reversed[i]!.author, body.reversed[i]!.author]);
        }
      }
    } finally {
      await app.close();
    }
  });
});

// ------------------------------------------------------------------ datetimes

/** The regular-expression form the character scan replaced, as it was. */
const CANONICAL_UTC_RE = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?Z$/;
function validDate(y: number, m: number, d: number): boolean {
  if (y < 1 || m < 1 || m > 12 || d < 1) return false;
  return d <= new Date(Date.UTC(y, m, 0)).getUTCDate();
}
function regexCanonicalUtc(text: string): string | null {
  const m = CANONICAL_UTC_RE.exec(text);
  if (m === null) return null;
  const y = Number(m[1]);
  const mo = Number(m[2]);
  const d = Number(m[3]);
  if (Number(m[4]) > 23 || Number(m[5]) > 59 || Number(m[6]) > 59) return null;
  if (d > 28 ? !validDate(y, mo, d) : y < 1 || mo < 1 || mo > 12 || d < 1) return null;
  const fraction = m[7];
  return fraction === undefined || Number(fraction) === 0 ? `${text.slice(0, 19)}Z` : `${text.slice(0, 19)}.${fraction.padEnd(6, '0')}Z`;
}

const digits = (n: number) => fc.stringMatching(new RegExp(`^[0-9]{${n}}$`));
/** Texts of the canonical form, valid or not, with a fraction of 0 to 7 digits. */
const canonicalish = fc
  .tuple(digits(4), digits(2), digits(2), digits(2), digits(2), digits(2), fc.option(fc.stringMatching(/^[0-9]{0,7}$/), { nil: undefined }))
  .map(([y, mo, d, h, mi, s, f]) => `${y}-${mo}-${d}T${h}:${mi}:${s}${f === undefined ? '' : `.${f}`}Z`);
/** Canonical texts with one character changed, dropped or added. */
const mutated = fc.tuple(canonicalish, fc.nat(30), fc.constantFrom('', '0', '9', 'Z', 'T', ' ', '.', ':', '-', '+', 'a', '\u0660', '/', '\n')).chain(([text, at, c]) =>
  fc.constantFrom(text.slice(0, at) + c + text.slice(at + 1), text.slice(0, at) + c + text.slice(at), text.slice(0, at) + text.slice(at + 1)),
);
/** Valid instants in the canonical form. */
const validCanonical = fc
  .tuple(fc.integer({ min: 1, max: 9999 }), fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 31 }), fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 }), fc.integer({ min: 0, max: 59 }), fc.option(fc.stringMatching(/^[0-9]{1,6}$/), { nil: undefined }))
  .filter(([y, mo, d]) => validDate(y, mo, d))
  .map(([y, mo, d, h, mi, s, f]) => {
    const p = (n: number, w = 2) => String(n).padStart(w, '0');
    return `${p(y, 4)}-${p(mo)}-${p(d)}T${p(h)}:${p(mi)}:${p(s)}${f === undefined ? '' : `.${f}`}Z`;
  });

describe('datetime representation of canonical UTC text', () => {
  it('is what the regular-expression form gave, for every text', () => {
    fc.assert(
      fc.property(fc.oneof(canonicalish, mutated, validCanonical, fc.string(), fc.string({ unit: 'binary', maxLength: 30 })), (text) => {
        expect(canonicalUtc(text)).toBe(regexCanonicalUtc(text));
      }),
      { numRuns: 20_000 },
    );
    for (const text of ['2020-02-29T00:00:00Z', '2021-02-29T00:00:00Z', '0000-01-01T00:00:00Z', '2019-01-07T16:00:00.000Z', '2019-01-07T16:00:00.5Z', '2019-01-07T16:00:00.123456Z', '2019-01-07T16:00:00.Z', '2019-01-07T24:00:00Z']) {
      expect(canonicalUtc(text), text).toBe(regexCanonicalUtc(text));
    }
  });

  it('is what parsing the time gives (the long way, with a space for the T)', () => {
    const f = new DateTimeField();
    fc.assert(
      fc.property(validCanonical, (text) => {
        const fast = f.toRepresentation(text);
        expect(canonicalUtc(text)).not.toBeNull();
        expect(canonicalUtc(text.replace('T', ' '))).toBeNull();
        expect(fast).toBe(f.toRepresentation(text.replace('T', ' ')));
      }),
      { numRuns: 20_000 },
    );
  });
});

// ------------------------------------------------------------------ hyperlinks in

const hostPart = fc.oneof(
  fc.constantFrom('localhost', '127.0.0.1', 'api.example.com', 'EXAMPLE.org', 'xn--abc.com', 'a.xn--zz', '256.1.1.1', '01.2.3.4', '1.2.3', '123', 'a.123', 'a..b', '-a.b-', 'a.0x1f', 'a_b.c', 'ex%41mple.com', '[::1]', 'ü.de'),
  fc.stringMatching(/^[a-z0-9.-]{1,12}$/),
);
const portPart = fc.constantFrom('', ':80', ':8000', ':65535', ':65536', ':99999', ':', ':0', ':08');
const pathPart = fc.oneof(
  fc.constantFrom('', '/', '/api/authors/7/', '/a/./b', '/a/../b', '/.', '/..', '/a/.', '/a/..b', '/a/.b/', '/%2e/', '/a b', '/a\\b', '/a\tb', '/é', '/a|b', '/[x]', '//x', '/a?b', '/a#b'),
  fc.stringMatching(/^\/[a-z0-9./%~@:!$&'()*+,;=\\ _-]{0,12}$/),
);
const queryPart = fc.constantFrom('', '?format=json', '#top', '?a=1#b', '? x\n', '?%zz', '?\u2028');

/** Any mix of the parts above. */
const anyUrl = fc
  .tuple(fc.constantFrom('http://', 'https://', 'HTTP://', 'http:/', 'http:'), hostPart, portPart, pathPart, queryPart)
  .map((parts) => parts.join(''));
/** URLs of the plain form's alphabet, most of them of the plain form. */
const plausibleUrl = fc
  .tuple(
    fc.constantFrom('http://', 'https://'),
    fc.oneof(
      fc.stringMatching(/^[a-zA-Z0-9][a-zA-Z0-9-]{0,5}(\.[a-zA-Z0-9-]{1,6}){0,2}$/),
      fc.tuple(fc.nat(300), fc.nat(300), fc.nat(300), fc.nat(300)).map((n) => n.join('.')),
    ),
    portPart,
    fc.stringMatching(/^(\/[a-zA-Z0-9._~!$&'()*+,;=:@-]{0,6}){0,4}\/?$/),
    queryPart,
  )
  .map((parts) => parts.join(''));

describe('the path of a hyperlink read back', () => {
  it('is the URL parser’s pathname wherever the plain form applies', () => {
    let plainOnes = 0;
    fc.assert(
      fc.property(fc.oneof(anyUrl, plausibleUrl), (value) => {
        const plain = plainUrlPath(value);
        if (plain === null) return;
        plainOnes++;
        expect(() => new URL(value), value).not.toThrow();
        expect(plain, value).toBe(new URL(value).pathname);
      }),
      { numRuns: 20_000 },
    );
    // The plain form is the common one: a good share of the generated URLs took it.
    expect(plainOnes).toBeGreaterThan(2_000);
    expect(plainUrlPath('http://127.0.0.1/api/authors/7/')).toBe('/api/authors/7/');
    expect(plainUrlPath('https://api.example.com:8443/api/authors/7/?format=json')).toBe('/api/authors/7/');
    expect(plainUrlPath('http://localhost')).toBe('/');
  });

  it('is the same read through the request’s own origin, whatever the origin', () => {
    const origin = fc.tuple(fc.constantFrom('http://', 'https://', 'HTTP://'), hostPart, portPart).map((parts) => parts.join(''));
    let throughOrigin = 0;
    fc.assert(
      fc.property(origin, fc.oneof(anyUrl, plausibleUrl), pathPart, queryPart, (own, other, path, query) => {
        for (const value of [own + path + query, other]) {
          if (value.startsWith(`${own}/`) && plainUrlPath(own) !== null) throughOrigin++;
          expect(plainUrlPath(value, own), `${value} from ${own}`).toBe(plainUrlPath(value));
        }
      }),
      { numRuns: 10_000 },
    );
    expect(throughOrigin).toBeGreaterThan(500);
  });

  it('is the same when the host was read before, for the same host with another path', () => {
    const scheme = fc.constantFrom('http://', 'https://', 'HTTP://', 'http:/', '');
    let remembered = 0;
    fc.assert(
      fc.property(fc.constantFrom('http://', 'https://'), scheme, hostPart, portPart, pathPart, queryPart, (first, second, host, port, path, query) => {
        const value = second + host + port + path + query;
        // Read with another host remembered, then with this one (when it is plain).
        plainUrlPath('http://reset.example/');
        const expected = plainUrlPath(value);
        if (plainUrlPath(`${first}${host}${port}/seen/`) !== null && value.startsWith('http')) remembered++;
        expect(plainUrlPath(value), `${value} after ${first}${host}${port}/seen/`).toBe(expected);
        if (expected !== null) expect(expected, value).toBe(new URL(value).pathname);
      }),
      { numRuns: 10_000 },
    );
    expect(remembered).toBeGreaterThan(500);
  });

  it('starts with a scheme exactly where /^https?:/i says so', () => {
    const start = fc.tuple(fc.constantFrom('', 'h', 'H', 'ht', 'http', 'HTTP', 'hTtP', 'https', 'HTTPS', 'httpx', 'htt', 'xhttp'), fc.constantFrom('', ':', 's:', 'S:', '//', 's', ':/'), fc.string({ maxLength: 4 }));
    fc.assert(
      fc.property(fc.oneof(start.map((p) => p.join('')), fc.string({ maxLength: 8 })), (value) => {
        expect(hasHttpScheme(value), value).toBe(/^https?:/i.test(value));
      }),
      { numRuns: 5_000 },
    );
    expect(hasHttpScheme('HTTPS://x')).toBe(true);
    expect(hasHttpScheme('http:')).toBe(true);
    expect(hasHttpScheme('httpss:')).toBe(false);
  });
});
