import type { Source } from '../pagination/base.js';
import type { ApiRequest } from '../request.js';
import { absoluteRouteUrl, reverse } from '../routing/reverse.js';
import { NamespaceVersioning } from '../versioning/namespace.js';
import { findOneNow } from '../views/source.js';
import { isThenable } from '../utils/thenable.js';
import { integerKey } from './deferred-lookups.js';
import { Field, pythonType, type FieldContext, type FieldFlags, type FieldOf, type FieldOptions, type JsonSchema } from './field.js';
import { IntegerField } from './fields.js';

/** Where a related field looks objects up: an array or a Kysely select builder, per request. */
export type RelatedQueryset<R> = (request: ApiRequest) => Source<R> | Promise<Source<R>>;

export interface RelatedOptions<R> extends FieldOptions<R> {
  /** The objects a value may name; required unless `readOnly`. */
  queryset?: RelatedQueryset<R>;
}

/**
 * The base of DRF's related fields: the internal value is the related
 * object (looked up in `queryset`), the representation is computed from the
 * attribute the field reads, which may be the object itself or just its key
 * (a foreign-key column such as `author_id`), so rendering a page never
 * queries the database.
 */
export abstract class RelatedField<R, Out> extends Field<R, Out> {
  readonly kind = 'field';
  override readonly inputType = 'select';
  readonly queryset: RelatedQueryset<R> | undefined;

  constructor(options: RelatedOptions<R>) {
    super(options);
    this.queryset = options.queryset;
    if (!this.readOnly && !this.queryset) {
      throw new TypeError('Relational field must provide a `queryset` argument, or set readOnly: true.');
    }
  }

  /** The related objects for `request` (for lookups and for a form's select): `await` it. */
  getQueryset(request: ApiRequest | null): Source<R> | Promise<Source<R>> {
    if (!this.queryset) throw new TypeError('This related field is read-only: it has no queryset.');
    if (!request) throw new TypeError('A related field needs the request to look objects up.');
    return this.queryset(request);
  }

  /**
   * The object whose `field` equals `value`, or `undefined`; without a
   * promise where the queryset and the database answer at once (see
   * `findOneNow`).
   */
  protected lookup(field: string, value: unknown, ctx: FieldContext): R | undefined | Promise<R | undefined> {
    const source = this.getQueryset(ctx.request);
    if (isThenable(source)) return source.then((s) => findOneNow(s, field, value));
    return findOneNow(source, field, value);
  }

  /** `lookup`'s object, or what `missing()` throws when there is none. */
  protected lookupOrFail(field: string, value: unknown, ctx: FieldContext, missing: () => never): R | Promise<R> {
    const obj = this.lookup(field, value, ctx);
    if (isThenable(obj)) return obj.then((o) => (o === undefined ? missing() : o));
    return obj === undefined ? missing() : obj;
  }

  /**
   * The row whose `field` is `key`, as that key alone, when the create
   * validating this field leaves the lookup to the insert
   * (`ctx.deferLookups`, see deferred-lookups.ts); `undefined` when it
   * must look now.
   */
  protected leftToInsert(field: string, key: unknown, ctx: FieldContext, missing: () => never): R | undefined {
    const deferral = ctx.deferLookups;
    if (deferral === undefined) return undefined;
    const id = integerKey(key);
    if (id === null) return undefined;
    const row = { [field]: id };
    return deferral.leave(this, id, row, () => this.lookupOrFail(field, key, ctx, missing)) ? (row as R) : undefined;
  }

  /** The key of a rendered value: the attribute itself, or `field` of an object. */
  protected keyOf(value: unknown, field: string): unknown {
    return value !== null && typeof value === 'object' && !(value instanceof Date) ? (value as Record<string, unknown>)[field] : value;
  }
}

// ------------------------------------------------------------------ primary key

export interface PrimaryKeyRelatedOptions<R> extends RelatedOptions<R> {
  /** The attribute holding the key (default `id`). */
  pkAttribute?: string;
  /** Validates and renders the key (default: an integer, as an auto-increment id). */
  pkField?: Field<unknown, unknown, FieldFlags>;
}

/**
 * DRF's `PrimaryKeyRelatedField`: `{"author": 3}` in, the author row inside,
 * `3` out.
 */
export class PrimaryKeyRelatedField<R, K = number> extends RelatedField<R, K> {
  static override defaultMessages: Readonly<Record<string, string>> = {
    does_not_exist: 'Invalid pk "{pk_value}" - object does not exist.',
    incorrect_type: 'Incorrect type. Expected pk value, received {data_type}.',
  };
  readonly pkAttribute: string;
  readonly pkField: Field<unknown, unknown, FieldFlags>;
  constructor(options: PrimaryKeyRelatedOptions<R>) {
    super(options);
    this.pkAttribute = options.pkAttribute ?? 'id';
    this.pkField = options.pkField ?? new IntegerField();
  }
  toInternal(value: unknown, ctx: FieldContext): R | Promise<R> {
    if (typeof value === 'boolean' || value === null || typeof value === 'object') this.fail('incorrect_type', { data_type: pythonType(value) });
    const incorrect = () => this.fail('incorrect_type', { data_type: pythonType(value) });
    let pk: unknown;
    try {
      pk = this.pkField.toInternal(value, ctx);
    } catch {
      incorrect();
    }
    if (isThenable(pk)) return Promise.resolve(pk).then((key) => this.pkLookup(key, value, ctx), incorrect);
    return this.pkLookup(pk, value, ctx);
  }
  private pkLookup(pk: unknown, value: unknown, ctx: FieldContext): R | Promise<R> {
    const missing = () => this.fail('does_not_exist', { pk_value: String(value) });
    return this.leftToInsert(this.pkAttribute, pk, ctx, missing) ?? this.lookupOrFail(this.pkAttribute, pk, ctx, missing);
  }
  toRepresentation(value: unknown, ctx: FieldContext): K {
    return this.pkField.toRepresentation(this.keyOf(value, this.pkAttribute), ctx) as K;
  }
  valueSchema(): JsonSchema {
    return this.pkField.valueSchema('request');
  }
}

// ------------------------------------------------------------------ slug

export interface SlugRelatedOptions<R> extends RelatedOptions<R> {
  /** The attribute that names an object (`username`, `isbn`). */
  slugField: string;
}

/** DRF's `SlugRelatedField`: `{"author": "le-guin"}` in, the row inside, its `slugField` out. */
export class SlugRelatedField<R> extends RelatedField<R, string> {
  static override defaultMessages: Readonly<Record<string, string>> = {
    does_not_exist: 'Object with {slug_name}={value} does not exist.',
    invalid: 'Invalid value.',
  };
  readonly slugField: string;
  constructor(options: SlugRelatedOptions<R>) {
    super(options);
    this.slugField = options.slugField;
  }
  toInternal(value: unknown, ctx: FieldContext): R | Promise<R> {
    if (typeof value !== 'string' && typeof value !== 'number') this.fail('invalid');
    if (typeof value === 'string' && (value.length > 1000 || value.includes('\u0000'))) this.fail('invalid');
    return this.lookupOrFail(this.slugField, value, ctx, () => this.fail('does_not_exist', { slug_name: this.slugField, value: String(value) }));
  }
  toRepresentation(value: unknown): string {
    return String(this.keyOf(value, this.slugField));
  }
  valueSchema(): JsonSchema {
    return { type: 'string' };
  }
}

// ------------------------------------------------------------------ hyperlinks

export interface HyperlinkOptions {
  /** The route name of the detail view (`author-detail`, `versioned:book-detail`), or a function of the request giving it. */
  viewName: string | ((request: ApiRequest) => string);
  /** The attribute of the object the URL carries (default `id`). */
  lookupField?: string;
  /** The route parameter that holds it (default `pk`, as routers name it). */
  lookupUrlKwarg?: string;
}

/** A key no table holds, put in a route's path to find it again in the absolute URL. */
const STAND_IN_KEY = '8102763945517329';

/**
 * The request the link templates were last made for, and its turn: a
 * template is reused while the turn it was made in is the current one.
 * One slot, not a `WeakMap` entry per request (work for every
 * young-generation collection); a page's rows are serialized in one go, so
 * the slot serves all of them.
 */
export const linkTurn: {
  request: ApiRequest | null;
  turn: number;
  /** The origin (`scheme://host`) of the turn's request when it has no `?format=`, `null` when it has; `undefined` until needed. */
  origin: string | null | undefined;
} = { request: null, turn: 0, origin: undefined };

/**
 * Per hyperlinked field: its link's URL text before and after an integer
 * key for the request of turn `turn` (`null`: reverse runs per row); the
 * route path around the key in the routes it was asked of; and the last
 * template made for a request without `?format=`, by the origin and route
 * path it was made for.
 */
export class LinkTemplateSlot {
  turn = -1;
  template: readonly [string, string] | null = null;
  routes: unknown = null;
  path: readonly [string, string] | null = null;
  origin: string | null = null;
  originPath: readonly [string, string] | null = null;
  originTemplate: readonly [string, string] | null = null;
}

/**
 * The URL of an integer key at a fixed view name is the same text around the
 * key's digits for every row of a request (when the route writes digits as
 * they are, and no versioning scheme takes part): the route's path around
 * the key is worked out once by the routes (`integerPathTemplate`), made
 * absolute once per request (once per origin for requests without
 * `?format=`), then each row only puts its digits in. A page of twenty books
 * with two links each reversed forty times before.
 */
export function linkTemplate(options: Required<HyperlinkOptions>, slot: LinkTemplateSlot, request: ApiRequest): readonly [string, string] | null {
  if (linkTurn.request !== request) {
    linkTurn.request = request;
    linkTurn.turn++;
    linkTurn.origin = undefined;
  }
  if (slot.turn === linkTurn.turn) return slot.template;
  const template = makeLinkTemplate(options, slot, request);
  slot.turn = linkTurn.turn;
  slot.template = template;
  return template;
}

function makeLinkTemplate(options: Required<HyperlinkOptions>, slot: LinkTemplateSlot, request: ApiRequest): readonly [string, string] | null {
  if (request.versioningScheme) return null;
  const routes = request.app.services.get('routes');
  if (slot.routes !== routes) {
    slot.path = routes.integerPathTemplate(options.viewName as string, options.lookupUrlKwarg);
    slot.routes = routes;
  }
  const path = slot.path;
  if (path === null) return null;
  // Without a `?format=` to carry, the link is the origin, then the path.
  if (linkTurn.origin === undefined) {
    linkTurn.origin = request.query['format'] === undefined ? request.origin : null;
  }
  const origin = linkTurn.origin;
  if (origin !== null && origin === slot.origin && path === slot.originPath) return slot.originTemplate;
  // As reverse(…, { request }) with a stand-in key: absolute, with the request's `?format=`.
  const url = absoluteRouteUrl(path[0] + STAND_IN_KEY + path[1], request);
  const at = url.indexOf(STAND_IN_KEY);
  if (at === -1 || url.indexOf(STAND_IN_KEY, at + STAND_IN_KEY.length) !== -1) return null;
  const template = [url.slice(0, at), url.slice(at + STAND_IN_KEY.length)] as const;
  if (origin !== null && template[0] === origin + path[0] && template[1] === path[1]) {
    slot.origin = origin;
    slot.originPath = path;
    slot.originTemplate = template;
  }
  return template;
}

/** The URL of `key` at `viewName`, made absolute and versioned by the request, as DRF's `get_url`. */
function hyperlink(options: Required<HyperlinkOptions>, slot: LinkTemplateSlot, key: unknown, ctx: FieldContext): string | null {
  if (key === null || key === undefined || key === '') return null;
  if (!ctx.request) {
    throw new TypeError(`A hyperlinked field needs the request to build its URL (view "${options.viewName}").`);
  }
  if (typeof options.viewName === 'string' && typeof key === 'number' && Number.isSafeInteger(key) && key >= 0) {
    const template = linkTemplate(options, slot, ctx.request);
    if (template !== null) return template[0] + key + template[1];
  }
  const name = typeof options.viewName === 'function' ? options.viewName(ctx.request) : options.viewName;
  return reverse(name, { [options.lookupUrlKwarg]: key as string | number }, { request: ctx.request });
}

/**
 * `http://host[:port]/path[?query][#fragment]` where the host is a dotted
 * IPv4 address or names whose last label starts with a letter (no `xn--`
 * label), and the path has only characters the URL parser keeps as they are
 * and no `.` or `..` segment: the path `new URL(value).pathname` gives,
 * read without parsing the URL (about 3 µs). `null` for any other form,
 * which the URL parser reads. With `origin` (the request's own scheme and
 * host), a URL that starts with it has only its path read.
 */
export function plainUrlPath(value: string, origin?: string): string | null {
  if (origin !== undefined && value.charCodeAt(origin.length) === 0x2f /* / */ && value.startsWith(origin) && plainOrigin(origin)) {
    // The request's own `scheme://host[:port]` then a `/`: the host is read as it was last time, only the rest is left.
    return plainPathAt(value, origin.length);
  }
  // `http://` or `https://` then the authority found plain last time, then a `/`: only the path is left to read.
  const start = value.startsWith('http://') ? 7 : value.startsWith('https://') ? 8 : 0;
  if (start !== 0) {
    const known = lastAuthority;
    if (value.charCodeAt(start + known.length) === 0x2f /* / */ && known.length > 0 && value.startsWith(known, start)) return plainPathAt(value, start + known.length);
  }
  const m = PLAIN_URL.exec(value);
  if (m === null) return null;
  const [, host, port, path] = m;
  if (port !== undefined && Number(port) > 65_535) return null;
  if (!IPV4.test(host!) && !(NAMES.test(host!) && LAST_LABEL_LETTER.test(host!))) return null;
  if (path === undefined) return '/';
  if (DOT_SEGMENT.test(path)) return null;
  lastAuthority = port === undefined ? host! : `${host!}:${port}`;
  return path;
}

/** The `host[:port]` of the last URL `plainUrlPath` found plain with a path (most hyperlinks sent name one host). */
let lastAuthority = '';

/**
 * The path of `value` from `start` (a `/`) to its end or its first `?` or
 * `#`, when it has only the characters the URL parser keeps (those of
 * `PLAIN_URL`'s path) and no `.` or `..` segment; else `null`.
 */
function plainPathAt(value: string, start: number): string | null {
  const n = value.length;
  let i = start;
  let dot = false;
  for (; i < n; i++) {
    const c = value.charCodeAt(i);
    if (c === 0x3f /* ? */ || c === 0x23 /* # */) break;
    if (c > 0x7e || PATH_CHARS[c] === 0) return null;
    if (c === 0x2e /* . */ && value.charCodeAt(i - 1) === 0x2f) dot = true;
  }
  const path = value.slice(start, i);
  return dot && DOT_SEGMENT.test(path) ? null : path;
}

/** 1 for the characters of `PLAIN_URL`'s path. */
const PATH_CHARS = new Uint8Array(0x7f);
for (const c of "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$&'()*+,;=:@/") PATH_CHARS[c.charCodeAt(0)] = 1;

/** `/^https?:/i.test(value)` without a regular expression. */
export function hasHttpScheme(value: string): boolean {
  if ((value.charCodeAt(0) | 0x20) !== 0x68 || (value.charCodeAt(1) | 0x20) !== 0x74 || (value.charCodeAt(2) | 0x20) !== 0x74 || (value.charCodeAt(3) | 0x20) !== 0x70) return false;
  const c = value.charCodeAt(4);
  return c === 0x3a /* : */ || ((c | 0x20) === 0x73 /* s */ && value.charCodeAt(5) === 0x3a);
}

/** True when `origin` (a request's `scheme://host[:port]`) is of the plain form; the last answer is kept (origins are shared strings). */
function plainOrigin(origin: string): boolean {
  if (origin !== lastOrigin) {
    lastOriginPlain = plainUrlPath(origin) !== null;
    lastOrigin = origin;
  }
  return lastOriginPlain;
}
let lastOrigin = '';
let lastOriginPlain = false;

const PLAIN_URL = /^https?:\/\/([A-Za-z0-9.-]+)(?::([0-9]{1,5}))?(\/[A-Za-z0-9\-._~!$&'()*+,;=:@/]*)?(?:[?#][^]*)?$/;
const IPV4_PART = '(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])';
const IPV4 = new RegExp(`^${IPV4_PART}(?:\\.${IPV4_PART}){3}$`);
/** Labels of letters, digits and hyphens, none empty, none `xn--`, the last starting with a letter. */
const NAMES = /^(?!xn--)[A-Za-z0-9-]+(?:\.(?!xn--)[A-Za-z0-9-]+)*$/i;
const LAST_LABEL_LETTER = /(?:^|\.)[A-Za-z][A-Za-z0-9-]*$/;
const DOT_SEGMENT = /\/\.\.?(?:\/|$)/;

/**
 * DRF's `HyperlinkedRelatedField`: renders the related object's detail URL
 * (absolute, carrying the request's version) and **accepts that URL back**:
 *
 *     PUT /api/books/7/ HTTP/1.1
 *     Content-Type: application/json
 *
 *     {"title": "…", "author": "http://localhost/api/authors/3/", …}
 *
 * The path of the URL is resolved against the app's routes (scheme and host
 * are not checked, as DRF); it must be the route `viewName` (in the request's
 * version namespace with namespace versioning) and name an object of the
 * queryset.
 */
export class HyperlinkedRelatedField<R> extends RelatedField<R, string> {
  static override defaultMessages: Readonly<Record<string, string>> = {
    no_match: 'Invalid hyperlink - No URL match.',
    incorrect_match: 'Invalid hyperlink - Incorrect URL match.',
    does_not_exist: 'Invalid hyperlink - Object does not exist.',
    incorrect_type: 'Incorrect type. Expected URL string, received {data_type}.',
  };
  readonly link: Required<HyperlinkOptions>;
  /** This field's link template (see `linkTemplate`). */
  readonly linkSlot = new LinkTemplateSlot();
  constructor(options: RelatedOptions<R> & HyperlinkOptions) {
    super(options);
    this.link = {
      viewName: options.viewName,
      lookupField: options.lookupField ?? 'id',
      lookupUrlKwarg: options.lookupUrlKwarg ?? 'pk',
    };
  }

  toInternal(value: unknown, ctx: FieldContext): R | Promise<R> {
    if (typeof value !== 'string') this.fail('incorrect_type', { data_type: pythonType(value) });
    const request = ctx.request;
    if (!request) throw new TypeError('A hyperlinked field needs the request to read a URL.');
    let path = value;
    if (hasHttpScheme(value)) {
      const plain = plainUrlPath(value, request.origin);
      if (plain !== null) path = plain;
      else {
        try {
          path = new URL(value).pathname;
        } catch {
          this.fail('no_match');
        }
      }
    } else {
      path = value.split(/[?#]/)[0]!;
    }
    // Without a '%' there is nothing to decode (and nothing decodeURIComponent could refuse).
    if (path.includes('%')) {
      try {
        path = decodeURIComponent(path);
      } catch {
        this.fail('no_match');
      }
    }
    if (!path.startsWith('/') || path.length > 2048) this.fail('no_match');
    const found = request.app.services.get('routes').resolve(path);
    if (!found) this.fail('no_match');
    const scheme = request.versioningScheme;
    const viewName = typeof this.link.viewName === 'function' ? this.link.viewName(request) : this.link.viewName;
    const expected = scheme instanceof NamespaceVersioning && request.version ? `${request.version}:${viewName}` : viewName;
    if (found.route.match.viewName !== expected) this.fail('incorrect_match');
    const key = found.params[this.link.lookupUrlKwarg];
    if (key === undefined) this.fail('does_not_exist');
    const missing = () => this.fail('does_not_exist');
    return this.leftToInsert(this.link.lookupField, key, ctx, missing) ?? this.lookupOrFail(this.link.lookupField, key, ctx, missing);
  }

  toRepresentation(value: unknown, ctx: FieldContext): string {
    return hyperlink(this.link, this.linkSlot, this.keyOf(value, this.link.lookupField), ctx) as string;
  }

  valueSchema(): JsonSchema {
    return { type: 'string', format: 'uri' };
  }
}

/**
 * DRF's `HyperlinkedIdentityField`: the instance's own URL (`url`),
 * always read-only.
 */
export class HyperlinkedIdentityField extends Field<never, string> {
  readonly kind = 'field';
  readonly link: Required<HyperlinkOptions>;
  /** This field's link template (see `linkTemplate`). */
  readonly linkSlot = new LinkTemplateSlot();
  constructor(options: HyperlinkOptions & Omit<FieldOptions<never>, 'readOnly' | 'writeOnly' | 'default' | 'required'>) {
    super({ ...options, readOnly: true, source: options.source ?? '*' });
    this.link = {
      viewName: options.viewName,
      lookupField: options.lookupField ?? 'id',
      lookupUrlKwarg: options.lookupUrlKwarg ?? 'pk',
    };
  }
  toInternal(): never {
    throw new TypeError('HyperlinkedIdentityField is read-only.');
  }
  toRepresentation(value: unknown, ctx: FieldContext): string {
    const key = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[this.link.lookupField] : value;
    return hyperlink(this.link, this.linkSlot, key, ctx) as string;
  }
  valueSchema(): JsonSchema {
    return { type: 'string', format: 'uri' };
  }
}

// ------------------------------------------------------------------ factories

/* eslint-disable @typescript-eslint/no-explicit-any */

/** `{"author": 3}`: an object of `queryset` by primary key (`PrimaryKeyRelatedField`). */
export function primaryKeyRelated<R, const O extends PrimaryKeyRelatedOptions<any>>(
  options: O & { queryset?: RelatedQueryset<R> },
): FieldOf<O, R, number> {
  return new PrimaryKeyRelatedField(options) as unknown as FieldOf<O, R, number>;
}

/** `{"author": "le-guin"}`: an object of `queryset` by `slugField` (`SlugRelatedField`). */
export function slugRelated<R, const O extends SlugRelatedOptions<any>>(options: O & { queryset?: RelatedQueryset<R> }): FieldOf<O, R, string> {
  return new SlugRelatedField(options) as unknown as FieldOf<O, R, string>;
}

/** `{"author": "http://…/authors/3/"}`: an object of `queryset` by its detail URL (`HyperlinkedRelatedField`). */
export function hyperlinkedRelated<R, const O extends RelatedOptions<any> & HyperlinkOptions>(
  options: O & { queryset?: RelatedQueryset<R> },
): FieldOf<O, R, string> {
  return new HyperlinkedRelatedField(options) as unknown as FieldOf<O, R, string>;
}

/* eslint-enable @typescript-eslint/no-explicit-any */

/** The instance's own URL (`HyperlinkedIdentityField`), read-only. */
export function hyperlinkedIdentity(
  options: HyperlinkOptions & Omit<FieldOptions<never>, 'readOnly' | 'writeOnly' | 'default' | 'required'>,
): Field<never, string, { readOnly: true; writeOnly: false; optional: true }> {
  return new HyperlinkedIdentityField(options) as unknown as Field<never, string, { readOnly: true; writeOnly: false; optional: true }>;
}
