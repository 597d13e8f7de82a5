import type { MediaType } from '../media-types.js';
import type { AppContext, PluginClass } from '../context.js';

export interface UploadedFile {
  readonly fieldName: string;
  readonly filename: string;
  readonly contentType: string;
  readonly data: Buffer;
  readonly size: number;
}

export interface ParseResult {
  data: unknown;
  files: Record<string, UploadedFile>;
}

/** Turns a request body of one media type into `request.data`. */
export interface Parser {
  readonly mediaType: string;
  /** Throws `ParseError` for a body that does not parse. */
  parse(body: Buffer, contentType: MediaType): ParseResult;
}

export type ParserClass = PluginClass<Parser>;
export type { AppContext };
