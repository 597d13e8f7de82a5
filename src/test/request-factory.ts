import type { User } from '../users/user.js';
import type { ViewTarget } from '../views/api-view.js';
import { createApp, type CreateAppOptions } from '../app.js';
import { path as route } from '../routing/routes.js';
import { injectRequest, testResponse, type TestResponse } from './api-client.js';
import { buildRequest, type FieldValue, type RequestFormat, type TestMethod, type TestRequest, type TestRequestOptions } from './requests.js';

/** Options of `new APIRequestFactory(options)`. */
export interface APIRequestFactoryOptions {
  /** How request data is encoded when a call does not say: `multipart`, as DRF, unless set. */
  format?: RequestFormat;
  /** Run CSRF checks on session-authenticated requests (DRF's `enforce_csrf_checks`). Off by default. */
  enforceCsrfChecks?: boolean;
  /** Headers of every request built. */
  headers?: Record<string, string>;
}

/**
 * DRF's `APIRequestFactory`: builds requests for calling one view, without
 * the app's routes. A Trestle view runs on a request the app's Fastify
 * pipeline makes (host check, body parsing, cookies, the reply that sets
 * headers), so a request is built here as what `app.inject` sends, and
 * `callView` runs the view in a one-route app: the view sees the request
 * exactly as in production.
 *
 * @example
 * const factory = new APIRequestFactory({ format: 'json' });
 * const request = await factory.post('/notes/', { title: 'Hello' });
 * forceAuthenticate(request, alice);
 * const res = await callView(NoteList, request, { database });
 */
export class APIRequestFactory {
  readonly format: RequestFormat;
  readonly enforceCsrfChecks: boolean;
  private readonly headers: Record<string, string>;

  constructor(options: APIRequestFactoryOptions = {}) {
    this.format = options.format ?? 'multipart';
    this.enforceCsrfChecks = options.enforceCsrfChecks ?? false;
    this.headers = { ...(options.headers ?? {}) };
  }

  get(path: string, data?: Record<string, FieldValue | readonly FieldValue[]> | null, options?: TestRequestOptions): Promise<TestRequest> {
    return this.build('GET', path, data, options);
  }

  head(path: string, data?: Record<string, FieldValue | readonly FieldValue[]> | null, options?: TestRequestOptions): Promise<TestRequest> {
    return this.build('HEAD', path, data, options);
  }

  post(path: string, data?: unknown, options?: TestRequestOptions): Promise<TestRequest> {
    return this.build('POST', path, data, options);
  }

  put(path: string, data?: unknown, options?: TestRequestOptions): Promise<TestRequest> {
    return this.build('PUT', path, data, options);
  }

  patch(path: string, data?: unknown, options?: TestRequestOptions): Promise<TestRequest> {
    return this.build('PATCH', path, data, options);
  }

  delete(path: string, data?: unknown, options?: TestRequestOptions): Promise<TestRequest> {
    return this.build('DELETE', path, data, options);
  }

  options(path: string, data?: unknown, options?: TestRequestOptions): Promise<TestRequest> {
    return this.build('OPTIONS', path, data, options);
  }

  private build(method: TestMethod, path: string, data: unknown, options: TestRequestOptions = {}): Promise<TestRequest> {
    return buildRequest(method, path, data, options, { format: this.format, headers: this.headers, enforceCsrfChecks: this.enforceCsrfChecks });
  }
}

/**
 * DRF's `force_authenticate(request, user, token)`: the view authenticates
 * the request as `user` (`request.auth` is `token`) without credentials;
 * `null` turns it off.
 */
export function forceAuthenticate(request: TestRequest, user?: User | null, token: unknown = null): void {
  request.forceUser = user ?? null;
  request.forceToken = user ? token : null;
}

/** Options of `callView`: the app the view runs in, and its route. */
export interface CallViewOptions extends Omit<CreateAppOptions, 'routes'> {
  /**
   * The view's route pattern (`notes/<int:pk>/`), for path parameters;
   * defaults to the request's path as a literal route.
   */
  route?: string;
}

/**
 * Runs `view` on `request` (from `APIRequestFactory`) in an app with that
 * one route, built from `options` (database, settings, services) and closed
 * afterwards; DRF's `view(request, pk=1)`. `res.data` is the rendered body
 * parsed back, not the handler's object.
 *
 * @example
 * const request = await factory.get('/notes/1/');
 * const res = await callView(NoteDetail, request, { database, route: 'notes/<int:pk>/' });
 */
export async function callView<T = unknown>(view: ViewTarget, request: TestRequest, options: CallViewOptions = {}): Promise<TestResponse<T>> {
  const { route: pattern, ...appOptions } = options;
  const pathOnly = request.url.split('?')[0]!;
  const app = await createApp({ logger: false, ...appOptions, routes: [route(pattern ?? pathOnly.replace(/^\//, ''), view)] });
  try {
    return testResponse<T>(await injectRequest(app, request));
  } finally {
    await app.close();
  }
}
