import { randomBytes } from 'node:crypto';

/** How a test request's body is encoded: DRF's `format` (TEST_REQUEST_DEFAULT_FORMAT is `multipart`). */
export type RequestFormat = 'json' | 'multipart';

/** The methods the test client and the request factory send. */
export type TestMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS' | 'HEAD';

/** A value of a query string or a multipart field: lists repeat the name, as Django's `urlencode(doseq=True)`. */
export type FieldValue = string | number | boolean | bigint;

/** Per-request options of `APIClient` and `APIRequestFactory` methods. */
export interface TestRequestOptions {
  /** How `data` is encoded; defaults to the client's or factory's `format`. */
  format?: RequestFormat;
  /**
   * Sends `data` (a string or bytes) as is with this Content-Type, instead
   * of encoding it (DRF's `content_type`). Not together with `format`.
   */
  contentType?: string;
  /** Headers of this request (they win over `credentials()` and the client's defaults). */
  headers?: Record<string, string>;
  /** Query parameters added to the path's. */
  query?: Record<string, FieldValue | readonly FieldValue[]>;
}

/**
 * One request as the test client sends it through `app.inject`: method,
 * URL with its query string, headers and the encoded body.
 */
export interface TestRequest {
  method: TestMethod;
  /** Path and query string: `/api/notes/?page=2`. */
  url: string;
  headers: Record<string, string>;
  /** The encoded body; `undefined` when the request has none. */
  body: Buffer | undefined;
  /** DRF's `force_authenticate(request, user, token)`; see `forceAuthenticate`. */
  forceUser: import('../users/user.js').User | null;
  forceToken: unknown;
  /** Whether CSRF checks apply to this request (off unless asked for, as in DRF's factory and client). */
  enforceCsrfChecks: boolean;
}

/**
 * The query string of `data`, as Django's `urlencode(data, doseq=True)`:
 * a list repeats the name; `null` and objects are refused.
 */
export function encodeQuery(data: Record<string, unknown>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(data)) {
    for (const item of Array.isArray(value) ? value : [value]) params.append(name, fieldText(name, item, 'query string'));
  }
  return params.toString();
}

function fieldText(name: string, value: unknown, where: string): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (value === null || value === undefined) {
    // Django's encode_multipart says the same of None.
    throw new TypeError(`Cannot encode ${String(value)} for key '${name}' as ${where} data. Did you mean to pass an empty string or omit the value?`);
  }
  throw new TypeError(`Cannot encode the ${Array.isArray(value) ? 'nested list' : 'object'} under '${name}' as ${where} data; send it with format: 'json'.`);
}

/** A URL with `extra` query parameters appended to the ones it has. */
export function withQuery(path: string, extra: string): string {
  if (extra === '') return path;
  return path.includes('?') ? `${path}${path.endsWith('?') || path.endsWith('&') ? '' : '&'}${extra}` : `${path}?${extra}`;
}

/**
 * A multipart/form-data body, as Django's `encode_multipart`: strings and
 * numbers become fields, a list repeats its name, a `Blob`/`File` becomes
 * a file part (its `name`, else the field name, as the file name).
 */
export async function encodeMultipart(data: Record<string, unknown>): Promise<{ body: Buffer; contentType: string }> {
  const boundary = `TrestleTestBoundary${randomBytes(12).toString('hex')}`;
  const chunks: Buffer[] = [];
  const line = (text: string) => chunks.push(Buffer.from(`${text}\r\n`, 'utf8'));
  for (const [name, value] of Object.entries(data)) {
    for (const item of Array.isArray(value) ? value : [value]) {
      line(`--${boundary}`);
      if (item instanceof Blob) {
        const filename = typeof (item as File).name === 'string' && (item as File).name !== '' ? (item as File).name : name;
        line(`Content-Disposition: form-data; name="${quoted(name)}"; filename="${quoted(filename)}"`);
        line(`Content-Type: ${item.type || 'application/octet-stream'}`);
        line('');
        chunks.push(Buffer.from(await item.arrayBuffer()));
        line('');
      } else {
        line(`Content-Disposition: form-data; name="${quoted(name)}"`);
        line('');
        line(fieldText(name, item, 'multipart'));
      }
    }
  }
  line(`--${boundary}--`);
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

function quoted(name: string): string {
  return name.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\r|\n/g, ' ');
}

/** Settings shared by the client and the factory. */
export interface RequestDefaults {
  format: RequestFormat;
  headers: Record<string, string>;
  enforceCsrfChecks: boolean;
}

/**
 * Builds one request as DRF's `APIRequestFactory` does: GET and HEAD put
 * `data` in the query string (the path's own query kept when there is no
 * data); the other methods encode it as the body, in `format` (JSON or
 * multipart) or as given with `contentType`; no data, no body.
 */
export async function buildRequest(
  method: TestMethod,
  path: string,
  data: unknown,
  options: TestRequestOptions,
  defaults: RequestDefaults,
): Promise<TestRequest> {
  if (!path.startsWith('/')) throw new TypeError(`A test request's path starts with "/": ${JSON.stringify(path)}.`);
  if (options.format !== undefined && options.contentType !== undefined) {
    throw new TypeError('You may not set both `format` and `contentType`.');
  }
  let url = path;
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(defaults.headers)) headers[name.toLowerCase()] = value;
  let body: Buffer | undefined;
  if (method === 'GET' || method === 'HEAD') {
    if (data !== undefined && data !== null) {
      if (typeof data !== 'object' || Array.isArray(data)) throw new TypeError(`${method} data goes into the query string: pass an object of parameters.`);
      url = withQuery(url, encodeQuery(data as Record<string, unknown>));
    }
  } else if (data !== undefined && data !== null) {
    if (options.contentType !== undefined) {
      if (typeof data !== 'string' && !(data instanceof Uint8Array)) throw new TypeError('With `contentType`, data is the body itself: a string or bytes.');
      body = typeof data === 'string' ? Buffer.from(data, 'utf8') : Buffer.from(data);
      headers['content-type'] = options.contentType;
    } else {
      const format = options.format ?? defaults.format;
      if (format === 'json') {
        body = Buffer.from(JSON.stringify(data), 'utf8');
        headers['content-type'] = 'application/json';
      } else if (format === 'multipart') {
        if (typeof data !== 'object' || Array.isArray(data)) throw new TypeError("Multipart data is an object of fields; send other values with format: 'json'.");
        const encoded = await encodeMultipart(data as Record<string, unknown>);
        body = encoded.body;
        headers['content-type'] = encoded.contentType;
      } else {
        throw new TypeError(`Invalid format '${String(format)}'. Available formats are 'multipart', 'json'.`);
      }
    }
  }
  if (options.query) url = withQuery(url, encodeQuery(options.query));
  for (const [name, value] of Object.entries(options.headers ?? {})) headers[name.toLowerCase()] = value;
  return { method, url, headers, body, forceUser: null, forceToken: null, enforceCsrfChecks: defaults.enforceCsrfChecks };
}
