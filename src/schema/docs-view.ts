import type { AppContext } from '../context.js';
import type { MediaType } from '../media-types.js';
import type { ApiRequest } from '../request.js';
import type { Renderer, RendererClass, RenderContext } from '../renderers/base.js';
import { APIView } from '../views/api-view.js';
import { escapeHtml } from '../browsable/escape-html.js';
import { DOCS_CSP, renderPage, setHtmlSecurityHeaders } from '../browsable/html-page.js';
import { errorPageBody } from '../pages/error-page.js';
import { getCsrfToken } from '../authentication/csrf.js';
import type { ViewOpenAPI } from './types.js';

/** Where the docs page finds the document: a URL, or the name of the route serving it. */
export interface DocsViewOptions {
  /** e.g. `/openapi.json`. */
  schemaUrl?: string;
  /** A route name to reverse, e.g. `openapi-schema` (used when `schemaUrl` is not given). */
  schemaUrlName?: string;
  /** The page title (default `API documentation`). */
  title?: string;
}

interface DocsPage {
  title: string;
  schemaUrl: string;
  csrfToken: string;
}

/** The docs page: Swagger UI from `swagger-ui-dist`, served by this app, started by a local script. */
export class DocsPageRenderer implements Renderer {
  mediaType = 'text/html';
  format = 'html';
  charset: string | null = 'utf-8';

  constructor(protected readonly app: AppContext) {}

  render(data: unknown, _accepted: MediaType, ctx: RenderContext): string {
    if (ctx.request) setHtmlSecurityHeaders(ctx.request.reply, DOCS_CSP);
    const page = data as Partial<DocsPage> & { detail?: string };
    if (typeof page.schemaUrl !== 'string') {
      // An error (403, 406…): say so in HTML.
      return renderPage(this.app.settings, { title: 'API documentation', body: errorPageBody(ctx.response.status, data) });
    }
    return renderPage(this.app.settings, {
      title: page.title ?? 'API documentation',
      // Swagger UI brings its own <main>; a second one would be a landmark error.
      main: false,
      body: `<h1>${escapeHtml(page.title ?? 'API documentation')}</h1>
<p class="note">OpenAPI document: <a href="${escapeHtml(page.schemaUrl)}">${escapeHtml(page.schemaUrl)}</a></p>
<div id="swagger-ui" data-schema-url="${escapeHtml(page.schemaUrl)}" data-csrf-token="${escapeHtml(page.csrfToken ?? '')}" data-csrf-header="${escapeHtml(this.app.settings.CSRF_HEADER_NAME)}"></div>`,
      styles: ['swagger-ui/swagger-ui.css'],
      scripts: ['swagger-ui/swagger-ui-bundle.js', 'docs.js'],
    });
  }
}

/**
 * `GET /docs/`: the OpenAPI document rendered by Swagger UI, every file
 * served locally (no CDN), under a CSP that allows no inline script.
 *
 * @example
 * path('docs/', new DocsView({ schemaUrlName: 'openapi-schema' }), { name: 'api-docs' })
 */
export class DocsView extends APIView {
  static override viewName = 'API documentation';
  override rendererClasses: RendererClass[] = [DocsPageRenderer];
  openapi: ViewOpenAPI = { exclude: true };

  constructor(readonly docsOptions: DocsViewOptions = {}) {
    super();
  }

  get(req: ApiRequest): DocsPage {
    const routes = req.app.services.get('routes');
    const schemaUrl = this.docsOptions.schemaUrl ?? routes.reverse(this.docsOptions.schemaUrlName ?? 'openapi-schema');
    return { title: this.docsOptions.title ?? 'API documentation', schemaUrl, csrfToken: getCsrfToken(req) };
  }
}
