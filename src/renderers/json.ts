import type { MediaType } from '../media-types.js';
import type { Renderer } from './base.js';
import type { AppContext } from '../context.js';
import { indentJson } from './indent-json.js';

const LINE_SEPARATORS = /[\u2028\u2029]/g;

/**
 * Renders JSON compactly, as DRF's `JSONRenderer` with its default settings.
 * `Accept: application/json; indent=4` pretty-prints (at most 8, and only
 * while the result stays within JSON_INDENT_MAX_SIZE; past it the body is
 * sent compact, so indentation cannot multiply a nested body by its
 * depth). A subclass changes
 * `mediaType` to serve a vendor type:
 *
 * @example
 * class AcmeJSONRenderer extends JSONRenderer { override mediaType = 'application/vnd.acme+json'; }
 */
export class JSONRenderer implements Renderer {
  mediaType = 'application/json';
  format = 'json';
  charset: string | null = null;
  /** Largest indented body, in characters; defaults to the JSON_INDENT_MAX_SIZE setting. */
  maxIndentedSize: number;

  constructor(app?: AppContext) {
    this.maxIndentedSize = app?.settings.JSON_INDENT_MAX_SIZE ?? 1_048_576;
  }

  render(data: unknown, accepted: MediaType): string {
    if (data === undefined || data === null) return '';
    const indentParam = accepted.params['indent'];
    let indent = 0;
    if (indentParam !== undefined) {
      const n = Number.parseInt(indentParam, 10);
      if (Number.isInteger(n)) indent = Math.max(0, Math.min(n, 8));
    }
    const compact = JSON.stringify(data);
    if (compact === undefined) return '';
    const text = indent > 0 ? (indentJson(compact, indent, this.maxIndentedSize) ?? compact) : compact;
    // U+2028/2029 are valid JSON but break JavaScript parsers; DRF escapes them too. Looked for
    // with indexOf: a regular expression scans every character of a body with any non-Latin-1
    // text in it (0.2 µs for one 200-character book), indexOf answers at once for Latin-1 text.
    return text.indexOf('\u2028') !== -1 || text.indexOf('\u2029') !== -1
      ? text.replace(LINE_SEPARATORS, (c) => (c === '\u2028' ? '\\u2028' : '\\u2029'))
      : text;
  }
}
