// Routes for the browsable API's companions: the OpenAPI document, the docs
// page and the admin console. Mount them next to the API's routes.
import { path, type AdminSite, type RouteEntry } from '../src/index.js';
import { SchemaView } from '../src/schema/schema-view.js';
import { DocsView } from '../src/schema/docs-view.js';
import { adminRoutes } from '../src/admin/routes.js';

/** `/openapi.json`, `/docs/` and the admin console at `/admin/` (with the models of `site`). */
export function browsableRoutes(site?: AdminSite): RouteEntry[] {
  return [
    path('openapi.json', new SchemaView({ title: 'Trestle example API', version: '1.0.0', pathPrefix: '/api/' }), { name: 'openapi-schema' }),
    path('docs/', new DocsView({ schemaUrlName: 'openapi-schema' }), { name: 'api-docs' }),
    adminRoutes({ prefix: 'admin/', ...(site ? { site } : {}) }),
  ];
}
