import { ParseError } from '../exceptions.js';
import type { MediaType } from '../media-types.js';
import type { Parser, ParseResult } from './base.js';

/**
 * Parses `application/x-www-form-urlencoded` bodies into an object; a name
 * sent more than once keeps its last value, as Django's `QueryDict` does.
 */
export class FormParser implements Parser {
  mediaType = 'application/x-www-form-urlencoded';

  parse(body: Buffer, _contentType: MediaType): ParseResult {
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(body);
    } catch {
      throw new ParseError('Form parse error - the body is not valid UTF-8');
    }
    return { data: formToObject(new URLSearchParams(text)), files: {} };
  }
}

export function formToObject(params: URLSearchParams): Record<string, string> {
  const out: Record<string, string> = Object.create(null);
  for (const [k, v] of params) out[k] = v;
  return { ...out };
}
