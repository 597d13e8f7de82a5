import type { IncomingMessage } from 'node:http';
import type { Authentication } from './authentication/base.js';
import type { User } from './users/user.js';

/**
 * What the test client (`trestle/test`) asks of one request it sends through
 * `app.inject`. It travels on the request object itself, under a symbol
 * no other module can name: a request from a socket is an
 * `http.IncomingMessage` Node builds, which never carries it, so nothing a
 * client sends (header, cookie, body, query) can turn either switch on.
 */
export interface InProcessRequest {
  /** Django's `_dont_enforce_csrf_checks`: CSRF checks pass without a token. */
  readonly skipCsrfChecks: boolean;
  /** DRF's `force_authenticate`: the request is authenticated as this user, whatever it carries. */
  readonly forceUser: User | null;
  /** `request.auth` of a forced authentication. */
  readonly forceToken: unknown;
}

const IN_PROCESS = Symbol('trestle.inProcessRequest');

/**
 * A request class for light-my-request's documented `Request` option: the
 * injected request inherits from it, so it carries `state` under the symbol.
 */
export function inProcessRequestClass(state: InProcessRequest, base: typeof IncomingMessage): typeof IncomingMessage {
  class TestRequest extends base {}
  Object.defineProperty(TestRequest.prototype, IN_PROCESS, { value: Object.freeze({ ...state }) });
  return TestRequest;
}

/** The test client's wishes for this request, or `undefined` for every other request. */
export function inProcessRequest(raw: IncomingMessage | undefined): InProcessRequest | undefined {
  return (raw as unknown as Record<symbol, InProcessRequest | undefined> | undefined)?.[IN_PROCESS];
}

/** DRF's `ForcedAuthentication`: the scheme a forced request is authenticated by, alone. */
export class ForcedAuthentication implements Authentication {
  constructor(
    readonly forceUser: User,
    readonly forceToken: unknown,
  ) {}

  authenticate(): [User, unknown] {
    return [this.forceUser, this.forceToken];
  }
}
