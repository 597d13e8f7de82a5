import type { AppContext } from '../context.js';
import type { ApiRequest } from '../request.js';
import type { RendererClass } from '../renderers/base.js';
import { APIView } from '../views/api-view.js';
import { JSONRenderer } from '../renderers/json.js';
import { SchemaGenerator, type SchemaGeneratorOptions } from './generator.js';
import type { OpenAPIDocument, ViewOpenAPI } from './types.js';

/** `application/vnd.oai.openapi+json`, DRF's `JSONOpenAPIRenderer` (`?format=openapi-json`). */
export class JSONOpenAPIRenderer extends JSONRenderer {
  override mediaType = 'application/vnd.oai.openapi+json';
  override format = 'openapi-json';
}

/**
 * Serves the app's OpenAPI 3.1 document, as DRF's `get_schema_view()`:
 *
 * ```
 * GET /openapi.json HTTP/1.1
 * Accept: application/json
 * ```
 *
 * The document is built once per app, on first request (routes do not change
 * after `createApp`). Authentication and permissions are the settings'
 * defaults, as in DRF; set `permissionClasses` to restrict it.
 *
 * @example
 * path('openapi.json', new SchemaView({ title: 'Books API', version: '2.0.0' }), { name: 'openapi-schema' })
 */
export class SchemaView extends APIView {
  static override viewName = 'OpenAPI Schema';
  static override description = 'The OpenAPI 3.1 document of this API.';
  override rendererClasses: RendererClass[] = [JSONRenderer, JSONOpenAPIRenderer];
  openapi: ViewOpenAPI = { exclude: true };

  readonly generator: SchemaGenerator;
  private readonly cache = new WeakMap<AppContext, OpenAPIDocument>();

  constructor(options: SchemaGeneratorOptions = {}) {
    super();
    this.generator = new SchemaGenerator(options);
  }

  get(req: ApiRequest): OpenAPIDocument {
    let doc = this.cache.get(req.app);
    if (!doc) {
      doc = this.generator.generate(req.app);
      this.cache.set(req.app, doc);
    }
    return doc;
  }
}
