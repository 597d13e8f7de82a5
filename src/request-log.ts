import { performance } from 'node:perf_hooks';
import { LogController, type FastifyBaseLogger, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import { pino, type DestinationStream, type LoggerOptions } from 'pino';
import type { ApiRequest } from './request.js';

/** Where the route handler leaves the request's `ApiRequest`, for the log line that ends it. */
export const API_REQUEST = Symbol('trestle.apiRequest');

/** Query parameter names whose values are secrets in a log: tokens, passwords, keys, signatures, sessions. */
const SECRET_NAME = /token|passw|pwd|secret|key|signature|session|csrf|credential|auth_?code/i;

/**
 * `url` (path and query) with the values of secret-looking query parameters
 * (`?token=…`, `password`, `api_key`, `client_secret`, …) replaced by
 * `[redacted]`, for logs. A URL without a query is returned as is.
 */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q === -1) return url;
  const query = url.slice(q + 1);
  let changed = false;
  const parts = query.split('&').map((part) => {
    const eq = part.indexOf('=');
    if (eq === -1) return part;
    if (!SECRET_NAME.test(decodeName(part.slice(0, eq)))) return part;
    changed = true;
    return `${part.slice(0, eq)}=[redacted]`;
  });
  return changed ? `${url.slice(0, q)}?${parts.join('&')}` : url;
}

function decodeName(raw: string): string {
  if (!raw.includes('%') && !raw.includes('+')) return raw;
  try {
    return decodeURIComponent(raw.replaceAll('+', ' '));
  } catch {
    return raw;
  }
}

/**
 * The request log lines, saying which request: the line that starts a
 * request carries its method and URL, the line that ends it its method,
 * URL, status, time in ms and, when a scheme authenticated it, the user's
 * id. Secret-looking query values are redacted in both. Written at `info`
 * (a response that errors at `error`, at every level), from listeners on the
 * response that are added only while `info` lines are written: Fastify's own
 * two per request, which it adds whenever it has a logger, are not there
 * (see `appLogging`).
 *
 * ```
 * {"reqId":"…","method":"GET","url":"/auth/token/?token=[redacted]","statusCode":200,"responseTime":0.39,"userId":3,"msg":"request completed"}
 * ```
 */
export class RequestLogController extends LogController {
  readonly #logger: PinoLike;
  /** The logger Fastify hands a request when no child logger factory applies (its null logger); set by `createApp`. */
  fastifyLogger: unknown = undefined;

  constructor(logger: PinoLike) {
    super();
    this.#logger = logger;
  }

  override incomingRequest(request: FastifyRequest, reply: FastifyReply): void {
    // Fastify made no request logger (no factory for this route, see `appLogging`): the request's is made here.
    if (request.log === this.fastifyLogger) {
      const label = this.requestIdLogLabel;
      request.log = reply.log = requestChild(this.#logger, label === 'reqId' ? { reqId: request.id } : { [label]: request.id });
    }
    if (this.isLogDisabled(request)) return;
    const res = reply.raw;
    // A response that errors (a socket written after its end, a destroyed stream) is always a line.
    res.on('error', (err: Error) => this.#completed(err, request, reply));
    if (!infoEnabled(request.log)) return;
    (reply as unknown as Record<symbol, number>)[STARTED] = performance.now();
    // Once: an injected response (light-my-request) emits `finish` itself and again when Node's end completes.
    res.once('finish', () => this.#completed(null, request, reply));
    // Shaped as the request, so the `req` serializer (Fastify's or the app's) reads the redacted URL.
    const req = { method: request.method, url: redactUrl(request.url), headers: request.headers, host: request.host, ip: request.ip, socket: request.socket };
    request.log.info({ req }, 'incoming request');
  }

  /** A request refused while the app closes: Fastify hands over its null logger, the line goes to the app's. */
  override serviceUnavailable(logger: FastifyBaseLogger, server: Parameters<LogController['serviceUnavailable']>[1]): void {
    super.serviceUnavailable(logger === this.fastifyLogger ? this.#logger : logger, server);
  }

  /**
   * Fastify calls this from its own response listeners, which an app without
   * Fastify's logger has only when a route has `onResponse` hooks: the lines
   * come from the listeners `incomingRequest` adds, once.
   */
  override requestCompleted(): void {}

  #completed(error: Error | null, request: FastifyRequest, reply: FastifyReply): void {
    if (!error && !infoEnabled(reply.log)) return;
    const started = (reply as unknown as Record<symbol, number | undefined>)[STARTED];
    const fields: Record<string, unknown> = {
      method: request.method,
      url: redactUrl(request.url),
      statusCode: reply.statusCode,
      responseTime: started === undefined ? 0 : performance.now() - started,
    };
    const userId = authenticatedUserId(request);
    if (userId !== undefined) fields['userId'] = userId;
    if (error) reply.log.error({ ...fields, err: error }, 'request errored');
    else reply.log.info(fields, 'request completed');
  }
}

/** When a request's `incoming request` line was written: its `request completed` line gives the time since. */
const STARTED = Symbol('trestle.requestStarted');

/**
 * Whether an `info` line would be written: at LOG_LEVEL=warn the fields of
 * the request lines (the redacted URL, the client address, the time) are
 * not even gathered. A logger that cannot say is asked to log.
 */
function infoEnabled(log: FastifyRequest['log']): boolean {
  const isLevelEnabled = (log as { isLevelEnabled?: (level: string) => boolean }).isLevelEnabled;
  return typeof isLevelEnabled !== 'function' || isLevelEnabled.call(log, 'info');
}

function authenticatedUserId(request: FastifyRequest): string | number | null | undefined {
  const req = (request as unknown as Record<symbol, ApiRequest | null | undefined>)[API_REQUEST];
  if (!req || !req.isAuthenticationResolved) return undefined;
  const user = req.user as ApiRequest['user'] | null;
  return user?.isAuthenticated ? user.pk : undefined;
}

type ChildOptions = Parameters<FastifyBaseLogger['child']>[1];
type LogArgs = Parameters<FastifyBaseLogger['info']>;

interface PinoLike extends FastifyBaseLogger {
  isLevelEnabled(level: string): boolean;
}

function isPinoLike(logger: FastifyBaseLogger): logger is PinoLike {
  return typeof (logger as { isLevelEnabled?: unknown }).isLevelEnabled === 'function';
}

/**
 * A request's logger that makes its pino child (with the `reqId` binding)
 * only when a line is written: at LOG_LEVEL=warn most requests write none,
 * and a child costs more than the rest of the request's logging. Lines
 * below the app logger's level are dropped without it; the level is read
 * at each call, so raising the app's level later takes effect at once.
 */
export class DeferredChildLogger {
  readonly #parent: PinoLike;
  readonly #bindings: Record<string, unknown>;
  #child: FastifyBaseLogger | null = null;

  /** `parent`: the app's logger, whose `child` is called when a line is written. */
  constructor(parent: PinoLike, bindings: Record<string, unknown>) {
    this.#parent = parent;
    this.#bindings = bindings;
  }

  #made(): FastifyBaseLogger {
    return (this.#child ??= this.#parent.child(this.#bindings));
  }

  #writes(level: string): boolean {
    return this.#child !== null ? (this.#child as PinoLike).isLevelEnabled(level) : this.#parent.isLevelEnabled(level);
  }

  get level(): string {
    return (this.#child ?? this.#parent).level;
  }

  set level(level: string) {
    this.#made().level = level;
  }

  fatal(...args: LogArgs): void {
    if (this.#writes('fatal')) this.#made().fatal(...args);
  }

  error(...args: LogArgs): void {
    if (this.#writes('error')) this.#made().error(...args);
  }

  warn(...args: LogArgs): void {
    if (this.#writes('warn')) this.#made().warn(...args);
  }

  info(...args: LogArgs): void {
    if (this.#writes('info')) this.#made().info(...args);
  }

  debug(...args: LogArgs): void {
    if (this.#writes('debug')) this.#made().debug(...args);
  }

  trace(...args: LogArgs): void {
    if (this.#writes('trace')) this.#made().trace(...args);
  }

  silent(..._args: LogArgs): void {}

  child(bindings: Record<string, unknown>, options?: ChildOptions): FastifyBaseLogger {
    return this.#made().child(bindings, options);
  }

  isLevelEnabled(level: string): boolean {
    return this.#writes(level);
  }

  bindings(): Record<string, unknown> {
    return (this.#made() as unknown as { bindings(): Record<string, unknown> }).bindings();
  }

  setBindings(bindings: Record<string, unknown>): void {
    (this.#made() as unknown as { setBindings(b: Record<string, unknown>): void }).setBindings(bindings);
  }

  flush(callback?: (err?: Error) => void): void {
    (this.#parent as unknown as { flush(cb?: (err?: Error) => void): void }).flush(callback);
  }
}

function isEmpty(options: ChildOptions): boolean {
  if (options === undefined) return true;
  for (const _ in options) return false;
  return true;
}

/** Fastify's serializers for its request lines (fastify/lib/logger-pino.js): the app's logger writes what Fastify's would. */
const FASTIFY_SERIALIZERS = {
  req: (req: FastifyRequest) => ({
    method: req.method,
    url: req.url,
    version: req.headers?.['accept-version'],
    host: req.host,
    remoteAddress: req.ip,
    remotePort: req.socket ? req.socket.remotePort : undefined,
  }),
  err: pino.stdSerializers.err,
  res: (reply: FastifyReply) => ({ statusCode: reply.statusCode }),
};

/** What `createApp` gives Fastify for an app that logs. */
export interface AppLogging {
  /** The app's logger (`app.log`): pino, made from the `logger` option as Fastify makes it. */
  logger: FastifyBaseLogger;
  logController: RequestLogController;
  /** For a route with its own `logLevel` or `logSerializers` only (see `appLogging`). */
  childLoggerFactory: ChildLoggerFactory;
}

type ChildLoggerFactory = NonNullable<FastifyServerOptions['childLoggerFactory']>;

type LoggerOption = Exclude<NonNullable<FastifyServerOptions['logger']>, false>;

/**
 * The app's pino logger, made from Fastify's `logger` option as Fastify
 * makes it (`true`: level `info`; an object: pino's options, with `stream`
 * or `file` as its destination and Fastify's serializers under the app's
 * own), and the request loggers made from it: each request's child has the
 * `reqId` binding and is made only when a line is written while `info`
 * lines are off (`DeferredChildLogger`), pino's own child otherwise and
 * whenever a route sets its own log level or serializers.
 *
 * Fastify itself is given no logger: one it has makes it add a `finish` and
 * an `error` listener to every response, at every level, to write its
 * `request completed` line (see `RequestLogController` for Trestle's own).
 * Nor is it given a child logger factory for the app: it checks each
 * request logger a custom factory returns (seven method lookups per
 * request), and with no logger and its own factory it makes none, so the
 * controller makes each request's as the request comes in. Only a route
 * with its own `logLevel` or `logSerializers` gets `childLoggerFactory`
 * (`createApp` adds it when the route is registered): Fastify passes those
 * options to the factory, and the request's logger is pino's child.
 */
export function appLogging(option: LoggerOption): AppLogging {
  const logger = makeLogger(option);
  const childLoggerFactory: ChildLoggerFactory = (_fastifyLogger, bindings, options) => requestChild(logger, bindings, options);
  return { logger, logController: new RequestLogController(logger), childLoggerFactory };
}

/** A request's logger: deferred while `info` lines are off and the route sets no options of its own, else pino's child. */
function requestChild(logger: PinoLike, bindings: Record<string, unknown>, options?: ChildOptions): FastifyBaseLogger {
  if (isEmpty(options) && !logger.isLevelEnabled('info')) return new DeferredChildLogger(logger, bindings) as unknown as FastifyBaseLogger;
  return logger.child(bindings, options);
}

function makeLogger(option: LoggerOption): PinoLike {
  if (option === true) return makeLogger({});
  if (isPinoLike(option as FastifyBaseLogger)) {
    throw new TypeError('The logger option takes pino\'s options, not a logger: pass the options the logger was made with.');
  }
  const { stream, file, ...rest } = option as LoggerOptions & { stream?: DestinationStream; file?: string };
  if (stream !== undefined && file !== undefined) throw new TypeError('The logger option takes a stream or a file, not both.');
  const options: LoggerOptions = { ...rest, level: rest.level || 'info', serializers: { ...FASTIFY_SERIALIZERS, ...rest.serializers } };
  const destination = file !== undefined ? pino.destination(file) : stream;
  return destination === undefined ? pino(options) : pino(options, destination);
}
