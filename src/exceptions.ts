/**
 * API errors and the default exception handler.
 *
 * Every error a client can cause is an `ApiError`: it carries a status, a
 * stable `code` and a `detail` that becomes the JSON body, exactly as DRF's
 * `APIException` family does.
 */

export type ErrorDetail = string | ErrorDetail[] | { [field: string]: ErrorDetail };

export class ApiError extends Error {
  static statusCode = 500;
  static defaultDetail = 'A server error occurred.';
  static defaultCode = 'error';

  readonly statusCode: number;
  readonly detail: ErrorDetail;
  readonly code: string;
  /** Extra response headers (`WWW-Authenticate`, `Retry-After`, `Allow`). */
  headers: Record<string, string> = {};

  constructor(detail?: ErrorDetail, code?: string) {
    const ctor = new.target as typeof ApiError;
    const d = detail ?? ctor.defaultDetail;
    super(typeof d === 'string' ? d : JSON.stringify(d));
    this.name = ctor.name;
    this.statusCode = ctor.statusCode;
    this.detail = d;
    this.code = code ?? ctor.defaultCode;
  }

  /** The JSON body DRF sends for this error. */
  toBody(): unknown {
    return typeof this.detail === 'string' ? { detail: this.detail } : this.detail;
  }
}

export class ParseError extends ApiError {
  static override statusCode = 400;
  static override defaultDetail = 'Malformed request.';
  static override defaultCode = 'parse_error';
}

export class ValidationError extends ApiError {
  static override statusCode = 400;
  static override defaultDetail = 'Invalid input.';
  static override defaultCode = 'invalid';

  constructor(detail?: ErrorDetail, code?: string) {
    // DRF wraps a bare message in a list: ValidationError('x') -> ["x"].
    super(typeof detail === 'string' ? [detail] : detail ?? ['Invalid input.'], code);
  }

  override toBody(): unknown {
    return this.detail;
  }
}

export class AuthenticationFailed extends ApiError {
  static override statusCode = 401;
  static override defaultDetail = 'Incorrect authentication credentials.';
  static override defaultCode = 'authentication_failed';
}

export class NotAuthenticated extends ApiError {
  static override statusCode = 401;
  static override defaultDetail = 'Authentication credentials were not provided.';
  static override defaultCode = 'not_authenticated';
}

export class PermissionDenied extends ApiError {
  static override statusCode = 403;
  static override defaultDetail = 'You do not have permission to perform this action.';
  static override defaultCode = 'permission_denied';
}

export class NotFound extends ApiError {
  static override statusCode = 404;
  static override defaultDetail = 'Not found.';
  static override defaultCode = 'not_found';
}

export class MethodNotAllowed extends ApiError {
  static override statusCode = 405;
  static override defaultDetail = 'Method "{method}" not allowed.';
  static override defaultCode = 'method_not_allowed';

  constructor(method: string, detail?: string) {
    super(detail ?? `Method "${method}" not allowed.`);
  }
}

/**
 * 409: the request conflicts with the state of the data, e.g. deleting a row
 * that other rows still refer to (DRF has no such class; Django's
 * `ProtectedError` would be a 500 there).
 */
export class Conflict extends ApiError {
  static override statusCode = 409;
  static override defaultDetail = 'The request conflicts with the current state of the data.';
  static override defaultCode = 'conflict';
}

export class NotAcceptable extends ApiError {
  static override statusCode = 406;
  static override defaultDetail = 'Could not satisfy the request Accept header.';
  static override defaultCode = 'not_acceptable';
}

export class UnsupportedMediaType extends ApiError {
  static override statusCode = 415;
  static override defaultDetail = 'Unsupported media type "{media_type}" in request.';
  static override defaultCode = 'unsupported_media_type';

  constructor(mediaType: string, detail?: string) {
    super(detail ?? `Unsupported media type "${mediaType}" in request.`);
  }
}

export class Throttled extends ApiError {
  static override statusCode = 429;
  static override defaultDetail = 'Request was throttled.';
  static override defaultCode = 'throttled';

  readonly wait: number | null;

  constructor(wait: number | null = null, detail?: string) {
    const seconds = wait === null ? null : Math.ceil(wait);
    let message = detail ?? 'Request was throttled.';
    // As DRF: the expected wait is appended even to a custom message.
    if (seconds !== null) {
      message += ` Expected available in ${seconds} second${seconds === 1 ? '' : 's'}.`;
    }
    super(message);
    this.wait = seconds;
    if (seconds) this.headers['Retry-After'] = String(seconds);
  }
}

/** 400 for a Host header that is not in ALLOWED_HOSTS (Django's DisallowedHost). */
export class DisallowedHost extends ApiError {
  static override statusCode = 400;
  static override defaultDetail = 'Invalid HTTP_HOST header.';
  static override defaultCode = 'disallowed_host';
}

/** 413 for a body over the configured limit. */
export class PayloadTooLarge extends ApiError {
  static override statusCode = 413;
  static override defaultDetail = 'Request body is too large.';
  static override defaultCode = 'payload_too_large';
}

/**
 * 503 while a server the app depends on (the database, Redis) is
 * unreachable. Carries `Retry-After` (seconds) so clients and load
 * balancers back off instead of retrying at once.
 */
export class ServiceUnavailable extends ApiError {
  static override statusCode = 503;
  static override defaultDetail = 'Service temporarily unavailable, try again later.';
  static override defaultCode = 'service_unavailable';

  constructor(retryAfter: number | null = null, detail?: string) {
    super(detail);
    if (retryAfter !== null && retryAfter > 0) this.headers['Retry-After'] = String(Math.ceil(retryAfter));
  }
}

/** A configuration mistake found at start-up (unknown setting, bad route). */
export class ImproperlyConfigured extends Error {
  override name = 'ImproperlyConfigured';
}

/**
 * A programming error (TypeError, ReferenceError, …) thrown inside an
 * authentication scheme while `request.user` was being resolved. Wrapped so
 * it is never mistaken for "not authenticated".
 */
export class WrappedAttributeError extends Error {
  override name = 'WrappedAttributeError';
  constructor(readonly original: unknown) {
    super(original instanceof Error ? original.message : String(original), { cause: original });
  }
}

export interface ExceptionContext {
  /** The request being handled, when there is one. */
  request?: unknown;
  /** The view handling it, when there is one. */
  view?: unknown;
}

export interface ErrorResponseData {
  status: number;
  body: unknown;
  headers: Record<string, string>;
}

/**
 * Turns an error into a response, or returns `null` for errors it does not
 * know (which then become a logged 500). Replaceable through the
 * `EXCEPTION_HANDLER` setting.
 */
export type ExceptionHandler = (err: unknown, ctx: ExceptionContext) => ErrorResponseData | null;

export const exceptionHandler: ExceptionHandler = (err) => {
  if (err instanceof ApiError) {
    return { status: err.statusCode, body: err.toBody(), headers: { ...err.headers } };
  }
  return null;
};

/** The body of every 500: nothing about the cause leaks to the client. */
export const SERVER_ERROR_BODY = Object.freeze({ detail: 'A server error occurred.' });
