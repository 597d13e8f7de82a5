import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import { METHODS } from 'node:http';
import { requestId } from './utils/request-id.js';
import type { AppContext, ServiceMap } from './context.js';
import { Services } from './context.js';
import { resolveSettings, type Settings, type SettingsInput } from './settings.js';
import { isOutageError, reportOutage } from './outage.js';
import { ApiError, NotFound, ParseError, PayloadTooLarge, SERVER_ERROR_BODY, ServiceUnavailable } from './exceptions.js';
import { ApiRequest, type RequestEnvironment } from './request.js';
import { Response } from './response.js';
import { ForwardedHeaders, HostValidator, ProxyTrust } from './hosts.js';
import { duplicatedSingletonHeader, originFormTarget } from './request-target.js';
import { MultipartBody, readMultipart, type MultipartLimits } from './parsers/multipart-stream.js';
import { RouteRegistry, convertParams, type CompiledRoute } from './routing/registry.js';
import type { RouteEntry } from './routing/routes.js';
import { prefersHtml, sendNotFoundPage } from './pages/not-found-page.js';
import { APIView, type ViewTarget } from './views/api-view.js';
import { openedElsewhere } from './db/direct.js';
import type { Database } from './db/database.js';
import type { UserStore } from './users/store.js';
import { registerDataServices } from './db/services.js';
import { installTokens } from './authtoken/tokens-service.js';
import { installStaticAssets } from './browsable/static-assets.js';
import { closeRedis, redisClient } from './redis.js';
import { applyOperatorEnvironment } from './environment.js';
import { installCors } from './cors.js';
import { checkProductionSettings, resolveSecretKey } from './secret-key.js';
import { keepTickShape } from './utils/tick-shape.js';
import { watchIdleConnections } from './idle-connections.js';
import { API_REQUEST, appLogging } from './request-log.js';
import { registerAppForChecks, startupChecks, type MountedView, type SystemCheck } from './checks/index.js';
import { isThenable } from './utils/thenable.js';

export interface CreateAppOptions {
  /** Settings under DRF's names; unknown names are an error. */
  settings?: SettingsInput;
  /** The app's routes (`path()`, `include()`, `router.urls`). */
  routes?: readonly RouteEntry[];
  /**
   * The open database. Gives the app the `database`, `db` (typed by
   * `AppTypes`), `users` and `tokens` services.
   */
  database?: Database;
  /** The user store; defaults to a `KyselyUserStore` on `database`. */
  users?: UserStore;
  /** Further services, or replacements for the ones above (`tokens`, `redis`, …). */
  services?: Partial<ServiceMap>;
  /**
   * Serve Trestle's CSS and JavaScript (browsable API, admin, docs) under
   * STATIC_URL. Defaults to true; false when a web server or CDN serves them.
   */
  staticAssets?: boolean;
  /** Runs once after the services are registered and before routes are mounted. */
  setup?: (app: AppContext) => void | Promise<void>;
  /**
   * The logger (pino), as Fastify's `logger` option takes it: `true`, pino's
   * options (with `stream` or `file`), or `false`. Defaults to on at level
   * `info`: readable lines in a terminal, JSON lines otherwise. Tests pass
   * `false`.
   */
  logger?: FastifyServerOptions['logger'];
  /** Folder of the development SECRET_KEY file (default `./data`). */
  dataDir?: string;
  /** The project's own system checks, run with Trestle's at ready and by `trestle check` (docs/checks.md). */
  checks?: readonly SystemCheck[];
}

export type TrestleApp = FastifyInstance & { trestle: AppContext };

const ORIGINAL_CONTENT_TYPE = Symbol('trestle.contentType');
/** What Fastify is shown as the Content-Type of a QUERY request (see `prepareRequest`). */
const HIDDEN_CONTENT_TYPE = 'application/octet-stream';
// A multipart type Fastify accepts as is: streamed by busboy instead of buffered.
const STREAMED_MULTIPART = /^multipart\/form-data\s*;\s*boundary=("?)[0-9A-Za-z'()+_,\-./:=? ]{1,70}\1\s*$/i;
const ROUTE_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE'];
// Every other method Node parses (PROPFIND, SEARCH, PURGE, …) reaches the view too, as in
// Django: DRF authenticates, checks permissions and throttles, then answers 405 with `Allow`.
// CONNECT never reaches a request handler in Node.
const EXTRA_METHODS = METHODS.filter((m) => m !== 'CONNECT' && !ROUTE_METHODS.includes(m));

/** Incoming `X-Request-Id` values kept as the request id; anything else gets a fresh UUID. */
const REQUEST_ID = /^[A-Za-z0-9._:@/+=-]{1,128}$/;

/** Start-up warning: the database given to `createApp` was opened by another copy of Trestle's modules. */
export const DATABASE_OF_ANOTHER_COPY =
  'The database was opened by another copy of Trestle than the one building this app (two installed copies, ' +
  'or a bundle that holds its own; see `npm ls trestle`). Answers are the same, but this copy cannot reuse ' +
  'its compiled queries on that database: every query is built per request. Open the database and build the ' +
  'app with the same copy.';

/** The start-up warning for a PAGE_SIZE without a pagination class (DRF's check W001, same words). */
export const PAGE_SIZE_WITHOUT_CLASS =
  'You have specified a default PAGE_SIZE pagination rest_framework setting, without specifying also a ' +
  'DEFAULT_PAGINATION_CLASS. The default for DEFAULT_PAGINATION_CLASS is None (no pagination): set ' +
  'DEFAULT_PAGINATION_CLASS too, or, to define PAGE_SIZE globally whilst setting paginationClass per view, ignore this warning.';

/**
 * Builds a Fastify instance that serves the given routes through Trestle's
 * pipeline. What the app has is what it is given here: settings, routes,
 * the database and other services; nothing is installed by importing a
 * module. Every configuration error (unknown setting, bad pagination
 * ordering, production without SECRET_KEY, …) rejects the returned promise.
 *
 * @example
 * const app = await createApp({
 *   settings: { DEFAULT_PAGINATION_CLASS: PageNumberPagination, PAGE_SIZE: 20 },
 *   routes: [path('items/', ItemList)],
 * });
 * await app.listen({ port: 8000 });
 */
export async function createApp(options: CreateAppOptions = {}): Promise<TrestleApp> {
  // Before the start-up's allocations can bring a full collection (see tick-shape.ts).
  keepTickShape();
  // Under `trestle serve` the operator's environment (REDIS_URL, SECRET_KEY, NODE_ENV) wins, whatever settings a project's hook passes.
  const settings = resolveSettings(applyOperatorEnvironment(options.settings));
  checkProductionSettings(settings);
  // The app's logger is made here, not by Fastify (see appLogging): request lines that say which
  // request (method, URL with secrets redacted, status, time, user id), each request's child made
  // only when a line is written (LOG_LEVEL=warn: rarely).
  const logging = options.logger === false ? null : appLogging(options.logger ?? defaultLogger());
  const fastify = Fastify({
    logger: false,
    ...(logging === null ? {} : { logController: logging.logController }),
    // X-Request-Id is honoured when it looks like an id; the header is checked here, not trusted.
    requestIdHeader: false,
    genReqId: (req) => {
      const incoming = req.headers['x-request-id'];
      return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : requestId();
    },
    exposeHeadRoutes: false,
    bodyLimit: settings.DATA_UPLOAD_MAX_MEMORY_SIZE,
    // Tokens, cursors and query strings may be long; keep Fastify's limit generous.
    routerOptions: { maxParamLength: 500 },
    // A path that is not valid percent-encoding is the client's mistake: JSON 400.
    frameworkErrors: (_error, req, reply) => sendError(reply.header('x-request-id', req.id), new ParseError('Malformed request path.')),
    // Node would answer a missing Host with an empty 400; let the host check answer in JSON.
    http: { requireHostHeader: false, ...serverTimeouts(settings) },
    requestTimeout: milliseconds(settings.REQUEST_TIMEOUT),
    // IDLE_TIMEOUT is watched by one sweep (idle-connections.ts), not by Node's per-request timer.
    connectionTimeout: 0,
    keepAliveTimeout: milliseconds(settings.KEEP_ALIVE_TIMEOUT),
    clientErrorHandler: onClientError,
    // Called for every request before routing: the target in origin form, and the Content-Type hidden from Fastify.
    rewriteUrl: prepareRequest,
  });
  if (logging !== null) {
    // What Fastify hands each request while no factory makes its logger: the controller then makes it (see appLogging).
    logging.logController.fastifyLogger = fastify.log;
    const fastifyFactory = fastify.childLoggerFactory;
    const { childLoggerFactory } = logging;
    fastify.addHook('onRoute', function (route) {
      // A route's own log level or serializers reach a request logger only through a factory.
      if ((route.logLevel || route.logSerializers) && !route.childLoggerFactory && this.childLoggerFactory === fastifyFactory) route.childLoggerFactory = childLoggerFactory;
    });
    fastify.log = logging.logger;
  }
  watchIdleConnections(fastify.server, milliseconds(settings.IDLE_TIMEOUT));
  fastify.decorateRequest(API_REQUEST, null);
  for (const method of EXTRA_METHODS) {
    if (!fastify.supportedMethods.includes(method)) fastify.addHttpMethod(method, { hasBody: true });
  }
  const services = new Services();
  const dataDir = resolve(options.dataDir ?? 'data');
  let secret: string | null = null;
  const app: AppContext = {
    settings,
    log: fastify.log,
    services,
    secretKey: () => (secret ??= resolveSecretKey(settings, dataDir, { warn: (m) => fastify.log.warn(m) })),
  };
  fastify.decorate('trestle', app);
  // DRF's system check rest_framework.W001: a PAGE_SIZE alone pages nothing.
  if (settings.PAGE_SIZE !== null && settings.DEFAULT_PAGINATION_CLASS === null && !settings.SILENCED_SYSTEM_CHECKS.includes('rest_framework.W001')) {
    fastify.log.warn(PAGE_SIZE_WITHOUT_CLASS);
  }

  if (options.database) {
    registerDataServices(services, options.database, options.users ? { users: options.users } : {});
    if (openedElsewhere(options.database.db.getExecutor())) fastify.log.warn(DATABASE_OF_ANOTHER_COPY);
  } else if (options.users) services.set('users', options.users);
  for (const [name, value] of Object.entries(options.services ?? {})) {
    if (value !== undefined) services.set(name as keyof ServiceMap, value as never);
  }
  // `services: { database }` alone is enough for the typed `db`.
  if (services.has('database') && !services.has('db')) services.set('db', services.get('database').db as ServiceMap['db']);

  // Bodies are kept as bytes and parsed only when a view reads request.data,
  // so an unauthenticated request is refused before its body is looked at.
  fastify.removeAllContentTypeParsers();
  const keepBytes = (_req: FastifyRequest, body: Buffer, done: (err: null, body: Buffer) => void) => done(null, body);
  fastify.addContentTypeParser('*', { parseAs: 'buffer' }, keepBytes);
  // The same, named for the type a QUERY is shown to Fastify as (`prepareRequest`).
  fastify.addContentTypeParser(HIDDEN_CONTENT_TYPE, { parseAs: 'buffer' }, keepBytes);
  // Multipart bodies are streamed: fields in memory, large files in temporary files, never one buffer.
  const multipartLimits: MultipartLimits = {
    fieldsMaxSize: settings.DATA_UPLOAD_MAX_MEMORY_SIZE,
    maxParts: settings.DATA_UPLOAD_MAX_NUMBER_FIELDS,
    fileMaxMemorySize: settings.FILE_UPLOAD_MAX_MEMORY_SIZE,
    bodyMaxSize: settings.FILE_UPLOAD_MAX_SIZE,
    tempDir: settings.FILE_UPLOAD_TEMP_DIR,
  };
  fastify.addContentTypeParser('multipart/form-data', (request: FastifyRequest, payload: import('node:stream').Readable) =>
    readMultipart(payload, request.headers, multipartLimits),
  );

  // The caller's setup first, so the parts below see every service it registers.
  if (options.setup) await options.setup(app);
  if (services.has('database')) installTokens(app, fastify);
  if (options.staticAssets !== false) installStaticAssets(app, fastify);
  if (settings.CORS_ALLOW_ALL_ORIGINS || settings.CORS_ALLOWED_ORIGINS.length > 0) installCors(settings, fastify);
  fastify.addHook('onClose', async () => closeRedis(app));
  // An app with REDIS_URL connects as it starts, so its log says at once whether Redis was reached.
  if (settings.REDIS_URL) {
    fastify.addHook('onReady', (done) => {
      redisClient(app);
      done();
    });
  }

  const proxies = new ProxyTrust(settings.TRUSTED_PROXIES);
  new ProxyTrust(settings.REMOTE_USER_TRUSTED_PROXIES, 'REMOTE_USER_TRUSTED_PROXIES'); // checked at start-up
  const env: RequestEnvironment = {
    app,
    hosts: new HostValidator(settings.ALLOWED_HOSTS),
    proxies,
    forwarded: new ForwardedHeaders(settings, proxies),
  };

  const registry = new RouteRegistry(options.routes ?? []);
  services.set('routes', registry);
  try {
    // Views bind here: their plug-ins are built and checked (pagination ordering, …).
    registerAppForChecks(app, mountRoutes(fastify, registry, env), env, options.checks);
  } catch (err) {
    await fastify.close();
    throw err;
  }
  // The system checks (docs/checks.md) run once, when the app becomes ready: an error rejects ready()/listen().
  fastify.addHook('onReady', () => startupChecks(app));

  fastify.setNotFoundHandler((request, reply) => notFound(request, reply, env));

  fastify.setErrorHandler((error: Error & { code?: string; statusCode?: number }, request, reply) => {
    reply.header('x-request-id', request.id);
    restoreContentType(request);
    dropUploads(request);
    if (error instanceof ApiError) return sendError(reply, error);
    if (isOutageError(error)) return sendError(reply, serviceUnavailable(app, error));
    if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return sendError(reply, new PayloadTooLarge());
    const status = error.statusCode;
    if (status !== undefined && status >= 400 && status < 500) {
      const e = new ParseError(error.message);
      (e as { statusCode: number }).statusCode = status;
      return sendError(reply, e);
    }
    request.log.error({ err: error }, 'unhandled error');
    return reply.code(500).type('application/json').send(Buffer.from(JSON.stringify(SERVER_ERROR_BODY)));
  });

  return fastify as TrestleApp;
}

/** Where `defaultLogger` writes: stdout, or stderr while a command's stdout is data (see `logsOnStderr`). */
let logToStderr = 0;

/**
 * Runs `fn` with the default logger writing to stderr: for commands whose
 * stdout is a document (`trestle openapi > schema.json`), so that start-up
 * warnings of an app built meanwhile cannot end up in it.
 */
export async function logsOnStderr<T>(fn: () => Promise<T>): Promise<T> {
  logToStderr++;
  try {
    return await fn();
  } finally {
    logToStderr--;
  }
}

/** The default logger's options (pino's): pretty lines on a terminal (when pino-pretty is installed), JSON lines otherwise. */
export function defaultLogger(level = process.env['LOG_LEVEL'] ?? 'info'): Exclude<NonNullable<FastifyServerOptions['logger']>, boolean> {
  const stderr = logToStderr > 0;
  if ((stderr ? process.stderr : process.stdout).isTTY && prettyAvailable()) {
    return {
      level,
      transport: { target: 'pino-pretty', options: { translateTime: 'HH:MM:ss.l', ignore: 'pid,hostname', ...(stderr ? { destination: 2 } : {}) } },
    };
  }
  return stderr ? { level, stream: process.stderr } : { level };
}

let pretty: boolean | null = null;
function prettyAvailable(): boolean {
  if (pretty === null) {
    try {
      createRequire(import.meta.url).resolve('pino-pretty');
      pretty = true;
    } catch {
      pretty = false;
    }
  }
  return pretty;
}

function mountRoutes(fastify: FastifyInstance, registry: RouteRegistry, env: RequestEnvironment): MountedView[] {
  // Routes that look the same to Fastify (`items/<int:pk>/`, `items/<slug:s>/`)
  // share one Fastify route and are tried in declaration order, as Django does.
  const groups = new Map<string, { route: CompiledRoute; view: APIView }[]>();
  const mounted: MountedView[] = [];
  for (const route of registry.routes) {
    const view = instantiate(route.view, env.app).bind(env.app);
    const list = groups.get(route.fastifyPath) ?? [];
    list.push({ route, view });
    groups.set(route.fastifyPath, list);
    mounted.push({ route, view });
  }
  for (const [url, candidates] of groups) {
    fastify.route({
      method: [...ROUTE_METHODS, ...EXTRA_METHODS],
      url,
      handler: (request, reply) => handle(request, reply, candidates, env),
    });
  }
  return mounted;
}

/**
 * A class gets a fresh instance per route. A ready instance is used as is,
 * unless another app already bound it (a module-level view such as
 * `obtainAuthToken` mounted in several apps): then this app gets a copy, so
 * apps never share bound policies. Classes are told apart from instances by
 * type, not `instanceof`, so views from another copy of this module (a
 * project loaded through a separate module loader) work too.
 */
function instantiate(target: ViewTarget, app: AppContext): APIView {
  if (typeof target === 'function') return new target();
  if (!target.isBoundElsewhere(app)) return target;
  const copy = Object.assign(Object.create(Object.getPrototypeOf(target) as object) as APIView, target);
  (copy as unknown as { _app: unknown; _policies: unknown })._app = null;
  (copy as unknown as { _app: unknown; _policies: unknown })._policies = null;
  return copy;
}

/**
 * The route handler. A request the view answers synchronously is sent
 * before this returns (and nothing is returned, so Fastify waits for no
 * promise); otherwise the returned promise settles once it is sent.
 */
function handle(
  request: FastifyRequest,
  reply: FastifyReply,
  candidates: { route: CompiledRoute; view: APIView }[],
  env: RequestEnvironment,
): Promise<void> | undefined {
  const refused = begin(request, reply);
  if (refused !== null) return undefined;
  let pending: Promise<void> | undefined;
  try {
    const raw = request.params as Record<string, string | undefined>;
    for (const { route, view } of candidates) {
      const params = convertParams(route, raw);
      if (params === null) continue;
      const req = new ApiRequest(request, reply, env, params);
      (request as unknown as Record<symbol, ApiRequest>)[API_REQUEST] = req;
      req.resolverMatch = route.match;
      try {
        req.getHost();
      } catch (err) {
        sendError(reply, err as ApiError);
        return undefined;
      }
      let res: Response | Promise<Response>;
      try {
        // `run` is `dispatch` without a promise when none is needed; an overridden `dispatch` is called as such.
        res = view.dispatch === BASE_DISPATCH ? view.run(req) : view.dispatch(req);
      } catch (err) {
        res = viewFailed(request, env, view, req, err);
      }
      if (isThenable(res)) {
        pending = sendWhenDone(request, reply, env, view, req, res);
        return pending;
      }
      sendResponse(reply, req, view, res);
      return undefined;
    }
    unknownRoute(request, reply, env);
    return undefined;
  } finally {
    if (pending === undefined) dropUploads(request);
  }
}

const BASE_DISPATCH = APIView.prototype.dispatch;

async function sendWhenDone(
  request: FastifyRequest,
  reply: FastifyReply,
  env: RequestEnvironment,
  view: APIView,
  req: ApiRequest,
  pending: Promise<Response>,
): Promise<void> {
  try {
    let res: Response;
    try {
      res = await pending;
    } catch (err) {
      res = viewFailed(request, env, view, req, err);
    }
    sendResponse(reply, req, view, res);
  } finally {
    dropUploads(request);
  }
}

/** A view that threw past its exception handler: 503 for an outage, else a logged 500. */
function viewFailed(request: FastifyRequest, env: RequestEnvironment, view: APIView, req: ApiRequest, err: unknown): Response {
  let res: Response;
  if (isOutageError(err)) {
    const e = serviceUnavailable(env.app, err);
    res = new Response(e.toBody(), { status: e.statusCode, headers: e.headers });
  } else {
    request.log.error({ err }, 'unhandled error in view');
    res = new Response(SERVER_ERROR_BODY, { status: 500 });
  }
  view.finalizeResponse(req, res);
  return res;
}

/** Fastify's not-found handler: no route has this path. */
function notFound(request: FastifyRequest, reply: FastifyReply, env: RequestEnvironment): FastifyReply {
  const refused = begin(request, reply);
  if (refused !== null) return refused;
  try {
    return unknownRoute(request, reply, env);
  } finally {
    dropUploads(request);
  }
}

/**
 * An unknown route: after the host check (Django's middleware runs first),
 * a GET or HEAD whose path lacks only the trailing slash of a route is
 * redirected there (Django's APPEND_SLASH); anything else is a 404 JSON.
 */
function unknownRoute(request: FastifyRequest, reply: FastifyReply, env: RequestEnvironment): FastifyReply {
  const req = new ApiRequest(request, reply, env);
  try {
    req.getHost();
  } catch (err) {
    return sendError(reply, err as ApiError);
  }
  const path = req.path;
  if (
    env.app.settings.APPEND_SLASH &&
    (req.method === 'GET' || req.method === 'HEAD') &&
    !path.endsWith('/') &&
    env.app.services.get('routes').matchesPath(safeDecode(path) + '/')
  ) {
    const query = req.queryString;
    return reply.code(301).header('location', `${path}/${query ? `?${query}` : ''}`).send();
  }
  // A browser gets a page, as from Django; API clients the JSON body.
  if (prefersHtml(request.headers.accept)) return sendNotFoundPage(reply, env.app);
  reply.header('vary', 'Accept');
  return sendError(reply, new NotFound());
}

function safeDecode(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

/** Renders a pipeline response with the negotiated renderer. */
export function sendResponse(reply: FastifyReply, req: ApiRequest, view: APIView | null, res: Response): FastifyReply {
  const renderer = req.acceptedRenderer!;
  const mediaType = req.acceptedMediaType!;
  reply.code(res.status);
  const headers = res.headers;
  for (const name in headers) reply.header(replyHeaderName(name), headers[name]!);
  const bodyless = res.status === 204 || res.status === 304 || res.data === undefined || res.data === null;
  const payload = bodyless ? '' : renderer.render(res.data, mediaType, { request: req, response: res, view });
  if (payload.length === 0) {
    reply.removeHeader('content-type');
    return reply.send();
  }
  // `type` stores the header under its lower-case name as `header` does, without lower-casing a copy of it first.
  reply.type(renderer.charset ? `${renderer.mediaType}; charset=${renderer.charset}` : renderer.mediaType);
  // Through a reply serializer a string keeps the Content-Type exactly as set (DRF sends
  // `application/json`, no charset), without first being copied into a Buffer.
  return typeof payload === 'string' ? reply.serializer(sentAsIs).send(payload) : reply.send(payload);
}

/**
 * The names the pipeline itself sets, already in lower case: Fastify lower-cases every name
 * it is given, and the lower-cased copy of `Vary` or `Allow` is a new string each time, which
 * Fastify's header object then has to look up by its text (V8's slow path for a key it has not
 * seen as such) on every request. A constant is looked up by reference.
 */
function replyHeaderName(name: string): string {
  switch (name) {
    case 'Vary':
      return 'vary';
    case 'Allow':
      return 'allow';
    case 'Location':
      return 'location';
    case 'WWW-Authenticate':
      return 'www-authenticate';
    case 'Retry-After':
      return 'retry-after';
    default:
      return name;
  }
}

function sentAsIs(payload: unknown): string {
  return payload as string;
}

/** A 503 for a database or Redis outage; logged as a warning (rate-limited), not as a bug. */
function serviceUnavailable(app: AppContext, err: unknown): ServiceUnavailable {
  reportOutage(app, err);
  return new ServiceUnavailable(app.settings.SERVICE_UNAVAILABLE_RETRY_AFTER);
}

function milliseconds(seconds: number): number {
  return Math.round(seconds * 1000);
}

/**
 * Node's own deadlines for slow clients: headers and whole request. Node
 * checks them every `connectionsCheckingInterval` (30 s by default), so the
 * interval follows the shorter deadline, or a 10 s limit could take 40 s.
 */
function serverTimeouts(settings: Readonly<Settings>): { headersTimeout: number; requestTimeout: number; connectionsCheckingInterval: number } {
  const headersTimeout = milliseconds(settings.HEADERS_TIMEOUT);
  const requestTimeout = milliseconds(settings.REQUEST_TIMEOUT);
  const shortest = Math.min(...[headersTimeout, requestTimeout].filter((t) => t > 0), 120_000);
  return { headersTimeout, requestTimeout, connectionsCheckingInterval: Math.min(30_000, Math.max(100, Math.floor(shortest / 4))) };
}

/**
 * Fastify's `rewriteUrl`, run for every request before routing (so no
 * per-request hook is needed): an absolute-form target becomes its path
 * (see `originFormTarget`), and a Content-Type other than a multipart type
 * busboy streams is hidden from Fastify, which would answer a malformed one
 * with its own 415 before any route runs; `begin` puts it back, so the
 * view's parsers decide, and only when the view reads the body.
 *
 * The header is set to `undefined` rather than to a stand-in type, so
 * Fastify reads the body with the '*' parser without parsing a type, and
 * every request gets the same property in the same place whether or not
 * it had a Content-Type: Node's request objects and Fastify's keep one
 * shape each, and the code they pass through stays monomorphic after a
 * server has served bodies (docs/decisions.md, "Request objects keep one
 * shape").
 */
function prepareRequest(this: unknown, req: import('node:http').IncomingMessage): string {
  const headers = req.headers;
  const ct = headers['content-type'];
  let original: string | null | undefined;
  if (req.method === 'QUERY') {
    // Fastify answers a QUERY without Content-Type 400 before any route (RFC 10008);
    // DRF authenticates, checks permissions and throttles first, then answers 405.
    // So a QUERY is shown the stand-in type whether or not it had one.
    if (ct === undefined) original = null;
    else if (!STREAMED_MULTIPART.test(ct)) original = ct;
    if (original !== undefined) headers['content-type'] = HIDDEN_CONTENT_TYPE;
  } else if (ct !== undefined && !STREAMED_MULTIPART.test(ct)) {
    original = ct;
    headers['content-type'] = undefined;
  }
  (req as unknown as Record<symbol, unknown>)[ORIGINAL_CONTENT_TYPE] = original;
  // Node's streams count their listeners on the prototype until the first is added (reading a
  // body adds some): made an own property here, with the same value, so a request with a body
  // and one without keep one shape after the body is read too.
  const emitter = req as unknown as { _eventsCount: number };
  emitter._eventsCount = emitter._eventsCount;
  return originFormTarget(req);
}

function restoreContentType(request: FastifyRequest): void {
  const ct = (request.raw as unknown as Record<symbol, unknown>)[ORIGINAL_CONTENT_TYPE];
  if (ct === null) delete request.headers['content-type'];
  else if (ct !== undefined) request.headers['content-type'] = ct as string;
}

/**
 * What every routed or unrouted request goes through first: the
 * `X-Request-Id` header, the real Content-Type back, and the refusal of a
 * duplicated Host or Authorization header (Node silently keeps the first;
 * which one was meant is unknowable). Returns the sent reply when refused.
 */
function begin(request: FastifyRequest, reply: FastifyReply): FastifyReply | null {
  reply.header('x-request-id', request.id);
  restoreContentType(request);
  const duplicate = duplicatedSingletonHeader(request.raw.rawHeaders);
  if (duplicate === null) return null;
  dropUploads(request);
  return sendError(reply, new ParseError(`Duplicate ${duplicate} header.`));
}

/** Streamed multipart uploads may have temporary files: removed once the response is decided. */
function dropUploads(request: FastifyRequest): void {
  if (request.body instanceof MultipartBody) request.body.cleanup();
}

/** Requests Node cannot even parse: answer in the same JSON shape, then close. */
function onClientError(err: Error & { code?: string }, socket: import('node:net').Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, reason, detail] =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'Request Header Fields Too Large', 'Request header fields too large.']
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'Request Timeout', 'Request timeout.']
        : [400, 'Bad Request', 'Malformed request.'];
  const body = JSON.stringify({ detail });
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/** Errors raised outside a view (host check, unknown route, Fastify's own) as JSON. */
function sendError(reply: FastifyReply, err: ApiError): FastifyReply {
  reply.code(err.statusCode);
  const headers = err.headers;
  for (const name in headers) reply.header(replyHeaderName(name), headers[name]!);
  return reply.type('application/json').send(Buffer.from(JSON.stringify(err.toBody())));
}

declare module 'fastify' {
  interface FastifyInstance {
    trestle: AppContext;
  }
}
