import { ParseError } from '../exceptions.js';
import type { MediaType } from '../media-types.js';
import type { Parser, ParseResult } from './base.js';
import { CharsetDecodeError, decodeBody } from './charset.js';

/**
 * Parses `application/json` bodies, decoded per the `charset` parameter as
 * Django reads a body (UTF-8 when it names no codec Python knows); a broken
 * body is 400 `JSON parse error - …`.
 */
export class JSONParser implements Parser {
  mediaType = 'application/json';

  parse(body: Buffer, contentType: MediaType): ParseResult {
    let text: string;
    try {
      text = decodeBody(body, contentType.params['charset']);
    } catch (err) {
      if (!(err instanceof CharsetDecodeError)) throw err;
      throw new ParseError(`JSON parse error - ${err.message}`);
    }
    try {
      return { data: JSON.parse(text), files: {} };
    } catch (err) {
      throw new ParseError(`JSON parse error - ${(err as Error).message}`);
    }
  }
}
