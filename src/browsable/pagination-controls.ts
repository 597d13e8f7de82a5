import { escapeHtml } from './escape-html.js';

/** One entry of DRF's page-number controls (`PageLink`). */
interface PageLinkLike {
  url: string | null;
  number: number | null;
  is_active: boolean;
  is_break: boolean;
}

/** Renders one pagination template from a pagination class's `htmlContext`. */
export type PaginationTemplate = (context: Readonly<Record<string, unknown>>) => string;

function link(url: unknown, rel: string, label: string, text: string): string {
  return typeof url === 'string'
    ? `<a class="btn" href="${escapeHtml(url)}" rel="${rel}" aria-label="${label}">${text}</a>`
    : `<span class="btn disabled" aria-disabled="true">${text}</span>`;
}

/** DRF's `rest_framework/pagination/numbers.html`: « 1 2 3 … 9 ». */
export const numbersTemplate: PaginationTemplate = (ctx) => {
  const items: string[] = [];
  const prev = ctx['previous_url'];
  const next = ctx['next_url'];
  items.push(
    typeof prev === 'string'
      ? `<li><a href="${escapeHtml(prev)}" rel="prev" aria-label="Previous">&laquo;</a></li>`
      : '<li class="disabled"><span aria-label="Previous">&laquo;</span></li>',
  );
  for (const page of (ctx['page_links'] as PageLinkLike[] | undefined) ?? []) {
    if (page.is_break) items.push('<li class="disabled"><span>&hellip;</span></li>');
    else if (page.is_active) items.push(`<li class="active"><a href="${escapeHtml(page.url ?? '#')}" aria-current="page">${escapeHtml(page.number)}</a></li>`);
    else items.push(`<li><a href="${escapeHtml(page.url ?? '#')}">${escapeHtml(page.number)}</a></li>`);
  }
  items.push(
    typeof next === 'string'
      ? `<li><a href="${escapeHtml(next)}" rel="next" aria-label="Next">&raquo;</a></li>`
      : '<li class="disabled"><span aria-label="Next">&raquo;</span></li>',
  );
  return `<ul class="pagination">${items.join('')}</ul>`;
};

/** DRF's `rest_framework/pagination/previous_and_next.html`: « Previous  Next ». */
export const previousAndNextTemplate: PaginationTemplate = (ctx) =>
  `<div class="pager">${link(ctx['previous_url'], 'prev', 'Previous', '&laquo; Previous')}${link(ctx['next_url'], 'next', 'Next', 'Next &raquo;')}</div>`;

/** Templates by the names pagination classes use (DRF's template paths). */
export const PAGINATION_TEMPLATES: Record<string, PaginationTemplate> = {
  'rest_framework/pagination/numbers.html': numbersTemplate,
  'rest_framework/pagination/previous_and_next.html': previousAndNextTemplate,
};

/**
 * The controls for a page: nothing when `template` is `null` or there is no
 * context; a template registered under that name; otherwise numbers when
 * the context has `page_links`, else previous/next.
 */
export function renderPaginationControls(
  template: string | null,
  context: Readonly<Record<string, unknown>> | null,
  templates: Readonly<Record<string, PaginationTemplate>> = PAGINATION_TEMPLATES,
): string {
  if (template === null || context === null) return '';
  const render =
    (Object.hasOwn(templates, template) ? templates[template] : undefined) ??
    (Array.isArray(context['page_links']) ? numbersTemplate : previousAndNextTemplate);
  return `<nav id="pagination-controls" aria-label="Pagination">${render(context)}</nav>`;
}
