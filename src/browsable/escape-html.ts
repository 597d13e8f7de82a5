const HTML_ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#x27;',
};

/**
 * Escapes text for HTML element content and quoted attribute values
 * (`& < > " '`, as Django's `escape`). Every value a page prints goes
 * through it; markup is only ever built from literals.
 *
 * @example
 * escapeHtml('<script>alert(1)</script>') // '&lt;script&gt;alert(1)&lt;/script&gt;'
 */
export function escapeHtml(value: unknown): string {
  return String(value ?? '').replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]!);
}

/**
 * A URL safe to put in `href`: only `http:`, `https:` and relative URLs pass;
 * `javascript:` and other schemes become `#`. The result still needs
 * `escapeHtml` (done here).
 */
export function safeHref(url: string): string {
  const trimmed = url.trim();
  if (/^[a-z][a-z0-9+.-]*:/i.test(trimmed) && !/^https?:/i.test(trimmed)) return '#';
  return escapeHtml(trimmed);
}
