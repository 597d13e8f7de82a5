import type { MediaType } from '../media-types.js';
import type { AppContext, PluginClass } from '../context.js';

export interface UploadedFile {
  readonly fieldName: string;
  readonly filename: string;
  readonly contentType: string;
  /** The content; a file past FILE_UPLOAD_MAX_MEMORY_SIZE is read from `path` on each access. */
  readonly data: Buffer;
  readonly size: number;
  /** The temporary file holding a large upload (mode 0600, deleted after the response), else absent/null. */
  readonly path?: string | null;
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

/** What a multipart body read while it arrived holds (see `parsers/multipart-stream.ts`). */
export interface StreamedMultipart {
  readonly fields: Record<string, string>;
  readonly files: Record<string, UploadedFile>;
}

/** A parser that takes a multipart body already streamed by the app (`MultiPartParser`). */
export interface StreamedMultipartParser extends Parser {
  parseStreamed(body: StreamedMultipart): ParseResult;
}

export function isStreamedMultipartParser(parser: Parser): parser is StreamedMultipartParser {
  return typeof (parser as Partial<StreamedMultipartParser>).parseStreamed === 'function';
}
export type { AppContext };
