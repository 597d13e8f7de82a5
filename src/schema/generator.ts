import type { AppContext } from '../context.js';
import type { CompiledRoute } from '../routing/registry.js';
import type { PatternPart } from '../routing/routes.js';
import { APIView } from '../views/api-view.js';
import {
  GenericAPIView,
  ListAPIView,
  ListCreateAPIView,
  RetrieveAPIView,
  RetrieveDestroyAPIView,
  RetrieveUpdateAPIView,
  RetrieveUpdateDestroyAPIView,
} from '../views/generics.js';
import type { ApiRequest } from '../request.js';
import type { Permission } from '../permissions.js';
import { ObtainAuthToken } from '../authtoken/obtain-auth-token.js';
import { SessionAuthentication } from '../authentication/session.js';
import { LoginView, LogoutView } from '../sessions/views.js';
import { PageNumberPagination } from '../pagination/page-number.js';
import { CursorPagination } from '../pagination/cursor.js';
import { Serializer, type Shape } from '../serializers/serializer.js';
import { listVersions, type VersioningDescription } from '../versioning/describe.js';
import { converterSchema, openapiPath } from './path-parameters.js';
import { converters } from '../routing/converters.js';
import { securitySchemeFor } from './security.js';
import { toOpenAPI31 } from './json-schema.js';
import type {
  JsonSchema,
  OpenAPIDocument,
  OpenAPIMediaType,
  OpenAPIOperation,
  OpenAPIParameterObject,
  OpenAPIPathItem,
  OpenAPIResponse,
  ViewOpenAPI,
} from './types.js';

/** What the document says about the API itself. */
export interface SchemaGeneratorOptions {
  /** `info.title` (default `Trestle API`). */
  title?: string;
  /** `info.version`: the API's version (default `1.0.0`). */
  version?: string;
  /** `info.description`. */
  description?: string;
  /** `servers`; by default none, so paths are relative to where the document was fetched. */
  servers?: { url: string; description?: string }[];
  /** Only routes whose pattern starts with this (e.g. `api/`). */
  patternPrefix?: string;
  /**
   * drf-spectacular's `SCHEMA_PATH_PREFIX`: removed from paths before they
   * become operation ids and tags (`/api/` makes `/api/books/` →
   * `books_list`, tag `books`). Default: the common path of all routes.
   */
  pathPrefix?: string;
}

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
const METHODS: readonly Method[] = ['get', 'post', 'put', 'patch', 'delete'];
const WRITE_METHODS: ReadonlySet<Method> = new Set(['post', 'put', 'patch']);

const ERROR_SCHEMA: JsonSchema = {
  type: 'object',
  properties: { detail: { type: 'string' } },
  required: ['detail'],
};

/**
 * Builds the OpenAPI 3.1 document of an app from its routes, as DRF's
 * `SchemaGenerator` + `AutoSchema`: one path per route (Django converters
 * become schema types), one operation per HTTP method the view implements,
 * the pagination class's query parameters and page shape on list
 * operations, the version parameter of the view's versioning scheme, and
 * security schemes for Basic, Token and session authentication.
 *
 * @example
 * const doc = new SchemaGenerator({ title: 'Books' }).generate(app.trestle);
 */
export class SchemaGenerator {
  constructor(readonly options: SchemaGeneratorOptions = {}) {}

  generate(app: AppContext): OpenAPIDocument {
    const doc: OpenAPIDocument = {
      openapi: '3.1.0',
      info: {
        title: this.options.title ?? 'Trestle API',
        version: this.options.version ?? '1.0.0',
        ...(this.options.description ? { description: this.options.description } : {}),
      },
      ...(this.options.servers ? { servers: this.options.servers } : {}),
      paths: {},
      components: { securitySchemes: {}, schemas: { Error: ERROR_SCHEMA } },
    };
    const operationIds = new Set<string>();
    const registry = app.services.get('routes');
    const endpoints: { route: CompiledRoute; view: APIView; info: ViewOpenAPI; path: string }[] = [];
    for (const route of registry.routes) {
      if (this.options.patternPrefix && !route.match.pattern.startsWith(this.options.patternPrefix)) continue;
      const view = route.view instanceof APIView ? route.view : new route.view();
      view.bind(app);
      const info = viewOpenAPI(view);
      if (info.exclude) continue;
      endpoints.push({ route, view, info, path: openapiPath(route.parts) });
    }
    const prefix = this.options.pathPrefix ?? commonPath(endpoints.map((e) => e.path));
    for (const { route, view, info, path } of endpoints) {
      const item: OpenAPIPathItem = doc.paths[path] ?? {};
      const versions = listVersions(view);
      const tokens = tokenizePath(path, prefix);
      for (const method of METHODS) {
        if (item[method] || !view.allowedMethods.includes(method.toUpperCase())) continue;
        const op = this.operation(app, doc, route, view, method, info, versions, tokens);
        op.operationId = unique(op.operationId, operationIds);
        item[method] = op;
      }
      if (METHODS.some((m) => item[m])) doc.paths[path] = item;
    }
    return toOpenAPI31(doc) as OpenAPIDocument;
  }

  /** One operation; override to change what every operation looks like. */
  protected operation(
    app: AppContext,
    doc: OpenAPIDocument,
    route: CompiledRoute,
    view: APIView,
    method: Method,
    info: ViewOpenAPI,
    versions: VersioningDescription | null,
    tokens: readonly string[] = [],
  ): OpenAPIOperation {
    const action = actionFor(view, method, route.parts);
    const parameters = this.pathParameters(route.parts, versions);
    if (view instanceof GenericAPIView) typeLookupParameter(view, parameters);
    const paginator = view instanceof GenericAPIView ? view.paginator : null;
    const isList = action === 'list' || (method === 'get' && view instanceof GenericAPIView && isListView(view, route.parts) && !(view as { actionMap?: unknown }).actionMap);
    if (isList && paginator) parameters.push(...(paginator.schemaParameters(view) as OpenAPIParameterObject[]));
    const filterBackends = isList && view instanceof GenericAPIView ? view.filterBackendInstances : [];
    for (const backend of filterBackends) parameters.push(...(backend.schemaParameters(view) as OpenAPIParameterObject[]));
    parameters.push(...versionParameters(versions));

    // The view's serializer without a request (`getSerializerClass(null)`), and each version's.
    const serializer = !info.itemSchema && view instanceof GenericAPIView ? (view.getSerializerClass(null) as Serializer<Shape> | undefined) : undefined;
    const components = serializer ? this.serializerComponents(doc, serializer, view) : null;
    const byVersion = components && view instanceof GenericAPIView ? view.serializerByVersion : undefined;
    const variants = components ? [components, ...Object.values(byVersion ?? {}).map((s) => this.serializerComponents(doc, s as Serializer<Shape>, view))] : [];
    /** A ref to one component of the serializer, or `oneOf` the versions' when they differ. */
    const anyVersion = (pick: (c: NonNullable<typeof components>) => string): JsonSchema => {
      const names = [...new Set(variants.map(pick))];
      return names.length > 1 ? { oneOf: names.map(ref) } : ref(names[0]!);
    };
    const itemSchema = info.itemSchema ?? (components ? anyVersion((c) => c.response) : {});
    let responseSchema: JsonSchema = isList ? { type: 'array', items: itemSchema } : itemSchema;
    if (isList && paginator) {
      const page = paginator.paginatedResponseSchema(responseSchema);
      responseSchema = components ? ref(register(doc, `Paginated${components.name}List`, page)) : page;
    }

    const mediaTypes = responseMediaTypes(view, versions);
    const success = method === 'post' && action === 'create' ? '201' : method === 'delete' ? '204' : '200';
    const responses: Record<string, OpenAPIResponse> = {};
    responses[success] =
      success === '204'
        ? { description: 'No response body' }
        : { description: '', content: contentFor(mediaTypes, responseSchema) };

    const op: OpenAPIOperation = {
      operationId: operationId(tokens, method, isList),
      description: view.getViewDescription(),
      tags: info.tags ?? [tokens[0] ?? 'root'],
      parameters,
      responses,
    };
    const summary = view.getViewName();
    if (summary) op.summary = summary;
    if (WRITE_METHODS.has(method)) {
      const schema =
        info.requestSchema ??
        info.itemSchema ??
        (components ? anyVersion((c) => (method === 'patch' ? c.patched : c.request)) : { type: 'object' });
      op.requestBody = {
        ...(components && method !== 'patch' ? { required: true } : {}),
        content: Object.fromEntries(view.policies.parsers.map((p) => [p.mediaType, { schema }])),
      };
    }

    const schemes = view.policies.authenticators
      .map((a) => securitySchemeFor(a, app.settings))
      .filter((s) => s !== null);
    for (const s of schemes) doc.components.securitySchemes[s.name] ??= s.scheme;
    const anonymous = allowsAnonymous(app, view, method);
    if (schemes.length > 0) {
      op.security = schemes.map((s) => ({ [s.name]: [] }));
      if (anonymous) op.security.push({});
    }
    const errors = errorResponses({
      view,
      method,
      isList,
      anonymous,
      paginator,
      parts: route.parts,
      versions,
      mediaTypes,
      validationError: components ? anyVersion((c) => c.validationError) : ref(register(doc, 'ValidationError', GENERIC_VALIDATION_ERROR)),
    });
    Object.assign(op.responses, errors);
    if (filterBackends.length > 0) {
      op.responses['400'] ??= { description: 'Invalid filter or search parameter: a map of parameter names to error messages.' };
    }

    if (view instanceof ObtainAuthToken) describeObtainToken(op, view);
    if (versions && Object.keys(versions.deprecated).length > 0 && versions.versions.every((v) => v in versions.deprecated)) {
      op.deprecated = true;
    }
    const extra = info.operations?.[method];
    return extra ? { ...op, ...extra, responses: { ...op.responses, ...extra.responses } } : op;
  }

  /**
   * The components of a serializer, named as drf-spectacular names them:
   * `Book` (response), `BookRequest` and `PatchedBookRequest` when the request
   * differs (read-only or write-only fields), else `Book` and `PatchedBook`;
   * and `BookValidationError`, the 400 field map.
   */
  protected serializerComponents(
    doc: OpenAPIDocument,
    serializer: Serializer<Shape>,
    view: APIView,
  ): { name: string; response: string; request: string; patched: string; validationError: string } {
    const name = serializer.name ?? componentName(view);
    const responseSchema = serializer.objectSchema('response');
    const requestSchema = serializer.objectSchema('request');
    const split = JSON.stringify(responseSchema) !== JSON.stringify(requestSchema);
    const response = register(doc, name, split ? responseSchema : requestSchema);
    const request = split ? register(doc, `${name}Request`, requestSchema) : response;
    const patched = register(doc, split ? `Patched${name}Request` : `Patched${name}`, serializer.objectSchema('partial'));
    const validationError = register(doc, `${name}ValidationError`, serializer.errorSchema(this.nonFieldErrorsKey(view)));
    return { name, response, request, patched, validationError };
  }

  private nonFieldErrorsKey(view: APIView): string {
    return (view as { app?: AppContext }).app?.settings.NON_FIELD_ERRORS_KEY ?? 'non_field_errors';
  }

  /** Path parameters with converter types; the URL-path version gets its allowed values. */
  protected pathParameters(parts: readonly PatternPart[], versions: VersioningDescription | null): OpenAPIParameterObject[] {
    const out: OpenAPIParameterObject[] = [];
    for (const part of parts) {
      if (part.kind !== 'param') continue;
      const schema = converterSchema(part);
      let description: string | undefined;
      if (versions && versions.location === 'path' && versions.name === part.name) {
        if (versions.versions.length > 0) schema['enum'] = [...versions.versions];
        description = 'The API version.';
      }
      out.push({ name: part.name, in: 'path', required: true, ...(description ? { description } : {}), schema });
    }
    return out;
  }
}

/** `generateOpenAPI(app)`: the document of an app (or a `TrestleApp`). */
export function generateOpenAPI(app: AppContext | { trestle: AppContext }, options: SchemaGeneratorOptions = {}): OpenAPIDocument {
  const ctx = 'trestle' in app ? app.trestle : app;
  return new SchemaGenerator(options).generate(ctx);
}

function viewOpenAPI(view: APIView): ViewOpenAPI {
  return (view as { openapi?: ViewOpenAPI }).openapi ?? {};
}

const DETAIL_VIEWS = [RetrieveAPIView, RetrieveUpdateAPIView, RetrieveDestroyAPIView, RetrieveUpdateDestroyAPIView];

/** DRF's action names: viewsets say theirs; generic views are list/retrieve/create/update/partialUpdate/destroy. */
function actionFor(view: APIView, method: Method, parts: readonly PatternPart[]): string {
  const map = (view as { actionMap?: Partial<Record<Method, string>> | null }).actionMap;
  if (map) return map[method] ?? method;
  if (!(view instanceof GenericAPIView)) return method;
  switch (method) {
    case 'get':
      return isListView(view, parts) ? 'list' : 'retrieve';
    case 'post':
      return 'create';
    case 'put':
      return 'update';
    case 'patch':
      return 'partialUpdate';
    case 'delete':
      return 'destroy';
  }
}

/** DRF's `is_list_view`: list classes are; detail classes and paths ending in a parameter are not. */
function isListView(view: GenericAPIView, parts: readonly PatternPart[]): boolean {
  if (view instanceof ListAPIView || view instanceof ListCreateAPIView) return true;
  if (DETAIL_VIEWS.some((C) => view instanceof C)) return false;
  const meaningful = parts.filter((p) => p.kind === 'param' || p.text.replace(/\//g, '') !== '');
  const last = meaningful[meaningful.length - 1];
  return !(last && last.kind === 'param');
}

const METHOD_ACTIONS: Record<Method, string> = { get: 'retrieve', post: 'create', put: 'update', patch: 'partial_update', delete: 'destroy' };

/** drf-spectacular's operation id: the path's words (no parameters, no prefix) and the action: `books_list`, `books_partial_update`. */
function operationId(tokens: readonly string[], method: Method, isList: boolean): string {
  const words = tokens.length > 0 ? tokens.map((t) => t.replace(/-/g, '_')) : ['root'];
  return [...words, method === 'get' && isList ? 'list' : METHOD_ACTIONS[method]].join('_');
}

/**
 * A `<pk>` route whose view converts its lookup value (`lookupValueConverter`,
 * `int` for `id`) is documented with that converter's type, as
 * drf-spectacular types it from the model field.
 */
function typeLookupParameter(view: GenericAPIView, parameters: OpenAPIParameterObject[]): void {
  const name =
    typeof view.lookupConverterName === 'function' ? view.lookupConverterName() : (view.lookupValueConverter ?? (view.lookupField === 'id' ? 'int' : 'str'));
  const converter = converters[name];
  if (!converter) return;
  const kwargs = [view.lookupUrlKwarg ?? view.lookupField, 'pk'];
  for (const p of parameters) {
    if (p.in !== 'path' || !kwargs.includes(p.name) || p.schema['type'] !== 'string' || p.schema['pattern'] || p.schema['format']) continue;
    p.schema = converterSchema({ kind: 'param', name: p.name, converter, converterName: name });
  }
}

/** drf-spectacular's `_tokenize_path`: the path without the prefix and parameters, split on `/`. */
function tokenizePath(path: string, prefix: string): string[] {
  let rest = path;
  if (prefix && rest.toLowerCase().startsWith(prefix.toLowerCase())) rest = rest.slice(prefix.length);
  rest = rest.replace(/\{[\w-]+\}/g, '');
  return rest.split('/').filter((t) => t !== '');
}

/** Python's `os.path.commonpath` of the document's paths (drf-spectacular's default prefix). */
function commonPath(paths: readonly string[]): string {
  if (paths.length === 0) return '/';
  const split = paths.map((p) => p.split('/').filter((s) => s !== ''));
  const first = split[0]!;
  let n = 0;
  while (n < first.length && split.every((s) => s[n] === first[n] && !/^\{/.test(first[n]!))) n++;
  return `/${first.slice(0, n).join('/')}`;
}

/** A component name from the view's name (`Book List` → `Book`), when the serializer has none. */
function componentName(view: APIView): string {
  // The class's name: an extra action's own view name ("Favourite") does not name the viewset's serializer.
  const words = APIView.prototype.getViewName
    .call(view)
    .replace(/\b(List|Instance|View ?Set)$/, '')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean);
  return words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join('') || 'Item';
}

function ref(name: string): JsonSchema {
  return { $ref: `#/components/schemas/${name}` };
}

/** Adds a component (or finds the same one); a different schema under a taken name gets a number. */
function register(doc: OpenAPIDocument, name: string, schema: JsonSchema): string {
  const schemas = (doc.components.schemas ??= {});
  const text = JSON.stringify(schema);
  for (let i = 1; ; i++) {
    const candidate = i === 1 ? name : `${name}${i}`;
    const existing = schemas[candidate];
    if (!existing) {
      schemas[candidate] = schema;
      return candidate;
    }
    if (JSON.stringify(existing) === text) return candidate;
  }
}

const GENERIC_VALIDATION_ERROR: JsonSchema = {
  type: 'object',
  description: 'Field names (or `non_field_errors`) and their error messages.',
  additionalProperties: {},
};

/**
 * Whether an anonymous request with this method passes every permission:
 * then the operation's `security` also lists `{}` (no credentials), as
 * drf-spectacular does for `AllowAny`, and for `IsAuthenticatedOrReadOnly`
 * on safe methods. Each permission is asked with an anonymous probe;
 * compositions (`and`, `or`, `not`) are evaluated operand by operand, since
 * their own `hasPermission` is asynchronous. A permission that answers
 * asynchronously or throws counts as refusing.
 */
function allowsAnonymous(app: AppContext, view: APIView, method: Method): boolean {
  const user = app.settings.UNAUTHENTICATED_USER?.() ?? null;
  const probe = { method: method.toUpperCase(), user, auth: null, query: {}, params: {}, headers: {}, app } as unknown as ApiRequest;
  return view.policies.permissions.every((p) => admitsProbe(p, probe, view) === true);
}

interface ComposedPermission {
  operator: 'and' | 'or' | 'not';
  op1: Permission;
  op2?: Permission;
}

/** `true`/`false`, or `null` when the permission cannot be decided without waiting. */
function admitsProbe(permission: Permission, probe: ApiRequest, view: APIView): boolean | null {
  const composed = permission as Partial<ComposedPermission>;
  if (composed.op1 && (composed.operator === 'and' || composed.operator === 'or' || composed.operator === 'not')) {
    const a = admitsProbe(composed.op1, probe, view);
    if (composed.operator === 'not') return a === null ? null : !a;
    const b = composed.op2 ? admitsProbe(composed.op2, probe, view) : null;
    if (composed.operator === 'and') return a === false || b === false ? false : a === null || b === null ? null : true;
    return a === true || b === true ? true : a === null || b === null ? null : false;
  }
  try {
    const answer = permission.hasPermission(probe, view);
    if (typeof answer === 'boolean') return answer;
    void Promise.resolve(answer).catch(() => {});
    return null;
  } catch {
    return null;
  }
}

function unique(id: string, seen: Set<string>): string {
  let out = id;
  for (let i = 2; seen.has(out); i++) out = `${id}${i}`;
  seen.add(out);
  return out;
}

function versionParameters(versions: VersioningDescription | null): OpenAPIParameterObject[] {
  if (!versions || !versions.name) return [];
  if (versions.location !== 'query' && versions.location !== 'header') return [];
  const schema: JsonSchema = { type: 'string' };
  if (versions.versions.length > 0) schema['enum'] = [...versions.versions];
  if (versions.defaultVersion !== null) schema['default'] = versions.defaultVersion;
  const fallback = versions.defaultVersion === null ? '' : ` Without it, "${versions.defaultVersion}".`;
  return [
    {
      name: versions.name,
      in: versions.location,
      required: false,
      description: `The API version.${fallback}`,
      schema,
    },
  ];
}

/** JSON media types the view renders; with Accept-header versioning, one per version too. */
function responseMediaTypes(view: APIView, versions: VersioningDescription | null): string[] {
  const base = view.policies.renderers.map((r) => r.mediaType).filter((t) => t !== 'text/html');
  const types = base.length > 0 ? base : ['application/json'];
  if (!versions || versions.location !== 'media-type' || !versions.name) return types;
  const out = [...types];
  for (const t of types) for (const v of versions.versions) out.push(`${t}; ${versions.name}=${v}`);
  return out;
}

function contentFor(mediaTypes: readonly string[], schema: JsonSchema): Record<string, OpenAPIMediaType> {
  return Object.fromEntries(mediaTypes.map((t) => [t, { schema }]));
}

interface ErrorContext {
  view: APIView;
  method: Method;
  isList: boolean;
  anonymous: boolean;
  paginator: unknown;
  parts: readonly PatternPart[];
  versions: VersioningDescription | null;
  mediaTypes: readonly string[];
  validationError: JsonSchema;
}

/**
 * The errors an operation can answer, as the pipeline produces them: 400 on
 * writes (the serializer's field map); 401 when the first authentication
 * scheme has a `WWW-Authenticate` challenge and credentials can be missing or
 * wrong, 403 when permissions can refuse or the first scheme has no challenge
 * (DRF answers 403 then), or a session write may lack its CSRF token; 404 on
 * objects, on invalid pages and cursors, and on a wrong version in the path;
 * 429 when the view throttles.
 */
function errorResponses(c: ErrorContext): Record<string, OpenAPIResponse> {
  const error = contentFor(c.mediaTypes, { $ref: '#/components/schemas/Error' });
  const out: Record<string, OpenAPIResponse> = {};
  const { authenticators, throttles } = c.view.policies;
  if (WRITE_METHODS.has(c.method)) {
    out['400'] = { description: 'Invalid input: a map of field names to error messages.', content: contentFor(c.mediaTypes, c.validationError) };
  }
  const first = authenticators[0];
  const challenge = Boolean(first && typeof first.authenticateHeader === 'function' && !(first instanceof SessionAuthentication));
  const credentialsCanFail = authenticators.length > 0;
  if ((credentialsCanFail || !c.anonymous) && challenge) {
    out['401'] = { description: 'Authentication credentials were not provided or are invalid.', content: error };
  }
  const unsafe = WRITE_METHODS.has(c.method) || c.method === 'delete';
  const csrf = unsafe && (authenticators.some((a) => a instanceof SessionAuthentication) || c.view instanceof LoginView || c.view instanceof LogoutView);
  if (!c.anonymous || (credentialsCanFail && !challenge) || csrf) {
    out['403'] = { description: 'You do not have permission to perform this action.', content: error };
  }
  const pathVersion = c.versions?.location === 'path';
  // A POST is on a collection, except a viewset's extra detail action (`<prefix>/<pk>/<action>/`), which looks its object up.
  const onObject = c.method !== 'post' || (c.view as { detail?: unknown }).detail === true;
  const detail = c.parts.some((p) => p.kind === 'param' && !(pathVersion && p.name === c.versions?.name)) && !c.isList && onObject;
  const badPage = c.isList && (c.paginator instanceof PageNumberPagination || c.paginator instanceof CursorPagination);
  if (detail || badPage || pathVersion) {
    out['404'] = { description: badPage ? 'Not found, or an invalid page or cursor.' : 'Not found.', content: error };
  }
  if (throttles.length > 0) {
    out['429'] = {
      description: 'Request was throttled.',
      headers: { 'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer' } } },
      content: error,
    };
  }
  return out;
}

/** The obtain-token endpoint: username and password in, `{"token": …}` out, no credentials needed. */
function describeObtainToken(op: OpenAPIOperation, view: ObtainAuthToken): void {
  const credentials: JsonSchema = {
    type: 'object',
    properties: { username: { type: 'string' }, password: { type: 'string', format: 'password' } },
    required: ['username', 'password'],
  };
  op.summary = 'Obtain an auth token';
  op.description = 'Exchanges a username and password for the user\'s token; send it as `Authorization: Token <key>`.';
  op.tags = ['auth'];
  op.requestBody = {
    required: true,
    content: Object.fromEntries(view.policies.parsers.map((p) => [p.mediaType, { schema: credentials }])),
  };
  op.responses = {
    '200': {
      description: 'The token of the user.',
      content: { 'application/json': { schema: { type: 'object', properties: { token: { type: 'string' } }, required: ['token'] } } },
    },
    '400': {
      description: 'Missing fields, or "Unable to log in with provided credentials." under non_field_errors.',
      content: {
        'application/json': {
          schema: {
            type: 'object',
            properties: Object.fromEntries(['username', 'password', 'non_field_errors'].map((k) => [k, { type: 'array', items: { type: 'string' } }])),
          },
        },
      },
    },
  };
  delete op.security;
}
