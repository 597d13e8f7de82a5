import { ParseError } from '../exceptions.js';
import type { MediaType } from '../media-types.js';
import type { AppContext } from '../context.js';
import type { Parser, ParseResult } from './base.js';
import { CharsetDecodeError, decodeBody } from './charset.js';
import { jsonDepthExceeds } from './json-depth.js';

/**
 * Parses `application/json` bodies, decoded per the `charset` parameter as
 * Django reads a body (UTF-8 when it names no codec Python knows); a broken
 * body is 400 `JSON parse error - …`, and so is one nested deeper than
 * JSON_MAX_DEPTH (checked before parsing).
 */
export class JSONParser implements Parser {
  mediaType = 'application/json';
  /** Deepest nesting accepted; defaults to the JSON_MAX_DEPTH setting. */
  maxDepth: number;

  constructor(app?: AppContext) {
    this.maxDepth = app?.settings.JSON_MAX_DEPTH ?? 64;
  }

  parse(body: Buffer, contentType: MediaType): ParseResult {
    let text: string;
    try {
      text = decodeBody(body, contentType.params['charset']);
    } catch (err) {
      if (!(err instanceof CharsetDecodeError)) throw err;
      throw new ParseError(`JSON parse error - ${err.message}`);
    }
    if (jsonDepthExceeds(text, this.maxDepth)) {
      throw new ParseError(`JSON parse error - nesting is deeper than ${this.maxDepth} levels`);
    }
    try {
      return { data: JSON.parse(text), files: {} };
    } catch (err) {
      throw new ParseError(`JSON parse error - ${(err as Error).message}`);
    }
  }
}
