/**
 * A serializer's validation of a dict (`toInternal`) is compiled for its
 * writable fields (constant keys, one call site per field), as its
 * representation is; the generic loop stays for what it does not cover and
 * goes on where a field waits (a promise, validators). These tests validate
 * the same bodies both ways in one request and require the same validated
 * data, key order included, or the same error map: missing, null, default
 * and callable-default values, partial updates, nested serializers and
 * lists, related fields looked up at once and through a promise, field
 * validators, inherited properties, and serializers that are not compiled
 * (a `__proto__` field, more fields than are compiled). Model views' POSTs
 * go through it from their second request on (model-serializer.test.ts).
 */
import { describe, expect, it } from 'vitest';
import {
  APIView,
  CharField,
  FieldError,
  boolean,
  createApp,
  datetime,
  decimal,
  integer,
  list,
  nested,
  path,
  primaryKeyRelated,
  serializer,
  string,
  type ApiRequest,
  type FieldContext,
} from '../../src/index.js';

class Upper extends CharField {
  override toInternal(value: unknown, ctx?: FieldContext): string {
    return super.toInternal(value, ctx).toUpperCase();
  }
}

const authors = [
  { id: 1, name: 'Le Guin' },
  { id: 2, name: 'Hugo' },
];
const Inner = serializer({ id: integer(), name: string({ maxLength: 5 }) });
const noOdd = (value: unknown) => {
  if (typeof value === 'number' && value % 2 === 1) throw new FieldError(['No odd numbers.']);
};

const serializers = {
  plain: serializer({
    id: integer({ readOnly: true }),
    title: string({ maxLength: 10 }),
    year: integer({ allowNull: true, minValue: 0 }),
    flag: boolean({ required: false }),
    price: decimal({ maxDigits: 6, decimalPlaces: 2, default: '0.00' }),
    when: datetime({ required: false }),
    shout: new Upper({ required: false }),
  }),
  defaults: serializer({
    fixed: string({ default: 'dflt' }),
    callable: integer({ default: () => 41 }),
    nullable: string({ allowNull: true, required: false }),
    optional: string({ required: false }),
    last: integer(),
  }),
  nested: serializer({
    inner: Inner,
    maybe: nested(Inner, { allowNull: true, required: false }),
    many: list(Inner, { required: false }),
    tags: list(string(), { required: false }),
  }),
  related: serializer({
    title: string(),
    author: primaryKeyRelated({ queryset: () => authors }),
    later: primaryKeyRelated({ queryset: () => Promise.resolve(authors), required: false }),
    after: integer({ required: false }),
  }),
  validated: serializer({
    a: integer(),
    odd: integer({ validators: [noOdd], required: false }),
    b: string({ required: false }),
  }),
  proto: serializer({ ['__proto__']: string({ required: false }), id: integer() } as never),
  many: serializer(Object.fromEntries(Array.from({ length: 70 }, (_, i) => [`f${i}`, integer({ required: i < 2 })]))),
} as const;

const inherited = Object.assign(Object.create({ title: 'proto', a: 3 }) as Record<string, unknown>, { year: 1 });
const bodies: unknown[] = [
  { title: 'Dune', year: 1965, flag: true, price: '9.5', when: '2024-05-01T12:30:00Z', shout: 'hi', fixed: 'x', callable: 1, nullable: null, optional: 'o', last: 3, inner: { id: 1, name: 'a' }, maybe: null, many: [{ id: 2, name: 'b' }], tags: ['t'], author: 1, later: 2, after: 4, a: 1, odd: 2, b: 'b', id: 5, f0: 0, f1: 1, f69: 69 },
  { title: 'A title longer than ten', year: null, flag: 'maybe', price: 'x', when: 'never', shout: 7, fixed: null, callable: 'n', last: null, inner: 'no', maybe: { id: 'x' }, many: [{}], tags: 'nope', author: 9, later: 9, after: 'z', a: 'q', odd: 3, b: null, f0: 'a' },
  {},
  { title: '', year: -1, price: '1234567.1', author: 2, later: null, a: 2, odd: 1, b: 'x', last: 0, inner: { id: 3, name: 'toolong' }, id: 'x', ['__proto__']: 'p' },
  inherited,
  { title: 'order', after: 1, a: 4, year: 2, price: '1', author: 2, flag: false, last: 1, f1: 2, f0: 1 },
];

/** What validating gives: the data as JSON, or the error's detail or message. */
async function outcome(validate: () => unknown): Promise<string> {
  try {
    return JSON.stringify(await validate());
  } catch (err) {
    return err instanceof FieldError ? `invalid: ${JSON.stringify(err.detail)}` : `error: ${(err as Error).message}`;
  }
}

/** A serializer with its generic loop in reach. */
interface BothWays {
  toInternal(value: unknown, ctx: FieldContext): unknown;
  internalFrom(input: unknown, ctx: FieldContext, start: number, out: Record<string, unknown>, errors: Record<string, unknown>): unknown;
  compiledInternal: unknown;
}

class Compare extends APIView {
  override authenticationClasses = [];
  async get(req: ApiRequest) {
    const out: Record<string, { compiled: string; generic: string }[]> = {};
    for (const [name, s] of Object.entries(serializers)) {
      const ser = s as unknown as BothWays;
      out[name] = [];
      for (const partial of [false, true]) {
        const ctx: FieldContext = { request: req, view: this, partial };
        for (const body of bodies) {
          out[name]!.push({
            compiled: await outcome(() => ser.toInternal(body, ctx)),
            generic: await outcome(() => ser.internalFrom(body, ctx, 0, {}, {})),
          });
        }
      }
    }
    const compiled = Object.fromEntries(Object.entries(serializers).map(([name, s]) => [name, typeof (s as unknown as BothWays).compiledInternal]));
    return { results: out, compiled };
  }
}

describe('compiled validation', () => {
  it('gives the generic loop’s data, key for key, and its errors, for every kind of field and body', async () => {
    const app = await createApp({ logger: false, routes: [path('compare/', Compare)], settings: { ALLOWED_HOSTS: ['*'] } });
    try {
      for (let round = 0; round < 2; round++) {
        const res = await app.inject({ url: '/compare/' });
        expect(res.statusCode).toBe(200);
        expect(res.headers['content-type']).toBe('application/json');
        const body = res.json() as { results: Record<string, { compiled: string; generic: string }[]>; compiled: Record<string, string> };
        expect(Object.keys(body.results)).toEqual(Object.keys(serializers));
        for (const [name, results] of Object.entries(body.results)) {
          expect(results).toHaveLength(2 * bodies.length);
          for (const [i, r] of results.entries()) expect(r.compiled, `${name} body ${i % bodies.length}${i >= bodies.length ? ' (partial)' : ''}`).toBe(r.generic);
        }
        // Compiled, except where it cannot be.
        expect(body.compiled).toEqual({ plain: 'function', defaults: 'function', nested: 'function', related: 'function', validated: 'function', proto: 'object', many: 'object' });
        // Spot checks that the cases do what they say.
        const plain = body.results['plain']!;
        expect(JSON.parse(plain[0]!.compiled)).toEqual({ title: 'Dune', year: 1965, flag: true, price: '9.50', when: '2024-05-01T12:30:00.000Z', shout: 'HI' });
        expect(plain[1]!.compiled).toMatch(/^invalid: \{"title":\["Ensure this field has no more than 10 characters\."\],"flag":\["Must be a valid boolean\."\],"price":/);
        expect(plain[2]!.compiled).toBe('invalid: {"title":["This field is required."],"year":["This field is required."]}');
        // Inherited properties are not the body's.
        expect(plain[4]!.compiled).toBe('invalid: {"title":["This field is required."]}');
        expect(plain[bodies.length + 2]!.compiled).toBe('{}');
        expect(Object.keys(JSON.parse(plain[5]!.compiled) as object)).toEqual(['title', 'year', 'flag', 'price']);
        const defaults = body.results['defaults']!;
        expect(JSON.parse(defaults[2]!.compiled.replace(/^invalid: /, ''))).toEqual({ last: ['This field is required.'] });
        expect(JSON.parse(defaults[5]!.compiled)).toEqual({ fixed: 'dflt', callable: 41, last: 1 });
        expect(defaults[1]!.compiled).toBe('invalid: {"fixed":["This field may not be null."],"callable":["A valid integer is required."],"last":["This field may not be null."]}');
        const related = body.results['related']!;
        expect(JSON.parse(related[0]!.compiled)).toEqual({ title: 'Dune', author: authors[0], later: authors[1], after: 4 });
        expect(related[1]!.compiled).toBe('invalid: {"author":["Invalid pk \\"9\\" - object does not exist."],"later":["Invalid pk \\"9\\" - object does not exist."],"after":["A valid integer is required."]}');
        const validated = body.results['validated']!;
        expect(validated[1]!.compiled).toBe('invalid: {"a":["A valid integer is required."],"odd":["No odd numbers."],"b":["This field may not be null."]}');
        expect(validated[3]!.compiled).toBe('invalid: {"odd":["No odd numbers."]}');
      }
    } finally {
      await app.close();
    }
  });
});
