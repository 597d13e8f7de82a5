/**
 * DRF's `replace_query_param` / `remove_query_param` for the links of a
 * page, with a shortcut for the URLs most pages are asked by: no fragment and
 * a query that is empty or names only the parameter being replaced
 * (`?page=3`, `?cursor=…`). Re-encoding such a query sorted by name leaves
 * just `key=value`, so the answer is spelt out without parsing and sorting;
 * every other URL goes the general way (src/utils/urls.ts).
 */
import { quotePlus, removeQueryParam, replaceQueryParam } from '../utils/urls.js';

// A name `quote_plus` leaves as it is.
const SAFE_NAME = /^[A-Za-z0-9_.\-~]+$/;

/** The URL without its query when its query is empty or only `key` / `key=…` and it has no fragment; else `null`. */
function onlyParamBase(url: string, key: string): string | null {
  if (url.indexOf('#') !== -1) return null;
  const q = url.indexOf('?');
  if (q === -1) return SAFE_NAME.test(key) ? url : null;
  const query = url.slice(q + 1);
  if (query !== '') {
    if (query.indexOf('&') !== -1 || !query.startsWith(key)) return null;
    if (query.length !== key.length && query.charCodeAt(key.length) !== 61 /* = */) return null;
  }
  return SAFE_NAME.test(key) ? url.slice(0, q) : null;
}

/** `replaceQueryParam(url, key, value)`, byte for byte. */
export function withParam(url: string, key: string, value: string | number): string {
  const base = onlyParamBase(url, key);
  if (base === null) return replaceQueryParam(url, key, value);
  return `${base}?${key}=${typeof value === 'number' ? quotePlus(String(value)) : quotePlus(value)}`;
}

/** `removeQueryParam(url, key)`, byte for byte. */
export function withoutParam(url: string, key: string): string {
  const base = onlyParamBase(url, key);
  return base === null ? removeQueryParam(url, key) : base;
}
