import { ParseError } from '../exceptions.js';
import type { MediaType } from '../media-types.js';
import type { Parser, ParseResult } from './base.js';

/** Parses `application/json` bodies; a broken body is 400 `JSON parse error - …`. */
export class JSONParser implements Parser {
  mediaType = 'application/json';

  parse(body: Buffer, contentType: MediaType): ParseResult {
    const charset = (contentType.params['charset'] ?? 'utf-8').toLowerCase();
    let text: string;
    try {
      text = new TextDecoder(charset, { fatal: true }).decode(body);
    } catch {
      throw new ParseError(`JSON parse error - could not decode the body as ${charset}`);
    }
    try {
      return { data: JSON.parse(text), files: {} };
    } catch (err) {
      throw new ParseError(`JSON parse error - ${(err as Error).message}`);
    }
  }
}
