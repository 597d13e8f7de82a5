// A tiny fetch wrapper typed by the `paths` interface openapi-typescript
// generates: the path, method, parameters, JSON body and JSON answer of each
// call are checked against the document, with no casts at the call sites.
import type { paths } from './generated/example-api.js';

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
type Json<T> = T extends { content: { 'application/json': infer J } } ? J : never;
type Op<P extends keyof paths, M extends Method> = M extends keyof paths[P] ? NonNullable<paths[P][M]> : never;
type MethodsOf<P extends keyof paths> = Extract<keyof paths[P], Method>;
type Responses<O> = O extends { responses: infer R } ? R : never;
type Ok<O> = Json<Responses<O>[Extract<keyof Responses<O>, 200 | 201>]>;
type Body<O> = O extends { requestBody: infer B } ? Json<B> : O extends { requestBody?: infer B } ? Json<NonNullable<B>> : never;
type PathParams<O> = O extends { parameters: { path: infer P } } ? P : never;
type Query<O> = O extends { parameters: { query?: infer Q } } ? Q : never;

type Options<O> = ([PathParams<O>] extends [never] ? { path?: undefined } : { path: PathParams<O> }) &
  ([Body<O>] extends [never] ? { body?: undefined } : { body: Body<O> }) & { query?: Query<O>; headers?: Record<string, string> };

export interface Answer<T> {
  status: number;
  /** The JSON body of a 2xx answer, typed from the document. */
  data: T | undefined;
  /** The body of any other answer. */
  error: unknown;
}

export function createClient(baseUrl: string, defaults: { headers?: Record<string, string> } = {}) {
  return {
    async request<P extends keyof paths, M extends MethodsOf<P>>(method: M, path: P, options: Options<Op<P, M>>): Promise<Answer<Ok<Op<P, M>>>> {
      let url = String(path);
      const pathParams: Record<string, unknown> = options.path ?? {};
      for (const [name, value] of Object.entries(pathParams)) url = url.replace(`{${name}}`, encodeURIComponent(String(value)));
      const query = new URLSearchParams();
      const params: Record<string, unknown> = options.query ?? {};
      // Arrays are form style without explode (`ordering=-year,id`), as the document declares.
      for (const [name, value] of Object.entries(params)) if (value !== undefined) query.set(name, Array.isArray(value) ? value.join(',') : String(value));
      const qs = query.toString();
      const headers: Record<string, string> = { accept: 'application/json', ...defaults.headers, ...options.headers };
      if (options.body !== undefined) headers['content-type'] = 'application/json';
      const res = await fetch(`${baseUrl}${url}${qs ? `?${qs}` : ''}`, {
        method: method.toUpperCase(),
        headers,
        ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
      });
      const text = await res.text();
      const json: unknown = text ? JSON.parse(text) : undefined;
      return res.ok ? { status: res.status, data: json as Ok<Op<P, M>>, error: undefined } : { status: res.status, data: undefined, error: json };
    },
  };
}
