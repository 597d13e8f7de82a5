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
import { AllowAny } from '../permissions.js';
import { ObtainAuthToken } from '../authtoken/obtain-auth-token.js';
import { listVersions, type VersioningDescription } from '../versioning/describe.js';
import { converterSchema, openapiPath } from './path-parameters.js';
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
    for (const route of registry.routes) {
      if (this.options.patternPrefix && !route.match.pattern.startsWith(this.options.patternPrefix)) continue;
      const view = route.view instanceof APIView ? route.view : new route.view();
      view.bind(app);
      const info = viewOpenAPI(view);
      if (info.exclude) continue;
      const path = openapiPath(route.parts);
      const item: OpenAPIPathItem = doc.paths[path] ?? {};
      const versions = listVersions(view);
      for (const method of METHODS) {
        if (item[method] || !view.allowedMethods.includes(method.toUpperCase())) continue;
        const op = this.operation(app, doc, route, view, method, info, versions);
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
  ): OpenAPIOperation {
    const action = actionFor(view, method, route.parts);
    const parameters = this.pathParameters(route.parts, versions);
    const paginator = view instanceof GenericAPIView ? view.paginator : null;
    const isList = action === 'list';
    if (isList && paginator) parameters.push(...(paginator.schemaParameters(view) as OpenAPIParameterObject[]));
    const filterBackends = isList && view instanceof GenericAPIView ? view.filterBackendInstances : [];
    for (const backend of filterBackends) parameters.push(...(backend.schemaParameters(view) as OpenAPIParameterObject[]));
    parameters.push(...versionParameters(versions));

    const itemSchema = info.itemSchema ?? {};
    let responseSchema: JsonSchema = isList ? { type: 'array', items: itemSchema } : itemSchema;
    if (isList && paginator) responseSchema = paginator.paginatedResponseSchema(responseSchema);

    const mediaTypes = responseMediaTypes(view, versions);
    const success = method === 'post' && action === 'create' ? '201' : method === 'delete' ? '204' : '200';
    const responses: Record<string, OpenAPIResponse> = {};
    responses[success] =
      success === '204'
        ? { description: 'No response body' }
        : { description: '', content: contentFor(mediaTypes, responseSchema) };

    const op: OpenAPIOperation = {
      operationId: operationId(view, action, isList),
      description: view.getViewDescription(),
      tags: info.tags ?? tagFor(route.parts, versions),
      parameters,
      responses,
    };
    const summary = view.getViewName();
    if (summary) op.summary = summary;
    if (WRITE_METHODS.has(method)) {
      const schema = info.requestSchema ?? info.itemSchema ?? { type: 'object' };
      op.requestBody = {
        content: Object.fromEntries(view.policies.parsers.map((p) => [p.mediaType, { schema }])),
      };
    }

    const schemes = view.policies.authenticators
      .map((a) => securitySchemeFor(a, app.settings))
      .filter((s) => s !== null);
    for (const s of schemes) doc.components.securitySchemes[s.name] ??= s.scheme;
    const open = view.policies.permissions.every((p) => p instanceof AllowAny);
    if (schemes.length > 0) {
      op.security = schemes.map((s) => ({ [s.name]: [] }));
      if (open) op.security.push({});
    }
    const errors = errorResponses(method, action, WRITE_METHODS.has(method), !open, route.parts, mediaTypes);
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

function operationId(view: APIView, action: string, isList: boolean): string {
  const words = view
    .getViewName()
    .replace(/\b(List|Instance)$/, '')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean);
  let base = words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join('') || 'Root';
  if (isList && !base.endsWith('s')) base += 's';
  return action.replace(/[^A-Za-z0-9]/g, '') + base;
}

function unique(id: string, seen: Set<string>): string {
  let out = id;
  for (let i = 2; seen.has(out); i++) out = `${id}${i}`;
  seen.add(out);
  return out;
}

/** The first literal path segment (DRF's tag), skipping the version segment. */
function tagFor(parts: readonly PatternPart[], versions: VersioningDescription | null): string[] {
  for (const part of parts) {
    if (part.kind !== 'text') continue;
    const segment = part.text.split('/').find((s) => s !== '');
    if (segment && !(versions?.versions.includes(segment))) return [segment];
  }
  return ['root'];
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

function errorResponses(
  method: Method,
  action: string,
  writes: boolean,
  guarded: boolean,
  parts: readonly PatternPart[],
  mediaTypes: readonly string[],
): Record<string, OpenAPIResponse> {
  const error = contentFor(mediaTypes, { $ref: '#/components/schemas/Error' });
  const out: Record<string, OpenAPIResponse> = {};
  if (writes) out['400'] = { description: 'Invalid input: a map of field names to error messages.' };
  if (guarded) {
    out['401'] = { description: 'Authentication credentials were not provided or are invalid.', content: error };
    out['403'] = { description: 'You do not have permission to perform this action.', content: error };
  }
  if (parts.some((p) => p.kind === 'param') && action !== 'list' && method !== 'post') {
    out['404'] = { description: 'Not found.', content: error };
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
    '400': { description: 'Unable to log in with provided credentials.' },
  };
  delete op.security;
}
