import type { FilterControl } from '../filters/base.js';
import { escapeHtml } from './escape-html.js';

/** Parameters a new search, ordering or filter choice drops: the page position. */
const PAGE_PARAMS = new Set(['page', 'offset', 'cursor']);

function hiddenInputs(query: URLSearchParams, skip: ReadonlySet<string>): string {
  const out: string[] = [];
  for (const [k, v] of query) {
    if (skip.has(k) || PAGE_PARAMS.has(k)) continue;
    out.push(`<input type="hidden" name="${escapeHtml(k)}" value="${escapeHtml(v)}">`);
  }
  return out.join('');
}

function withParam(path: string, query: URLSearchParams, name: string, value: string): string {
  const q = new URLSearchParams();
  for (const [k, v] of query) if (k !== name && !PAGE_PARAMS.has(k)) q.append(k, v);
  q.set(name, value);
  return `${path}?${q}`;
}

const INPUT_TYPES: Record<string, string> = { integer: 'number', number: 'number', date: 'date', datetime: 'text', time: 'time' };

/**
 * The filter backends' controls (DRF's `to_html` templates, unstyled): a
 * search form, ordering links and a filter-set form, each a plain GET that
 * keeps the other parameters and drops the page position.
 */
export function renderFilterControls(controls: readonly FilterControl[], path: string, query: URLSearchParams): string {
  if (controls.length === 0) return '';
  const parts: string[] = [];
  for (const c of controls) {
    if (c.kind === 'search') {
      parts.push(
        `<form class="filter-search" method="get" role="search">${hiddenInputs(query, new Set([c.param]))}` +
          `<label>Search <input type="search" name="${escapeHtml(c.param)}" value="${escapeHtml(c.term)}"></label> <button type="submit" class="btn">Search</button></form>`,
      );
    } else if (c.kind === 'ordering') {
      const items = c.options.map((o) => {
        const current = o.value === c.current ? ' aria-current="true"' : '';
        return `<li><a href="${escapeHtml(withParam(path, query, c.param, o.value))}"${current}>${escapeHtml(o.label)}</a></li>`;
      });
      parts.push(`<div class="filter-ordering"><h2>Ordering</h2><ul>${items.join('')}</ul></div>`);
    } else {
      const names = new Set(c.fields.map((f) => f.param));
      const inputs = c.fields.map((f) => {
        const id = `filter-${f.param}`;
        let control: string;
        if (f.choices || f.type === 'boolean') {
          const choices = f.choices ?? ['true', 'false'];
          const options = ['', ...choices].map((v) => `<option value="${escapeHtml(v)}"${v === f.value ? ' selected' : ''}>${escapeHtml(v || '---------')}</option>`);
          control = `<select id="${escapeHtml(id)}" name="${escapeHtml(f.param)}">${options.join('')}</select>`;
        } else {
          // A NumberFilter takes fractions (django-filter renders its DecimalField with step="any").
          const step = f.type === 'number' ? ' step="any"' : '';
          control = `<input id="${escapeHtml(id)}" type="${INPUT_TYPES[f.type] ?? 'text'}"${step} name="${escapeHtml(f.param)}" value="${escapeHtml(f.value)}">`;
        }
        return `<p><label for="${escapeHtml(id)}">${escapeHtml(f.label)}</label> ${control}</p>`;
      });
      parts.push(`<form class="filter-fields" method="get">${hiddenInputs(query, names)}${inputs.join('')}<button type="submit" class="btn">Filter</button></form>`);
    }
  }
  return `<details id="filter-controls" class="filters"><summary class="btn">Filters</summary>${parts.join('')}</details>`;
}
