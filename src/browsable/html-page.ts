// The layout lives with the other page templates in src/pages/.
export {
  PAGE_CSP,
  DOCS_CSP,
  setHtmlSecurityHeaders,
  renderPage,
  breadcrumbsNav,
  type PageParts,
  type Breadcrumb,
} from '../pages/layout.js';
