/** A JSON Schema (2020-12, as OpenAPI 3.1 uses it). */
export type JsonSchema = Record<string, unknown>;

/** OpenAPI 3.1 Parameter Object (the subset Trestle emits). */
export interface OpenAPIParameterObject {
  name: string;
  in: 'query' | 'path' | 'header' | 'cookie';
  required: boolean;
  description?: string;
  schema: JsonSchema;
  style?: 'form';
  explode?: boolean;
}

/** OpenAPI 3.1 Media Type Object. */
export interface OpenAPIMediaType {
  schema: JsonSchema;
  example?: unknown;
}

/** OpenAPI 3.1 Response Object. */
export interface OpenAPIResponse {
  description: string;
  content?: Record<string, OpenAPIMediaType>;
  headers?: Record<string, { description?: string; schema: JsonSchema }>;
}

/** OpenAPI 3.1 Request Body Object. */
export interface OpenAPIRequestBody {
  required?: boolean;
  description?: string;
  content: Record<string, OpenAPIMediaType>;
}

/** OpenAPI 3.1 Operation Object. */
export interface OpenAPIOperation {
  operationId: string;
  summary?: string;
  description?: string;
  tags?: string[];
  parameters?: OpenAPIParameterObject[];
  requestBody?: OpenAPIRequestBody;
  responses: Record<string, OpenAPIResponse>;
  security?: Record<string, string[]>[];
  deprecated?: boolean;
}

export type OpenAPIPathItem = Partial<Record<'get' | 'put' | 'post' | 'delete' | 'patch', OpenAPIOperation>> & {
  parameters?: OpenAPIParameterObject[];
};

/** OpenAPI 3.1 Security Scheme Object. */
export type OpenAPISecurityScheme =
  | { type: 'http'; scheme: string; description?: string; bearerFormat?: string }
  | { type: 'apiKey'; in: 'header' | 'query' | 'cookie'; name: string; description?: string };

/** The whole document `GET /openapi.json` serves. */
export interface OpenAPIDocument {
  openapi: '3.1.0';
  info: { title: string; version: string; description?: string };
  servers?: { url: string; description?: string }[];
  paths: Record<string, OpenAPIPathItem>;
  components: {
    securitySchemes: Record<string, OpenAPISecurityScheme>;
    schemas?: Record<string, JsonSchema>;
  };
  tags?: { name: string; description?: string }[];
}

/**
 * What a view may declare about itself for the generated document, as the
 * `openapi` attribute:
 *
 * @example
 * class ItemList extends ListCreateAPIView<Item> {
 *   openapi: ViewOpenAPI = { tags: ['items'], itemSchema: { type: 'object', properties: { id: { type: 'integer' } } } };
 * }
 */
export interface ViewOpenAPI {
  /** Tags of every operation of the view (default: the first path segment). */
  tags?: string[];
  /** JSON Schema of one item as the view serializes it. */
  itemSchema?: JsonSchema;
  /** JSON Schema of a create/update body (default: `itemSchema`). */
  requestSchema?: JsonSchema;
  /** Per-method changes merged into the generated operation (`{ post: { summary: '…' } }`). */
  operations?: Partial<Record<'get' | 'put' | 'post' | 'delete' | 'patch', Partial<OpenAPIOperation>>>;
  /** Leave the view out of the document. */
  exclude?: boolean;
}
