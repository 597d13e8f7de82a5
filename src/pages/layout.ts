import type { FastifyReply } from 'fastify';
import type { Settings } from '../settings.js';
import { staticUrl } from '../browsable/static-url.js';
import { html, unsafeRaw, type SafeHtml } from './html.js';

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

/** One step of the breadcrumbs: the last one is the current page. */
export interface Breadcrumb {
  readonly name: string;
  readonly url: string;
}

/** What a page is made of; every string except `body`/`nav` is escaped here. */
export interface PageParts {
  readonly title: string;
  /** Trusted markup, already escaped by the caller. */
  readonly body: string | SafeHtml;
  /** Trusted markup for the right-hand side of the navigation bar. */
  readonly nav?: string | SafeHtml;
  /** Brand text and link of the navigation bar. */
  readonly brand?: { readonly text: string; readonly href: string };
  /** Shown above the body; the last entry is the current page. */
  readonly breadcrumbs?: readonly Breadcrumb[];
  /** Names of Trestle static files to load as scripts (`browsable.js`). */
  readonly scripts?: readonly string[];
  /** Extra stylesheets under Trestle's static prefix (`swagger-ui/swagger-ui.css`). */
  readonly styles?: readonly string[];
  /** `data-*` attributes of the `#trestle-page` element (values escaped here). */
  readonly data?: Readonly<Record<string, string>>;
  /**
   * Wrap the body in `<main>` (default). A page whose body brings its own
   * `main` landmark (Swagger UI) says `false`.
   */
  readonly main?: boolean;
}

/** The breadcrumbs trail: links, then the current page (`aria-current`). */
export function breadcrumbsNav(crumbs: readonly Breadcrumb[]): SafeHtml {
  if (crumbs.length === 0) return html``;
  return html`<nav aria-label="Breadcrumbs"><ol class="breadcrumb">${crumbs.map((c, i) =>
    i === crumbs.length - 1
      ? html`<li><a href="${c.url}" aria-current="page">${c.name}</a></li>`
      : html`<li><a href="${c.url}">${c.name}</a></li>`,
  )}</ol></nav>`;
}

/**
 * A whole HTML document with Trestle's stylesheet and navigation bar: the
 * one layout of the login page, the browsable API, the admin console, the
 * docs page and the error pages.
 */
export function renderPage(settings: Readonly<Pick<Settings, 'STATIC_URL'>>, parts: PageParts): string {
  const brand = parts.brand ?? { text: 'Trestle', href: '/' };
  const data = Object.entries(parts.data ?? {}).map(([k, v]) => html` data-${k}="${v}"`);
  const styles = ['trestle.css', ...(parts.styles ?? [])].map((name) => html`<link rel="stylesheet" href="${staticUrl(settings, name)}">\n`);
  const scripts = (parts.scripts ?? []).map((name) => html`<script src="${staticUrl(settings, name)}" defer></script>\n`);
  const body = html`${breadcrumbsNav(parts.breadcrumbs ?? [])}\n${unsafeRaw(String(parts.body))}`;
  const main = parts.main === false ? html`<div class="container">\n${body}\n</div>` : html`<main class="container">\n${body}\n</main>`;
  return html`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="NONE,NOARCHIVE">
<link rel="icon" href="data:,">
<title>${parts.title}</title>
${styles}${scripts}</head>
<body>
<div id="trestle-page"${data}>
<header class="navbar">
<a class="brand" href="${brand.href}">${brand.text}</a>
<span class="spacer"></span>
${unsafeRaw(String(parts.nav ?? ''))}
</header>
${main}
</div>
</body>
</html>
`.value;
}
