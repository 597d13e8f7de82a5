import type { FastifyReply } from 'fastify';
import type { Settings } from '../settings.js';
import { escapeHtml } from './escape-html.js';
import { staticUrl } from './static-url.js';

/**
 * The Content-Security-Policy of Trestle's HTML pages: scripts and styles
 * only from this origin (no inline script anywhere), no plug-ins, no
 * framing, forms post only here.
 */
export const PAGE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

/** Swagger UI sets inline `style` attributes, so the docs page allows inline styles (never scripts). */
export const DOCS_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; " +
  "form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

/** Sets CSP, `X-Content-Type-Options`, `X-Frame-Options` and `Referrer-Policy` on an HTML answer. */
export function setHtmlSecurityHeaders(reply: FastifyReply, csp: string = PAGE_CSP): void {
  reply.header('content-security-policy', csp);
  reply.header('x-content-type-options', 'nosniff');
  reply.header('x-frame-options', 'DENY');
  reply.header('referrer-policy', 'same-origin');
}

/** What a page is made of; every string except `body`/`nav` is escaped here. */
export interface PageParts {
  readonly title: string;
  /** Trusted markup, already escaped by the caller. */
  readonly body: string;
  /** Trusted markup for the right-hand side of the navigation bar. */
  readonly nav?: string;
  /** Brand text and link of the navigation bar. */
  readonly brand?: { readonly text: string; readonly href: string };
  /** Names of Trestle static files to load as scripts (`browsable.js`). */
  readonly scripts?: readonly string[];
  /** Extra stylesheets under Trestle's static prefix (`swagger-ui/swagger-ui.css`). */
  readonly styles?: readonly string[];
  /** `data-*` attributes of the `#trestle-page` element (values escaped here). */
  readonly data?: Readonly<Record<string, string>>;
}

/** A whole HTML document with Trestle's stylesheet and navigation bar. */
export function renderPage(settings: Readonly<Pick<Settings, 'STATIC_URL'>>, parts: PageParts): string {
  const brand = parts.brand ?? { text: 'Trestle', href: '/' };
  const data = Object.entries(parts.data ?? {})
    .map(([k, v]) => ` data-${escapeHtml(k)}="${escapeHtml(v)}"`)
    .join('');
  const styles = ['trestle.css', ...(parts.styles ?? [])]
    .map((name) => `<link rel="stylesheet" href="${escapeHtml(staticUrl(settings, name))}">`)
    .join('\n');
  const scripts = (parts.scripts ?? [])
    .map((name) => `<script src="${escapeHtml(staticUrl(settings, name))}" defer></script>`)
    .join('\n');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="NONE,NOARCHIVE">
<link rel="icon" href="data:,">
<title>${escapeHtml(parts.title)}</title>
${styles}
${scripts}
</head>
<body>
<div id="trestle-page"${data}>
<header class="navbar">
<a class="brand" href="${escapeHtml(brand.href)}">${escapeHtml(brand.text)}</a>
<span class="spacer"></span>
${parts.nav ?? ''}
</header>
<main class="container">
${parts.body}
</main>
</div>
</body>
</html>
`;
}
