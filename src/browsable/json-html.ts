import { escapeHtml } from './escape-html.js';

const STRING_TOKEN = /"(?:[^"\\]|\\.)*"/g;
const LINKABLE = /^(https?:\/\/[^\s<>"]+|\/[^\s<>"]*)$/i;

/**
 * JSON text as HTML: everything escaped, and string values that are URLs
 * (`http://…`, `https://…` or a path starting with `/`) made into links, as
 * DRF's `urlize_quoted_links`. The href is the decoded value, escaped; other
 * schemes (`javascript:`) are never linked.
 */
export function jsonToHtml(text: string): string {
  let out = '';
  let last = 0;
  for (const m of text.matchAll(STRING_TOKEN)) {
    out += escapeHtml(text.slice(last, m.index));
    last = m.index + m[0].length;
    let value: unknown;
    try {
      value = JSON.parse(m[0]);
    } catch {
      value = null;
    }
    if (typeof value === 'string' && LINKABLE.test(value) && !value.startsWith('//')) {
      out += `&quot;<a href="${escapeHtml(value)}" rel="nofollow">${escapeHtml(m[0].slice(1, -1))}</a>&quot;`;
    } else {
      out += escapeHtml(m[0]);
    }
  }
  return out + escapeHtml(text.slice(last));
}
