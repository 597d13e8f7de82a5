import type { AppContext, PluginClass } from '../context.js';
import type { ApiRequest } from '../request.js';
import type { Authentication, AuthenticationClass } from '../authentication/base.js';
import type { Permission, PermissionClass } from '../permissions.js';
import type { Throttle, ThrottleClass } from '../throttling/base.js';
import type { Renderer, RendererClass } from '../renderers/base.js';
import type { Parser, ParserClass } from '../parsers/base.js';
import type { Versioning, VersioningClass } from '../versioning/base.js';
import {
  ApiError,
  MethodNotAllowed,
  NotAuthenticated,
  AuthenticationFailed,
  Conflict,
  ParseError,
  PermissionDenied,
  ServiceUnavailable,
  Throttled,
  ValidationError,
  type ExceptionHandler,
} from '../exceptions.js';
import { isOutageError, reportOutage } from '../outage.js';
import { Response, patchVary } from '../response.js';
import { negotiateRenderer, rendererForFormat } from '../negotiation.js';
import type { MediaType } from '../media-types.js';
import { isDatabaseInputError } from '../db/input-errors.js';
import { constraintViolation, type ConstraintViolation } from '../db/constraint-errors.js';
import { isThenable } from '../utils/thenable.js';

/** The HTTP methods a view may implement, in DRF's order (for `Allow`). */
export const HTTP_METHOD_NAMES = ['get', 'post', 'put', 'patch', 'delete', 'head', 'options', 'trace'] as const;
export type HttpMethodName = (typeof HTTP_METHOD_NAMES)[number];

export type HandlerResult = Response | unknown;
export type Handler = (req: ApiRequest) => HandlerResult | Promise<HandlerResult>;

/** What a route points at: a view class (instantiated once per route) or a ready view. */
export type ViewTarget = APIView | (new () => APIView);

/** The plug-in instances of one view, built once when the route is bound. */
export interface ViewPolicies {
  readonly renderers: readonly Renderer[];
  readonly parsers: readonly Parser[];
  readonly authenticators: readonly Authentication[];
  readonly permissions: readonly Permission[];
  readonly throttles: readonly Throttle[];
  readonly versioning: Versioning | null;
  readonly exceptionHandler: ExceptionHandler;
  readonly allowedMethods: readonly string[];
  readonly allowHeader: string;
  /** `Vary` names every response of this view carries. */
  readonly vary: readonly string[];
  /** `vary` as one header value (empty when none). */
  readonly varyHeader: string;
  /** The handler for each method the view answers (upper-case names, HEAD included when GET is there). */
  readonly handlers: ReadonlyMap<string, Handler>;
  /** Negotiation results by Accept header, for requests without `?format=` (bounded). */
  readonly negotiated: Map<string, [Renderer, MediaType]>;
  /** `Vary` of a response that set none, by the request's own names (`varyOn`): computed once each (bounded). */
  readonly varyWith: Map<string, string | null>;
  /** `varyWith` of the requests that added one name, by that name. */
  readonly varyWithOne: Map<string, string | null>;
}

/**
 * The request pipeline, as DRF's `APIView`: content negotiation, versioning,
 * authentication, permissions, throttles, then the method handler; every
 * error goes through the exception handler.
 *
 * One instance serves every request of its route, so per-request state lives
 * on the `ApiRequest`, never on `this`. Configure with attributes; anything
 * left `undefined` comes from the settings.
 *
 * @example
 * class ItemList extends APIView {
 *   permissionClasses = [IsAuthenticated];
 *   async get(req: ApiRequest) { return [{ id: 1 }]; }
 * }
 */
export class APIView {
  /** Shown by OPTIONS and the browsable API; defaults to the class name in words. */
  static viewName?: string;
  /** Shown by OPTIONS and the browsable API (DRF reads the docstring). */
  static description?: string;

  authenticationClasses?: AuthenticationClass[];
  permissionClasses?: PermissionClass[];
  throttleClasses?: ThrottleClass[];
  rendererClasses?: RendererClass[];
  parserClasses?: ParserClass[];
  versioningClass?: VersioningClass | null;
  /** Per-view overrides of DEFAULT_VERSION / ALLOWED_VERSIONS / VERSION_PARAM. */
  defaultVersion?: string | null;
  allowedVersions?: string[] | null;
  versionParam?: string;
  /** Scope for ScopedRateThrottle. */
  throttleScope?: string;
  /** Appended to the view name ("List", "Instance") by routers. */
  suffix?: string;

  private _app: AppContext | null = null;
  private _policies: ViewPolicies | null = null;

  get app(): AppContext {
    if (!this._app) throw new Error(`${this.constructor.name} is not bound to an app yet.`);
    return this._app;
  }

  get policies(): ViewPolicies {
    if (!this._policies) throw new Error(`${this.constructor.name} is not bound to an app yet.`);
    return this._policies;
  }

  /** True when this instance is already bound to an app other than `app`. */
  isBoundElsewhere(app: AppContext): boolean {
    return this._app !== null && this._app !== app;
  }

  /** Resolves settings and builds plug-in instances, once per route. */
  bind(app: AppContext): this {
    if (this._app === app) return this;
    this._app = app;
    const s = app.settings;
    const build = <T>(classes: readonly PluginClass<T>[]): T[] => classes.map((C) => new C(app));
    const renderers = build(this.rendererClasses ?? s.DEFAULT_RENDERER_CLASSES);
    const versioningClass = this.versioningClass === undefined ? s.DEFAULT_VERSIONING_CLASS : this.versioningClass;
    let versioning: Versioning | null = null;
    if (versioningClass) {
      versioning = new versioningClass(app);
      const v = versioning as unknown as Record<string, unknown>;
      if (this.defaultVersion !== undefined) v['defaultVersion'] = this.defaultVersion;
      if (this.allowedVersions !== undefined) v['allowedVersions'] = this.allowedVersions;
      if (this.versionParam !== undefined) v['versionParam'] = this.versionParam;
    }
    const allowedMethods = this.computeAllowedMethods();
    const vary: string[] = renderers.length > 1 ? ['Accept'] : [];
    for (const h of versioning?.varyHeaders ?? []) if (!vary.includes(h)) vary.push(h);
    this._policies = {
      renderers,
      parsers: build(this.parserClasses ?? s.DEFAULT_PARSER_CLASSES),
      authenticators: build(this.authenticationClasses ?? s.DEFAULT_AUTHENTICATION_CLASSES),
      permissions: build(this.permissionClasses ?? s.DEFAULT_PERMISSION_CLASSES),
      throttles: build(this.throttleClasses ?? s.DEFAULT_THROTTLE_CLASSES),
      versioning,
      exceptionHandler: s.EXCEPTION_HANDLER,
      allowedMethods,
      allowHeader: allowedMethods.join(', '),
      vary,
      varyHeader: vary.join(', '),
      negotiated: new Map(),
      varyWith: new Map(),
      varyWithOne: new Map(),
      handlers: new Map(
        HTTP_METHOD_NAMES.flatMap((m) => {
          const handler = this.handlerFor(m);
          return handler ? [[m.toUpperCase(), handler] as const] : [];
        }),
      ),
    };
    for (const throttle of this._policies.throttles) throttle.bindView?.(this);
    this.onBind(app);
    return this;
  }

  /** Hook for subclasses that prepare something once per route. */
  protected onBind(_app: AppContext): void {}

  /** The handler for an HTTP method, or `undefined` when the view has none. */
  handlerFor(method: string): Handler | undefined {
    const name = method.toLowerCase();
    if (!(HTTP_METHOD_NAMES as readonly string[]).includes(name)) return undefined;
    const fn = (this as unknown as Record<string, unknown>)[name];
    if (typeof fn === 'function') return fn as Handler;
    // Django maps HEAD to GET when the view has no head().
    if (name === 'head') {
      const get = (this as unknown as Record<string, unknown>)['get'];
      if (typeof get === 'function') return get as Handler;
    }
    return undefined;
  }

  protected computeAllowedMethods(): string[] {
    return HTTP_METHOD_NAMES.filter((m) => this.handlerFor(m) !== undefined).map((m) => m.toUpperCase());
  }

  get allowedMethods(): readonly string[] {
    return this.policies.allowedMethods;
  }

  // ------------------------------------------------------------- pipeline

  /** Runs the whole pipeline for one request and returns the response to render. */
  async dispatch(req: ApiRequest): Promise<Response> {
    return this.run(req);
  }

  /**
   * `dispatch` without a promise where none is needed: the response itself
   * when every step answered synchronously (a handler without I/O, schemes
   * that were not attempted), else a promise of it. The app calls this
   * unless a subclass overrides `dispatch`.
   */
  run(req: ApiRequest): Response | Promise<Response> {
    const p = this.policies;
    req.authenticators = p.authenticators;
    req.parsers = p.parsers;
    if (this.initial !== APIView.prototype.initial) return this.runAfterInitial(req);
    let authenticating: void | Promise<void>;
    try {
      // initial()'s steps, so that the checks after an asynchronous authentication and the
      // handler run in one turn.
      this.performContentNegotiation(req);
      this.determineVersion(req);
      authenticating = this.performAuthentication(req);
    } catch (err) {
      return this.failed(req, err);
    }
    if (isThenable(authenticating)) {
      return authenticating.then(
        () => this.afterAuthentication(req),
        (err: unknown) => this.failed(req, err),
      );
    }
    return this.afterAuthentication(req);
  }

  /** An overridden `initial()`, then the handler. */
  private runAfterInitial(req: ApiRequest): Response | Promise<Response> {
    let initial: void | Promise<void>;
    try {
      initial = this.initial(req);
    } catch (err) {
      return this.failed(req, err);
    }
    if (isThenable(initial)) {
      return initial.then(
        () => this.runHandler(req),
        (err: unknown) => this.failed(req, err),
      );
    }
    return this.runHandler(req);
  }

  /** Permissions and throttles, then the handler. */
  private afterAuthentication(req: ApiRequest): Response | Promise<Response> {
    let checking: void | Promise<void>;
    try {
      checking = this.checkAccess(req);
    } catch (err) {
      return this.failed(req, err);
    }
    if (isThenable(checking)) {
      return checking.then(
        () => this.runHandler(req),
        (err: unknown) => this.failed(req, err),
      );
    }
    return this.runHandler(req);
  }

  /** The method's handler, after `initial`; its errors go through the exception handler. */
  private runHandler(req: ApiRequest): Response | Promise<Response> {
    let out: HandlerResult;
    try {
      const handler = this.policies.handlers.get(req.method);
      if (!handler) throw new MethodNotAllowed(req.method);
      out = handler.call(this, req);
    } catch (err) {
      return this.failed(req, err);
    }
    if (isThenable(out)) {
      return out.then(
        (value) => this.finalizeResponse(req, value instanceof Response ? value : new Response(value)),
        (err: unknown) => this.failed(req, err),
      );
    }
    return this.finalizeResponse(req, out instanceof Response ? out : new Response(out));
  }

  private failed(req: ApiRequest, err: unknown): Response {
    return this.finalizeResponse(req, this.handleException(req, err));
  }

  /**
   * Everything that runs before the handler, in DRF's order. Returns a
   * promise only when a step is asynchronous (a scheme that queries the
   * database, a throttle): a request that needs nothing asynchronous is not
   * made to wait for the event loop between the steps.
   */
  initial(req: ApiRequest): void | Promise<void> {
    this.performContentNegotiation(req);
    this.determineVersion(req);
    const authenticating = this.performAuthentication(req);
    if (isThenable(authenticating)) return authenticating.then(() => this.checkAccess(req));
    return this.checkAccess(req);
  }

  /** Permissions, then throttles. */
  private checkAccess(req: ApiRequest): void | Promise<void> {
    const checking = this.checkPermissions(req);
    if (isThenable(checking)) return checking.then(() => this.checkThrottles(req));
    return this.checkThrottles(req);
  }

  performContentNegotiation(req: ApiRequest, force = false): void {
    const p = this.policies;
    const renderers = p.renderers;
    const format = req.query['format'];
    if (!force && (format === undefined || format === '')) {
      // Most requests: no ?format=, and one of a few Accept headers, each negotiated once per view.
      const accept = req.headers.accept ?? '';
      let chosen = p.negotiated.get(accept);
      if (chosen === undefined) {
        chosen = negotiateRenderer(renderers, req.headers.accept, false);
        if (p.negotiated.size >= 100) p.negotiated.clear();
        p.negotiated.set(accept, chosen);
      }
      req.acceptedRenderer = chosen[0];
      req.acceptedMediaType = chosen[1];
      return;
    }
    // As DRF: `?format=` narrows the renderers, then Accept is negotiated among them.
    const candidates = format !== undefined && format !== '' && !force ? rendererForFormat(renderers, format) : renderers;
    const [renderer, mediaType] = negotiateRenderer(candidates, req.headers.accept, force);
    req.acceptedRenderer = renderer;
    req.acceptedMediaType = mediaType;
  }

  determineVersion(req: ApiRequest): void {
    const scheme = this.policies.versioning;
    if (!scheme) return;
    req.version = scheme.determineVersion(req, req.params);
    req.versioningScheme = scheme;
  }

  /** Resolves `request.user`; override with an empty body to make it lazy. */
  performAuthentication(req: ApiRequest): void | Promise<void> {
    return req.authenticate();
  }

  /** Each permission in turn; a promise only once a permission answers with one. */
  checkPermissions(req: ApiRequest): void | Promise<void> {
    return this.askPermissions(req, (permission) => permission.hasPermission(req, this));
  }

  /**
   * Generic views call this from `getObject`: each permission's
   * `hasObjectPermission` in turn, as `checkPermissions`.
   */
  checkObjectPermissions(req: ApiRequest, obj: unknown): void | Promise<void> {
    return this.askPermissions(req, (permission) => permission.hasObjectPermission?.(req, this, obj));
  }

  /**
   * Asks each permission in turn (`undefined`: it has nothing to say) and
   * refuses at the first no; a promise only once one answers with one.
   */
  private askPermissions(req: ApiRequest, ask: (permission: Permission) => boolean | Promise<boolean> | undefined): void | Promise<void> {
    const permissions = this.policies.permissions;
    for (let i = 0; i < permissions.length; i++) {
      const permission = permissions[i]!;
      const allowed = ask(permission);
      if (allowed === undefined) continue;
      if (isThenable(allowed)) return this.askPermissionsFrom(req, ask, i, allowed);
      if (!allowed) this.permissionDenied(req, permission.message, permission.code);
    }
  }

  private async askPermissionsFrom(req: ApiRequest, ask: (permission: Permission) => boolean | Promise<boolean> | undefined, start: number, pending: Promise<boolean>): Promise<void> {
    const permissions = this.policies.permissions;
    for (let i = start; i < permissions.length; i++) {
      const permission = permissions[i]!;
      const allowed = i === start ? await pending : await ask(permission);
      if (allowed === undefined) continue;
      if (!allowed) this.permissionDenied(req, permission.message, permission.code);
    }
  }

  /** 401/403 for a failed permission: NotAuthenticated when no scheme succeeded. */
  permissionDenied(req: ApiRequest, message?: string, code?: string): never {
    if (req.authenticators.length > 0 && !req.successfulAuthenticator) throw new NotAuthenticated();
    throw new PermissionDenied(message, code);
  }

  checkThrottles(req: ApiRequest): void | Promise<void> {
    const throttles = this.policies.throttles;
    if (throttles.length === 0) return;
    return this.throttle(req, throttles);
  }

  private async throttle(req: ApiRequest, throttles: readonly Throttle[]): Promise<void> {
    let denied = false;
    let wait: number | null = null;
    for (const throttle of throttles) {
      const decision = await throttle.allowRequest(req, this);
      if (!decision.allowed) {
        denied = true;
        if (decision.wait !== null && (wait === null || decision.wait > wait)) wait = decision.wait;
      }
    }
    if (denied) throw new Throttled(wait);
  }

  /** The `WWW-Authenticate` value of the first scheme, which decides 401 vs 403. */
  authenticateHeader(req: ApiRequest): string | null {
    const first = this.policies.authenticators[0];
    return first?.authenticateHeader?.(req) ?? null;
  }

  /**
   * Turns an error into a response through EXCEPTION_HANDLER. Unauthenticated
   * errors become 401 with the first scheme's `WWW-Authenticate`, or 403 when
   * that scheme has none. Unknown errors are re-thrown (the app logs a 500).
   */
  handleException(req: ApiRequest, err: unknown): Response {
    if (!(err instanceof ApiError)) {
      // A value the database refused for its column type came from the client: 400, not 500.
      if (isDatabaseInputError(err)) err = new ParseError('Invalid value in the request.', 'invalid');
      else {
        // A constraint the database enforced (a race past the validators, or none declared): 400/409, not 500.
        const violation = constraintViolation(err);
        if (violation) err = this.constraintError(req, violation);
      }
    }
    if (!(err instanceof ApiError) && isOutageError(err)) {
      // The database or Redis is unreachable: the client may retry, this is not a bug.
      reportOutage(this.app, err);
      err = new ServiceUnavailable(this.app.settings.SERVICE_UNAVAILABLE_RETRY_AFTER);
    }
    if (err instanceof NotAuthenticated || err instanceof AuthenticationFailed) {
      const header = this.authenticateHeader(req);
      if (header) err.headers['WWW-Authenticate'] = header;
      else (err as { statusCode: number }).statusCode = 403;
    }
    const handled = this.policies.exceptionHandler(err, { request: req, view: this });
    if (!handled) throw err;
    const res = new Response(handled.body, { status: handled.status, headers: handled.headers });
    res.exception = true;
    return res;
  }

  /**
   * The client error for a constraint the database enforced. The failed
   * statement wrote nothing (and a transaction around it rolled back).
   *
   * - unique: 400 with the message `UniqueValidator` / `UniqueTogetherValidator`
   *   would have given (`{"title": ["This field must be unique."]}`,
   *   `{"non_field_errors": ["The fields title, author must make a unique set."]}`);
   * - not null: 400 `{"<field>": ["This field may not be null."]}`;
   * - check: 400 with Django's `Constraint “<name>” is violated.`;
   * - foreign key, the row deleted (or its key changed) is still referred to:
   *   409 `{"detail": "Cannot delete this object: other objects refer to it."}`;
   * - foreign key, the row written refers to a missing row: 400, under the
   *   field when the database names the column.
   *
   * Columns are named by the serializer's field that reads them (its
   * `source`, else its name) when the view has a serializer, else as they are.
   */
  constraintError(req: ApiRequest, violation: ConstraintViolation): ApiError {
    const nonField = this.app.settings.NON_FIELD_ERRORS_KEY;
    const fields = violation.columns.map((c) => this.fieldForColumn(c));
    const named = (name: string | null): string => `Constraint \u201c${name ?? 'unknown'}\u201d is violated.`;
    switch (violation.kind) {
      case 'unique':
        if (fields.length === 1) return new ValidationError({ [fields[0]!]: ['This field must be unique.'] }, 'unique');
        if (fields.length > 1) return new ValidationError({ [nonField]: [`The fields ${fields.join(', ')} must make a unique set.`] }, 'unique');
        return new ValidationError({ [nonField]: [named(violation.constraint)] }, 'unique');
      case 'not_null':
        if (fields.length === 1) return new ValidationError({ [fields[0]!]: ['This field may not be null.'] }, 'null');
        return new ValidationError({ [nonField]: ['Invalid input.'] }, 'null');
      case 'check':
        return new ValidationError({ [nonField]: [named(violation.constraint)] }, 'constraint');
      case 'foreign_key': {
        const deleting = violation.referenced ?? req.method === 'DELETE';
        if (deleting) return new Conflict('Cannot delete this object: other objects refer to it.', 'protected');
        if (fields.length === 1 && violation.value !== null) {
          return new ValidationError({ [fields[0]!]: [`Invalid pk "${violation.value}" - object does not exist.`] }, 'does_not_exist');
        }
        return new ValidationError({ [nonField]: ['A related object does not exist.'] }, 'does_not_exist');
      }
    }
  }

  /** The name of the request field stored in `column` (the view's serializer field reading it), else the column. */
  protected fieldForColumn(column: string): string {
    const serializer = (this as { serializer?: { fields?: Record<string, { source?: string | undefined; readOnly?: boolean }> } }).serializer;
    const fields = serializer?.fields;
    if (fields) {
      for (const name in fields) {
        const source = fields[name]!.source;
        if (source === column || (source === undefined && name === column)) return name;
      }
      // `author` with `source: 'author_id'`-style keys: a related field named after the column without `_id`.
      if (column.endsWith('_id') && Object.hasOwn(fields, column.slice(0, -3))) return column.slice(0, -3);
    }
    return column;
  }

  /** Adds `Allow` and `Vary`; makes sure a renderer is chosen even after a 406. */
  finalizeResponse(req: ApiRequest, res: Response): Response {
    if (!req.acceptedRenderer) this.performContentNegotiation(req, true);
    const p = this.policies;
    const set = res.getHeader('Vary') !== undefined;
    if (!set && req.vary !== null) {
      // No Vary from the handler: the view's names then the request's (a session read adds
      // `Cookie`), merged once per combination as the two patchVary calls below would.
      const names = req.vary;
      // One name (a session read adds `Cookie`) is its own key: the name is usually a constant,
      // whose hash V8 keeps, where a key made per request would be hashed and compared again.
      const table = names.length === 1 ? p.varyWithOne : p.varyWith;
      const key = names.length === 1 ? names[0]! : JSON.stringify(names);
      let value = table.get(key);
      if (value === undefined) {
        const merged = new Response(null, p.vary.length > 0 ? { headers: { Vary: p.varyHeader } } : {});
        patchVary(merged, names);
        value = merged.getHeader('Vary') ?? null;
        if (table.size >= 100) table.clear();
        table.set(key, value);
      }
      if (value !== null) res.headers['Vary'] = value;
    } else {
      if (p.vary.length > 0) {
        // The view's names are distinct already: with no Vary yet they are the whole value.
        if (!set) res.headers['Vary'] = p.varyHeader;
        else patchVary(res, p.vary);
      }
      if (req.vary !== null) patchVary(res, req.vary);
    }
    res.headers['Allow'] = p.allowHeader;
    const extra = req.versioningScheme?.responseHeaders?.(req);
    if (extra) mergeHeaders(res, extra);
    return res;
  }

  // ------------------------------------------------------------- metadata

  /** The view's name in words: `ItemListView` -> `Item List`. */
  getViewName(): string {
    const ctor = this.constructor as typeof APIView;
    if (ctor.viewName) return ctor.viewName;
    let name = ctor.name;
    for (const tail of ['View', 'ViewSet']) {
      if (name.endsWith(tail) && name !== tail) name = name.slice(0, -tail.length);
    }
    name = name.replace(/((?<=[a-z])[A-Z]|[A-Z](?![A-Z]|$))/g, ' $1').trim();
    return this.suffix ? `${name} ${this.suffix}` : name;
  }

  getViewDescription(): string {
    return (this.constructor as typeof APIView).description ?? '';
  }

  /** OPTIONS: DRF's SimpleMetadata. */
  options(_req: ApiRequest): Response | Promise<Response> {
    return new Response(this.metadata());
  }

  metadata(): Record<string, unknown> {
    return {
      name: this.getViewName(),
      description: this.getViewDescription(),
      renders: this.policies.renderers.map((r) => r.mediaType),
      parses: this.policies.parsers.map((p) => p.mediaType),
    };
  }
}

/** Adds headers the handler did not set; `Link` values are appended (RFC 8288 allows a list). */
function mergeHeaders(res: Response, extra: Readonly<Record<string, string>>): void {
  for (const name in extra) {
    const current = res.getHeader(name);
    if (current === undefined) res.setHeader(name, extra[name]!);
    else if (name.toLowerCase() === 'link' && !current.includes(extra[name]!)) res.setHeader(name, `${current}, ${extra[name]!}`);
  }
}

export function isApiError(err: unknown): err is ApiError {
  return err instanceof ApiError;
}
