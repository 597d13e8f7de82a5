import { ParseError } from '../exceptions.js';
import type { MediaType } from '../media-types.js';
import type { ParseResult, StreamedMultipart, StreamedMultipartParser, UploadedFile } from './base.js';
import { decodeBytes, requestEncoding } from './charset.js';

const CRLF = Buffer.from('\r\n');
const HEADER_END = Buffer.from('\r\n\r\n');

/**
 * Parses `multipart/form-data` bodies. Fields go to `request.data`, files to
 * `request.files` (and under their field name in `data`, as DRF merges them).
 *
 * The app streams well-formed multipart bodies through busboy as they arrive
 * (`parseStreamed`): fields in memory up to DATA_UPLOAD_MAX_MEMORY_SIZE,
 * files in memory up to FILE_UPLOAD_MAX_MEMORY_SIZE and in a temporary
 * file past it, the whole body up to FILE_UPLOAD_MAX_SIZE, as Django's
 * upload handlers. `parse` handles a body that reached the view as bytes
 * (a Content-Type the app did not stream), bounded by
 * DATA_UPLOAD_MAX_MEMORY_SIZE.
 */
export class MultiPartParser implements StreamedMultipartParser {
  mediaType = 'multipart/form-data';

  parseStreamed(body: StreamedMultipart): ParseResult {
    return { data: { ...body.fields, ...body.files }, files: { ...body.files } };
  }

  parse(body: Buffer, contentType: MediaType): ParseResult {
    const boundary = contentType.params['boundary'];
    if (!boundary || boundary.length > 200) {
      throw new ParseError(`Multipart form parse error - Invalid boundary in multipart: ${boundary ?? 'None'}`);
    }
    const delimiter = Buffer.from(`--${boundary}`);
    // Text fields are read in the request's charset (a multipart body with a charset parameter arrives here, not streamed).
    const encoding = requestEncoding(contentType.params['charset']);
    const data: Record<string, unknown> = {};
    const files: Record<string, UploadedFile> = {};

    let pos = body.indexOf(delimiter);
    if (pos === -1) throw new ParseError('Multipart form parse error - no parts found');
    for (;;) {
      pos += delimiter.length;
      // "--" after a delimiter closes the body.
      if (body[pos] === 0x2d && body[pos + 1] === 0x2d) break;
      if (body.indexOf(CRLF, pos) !== pos) throw new ParseError('Multipart form parse error - malformed delimiter');
      pos += CRLF.length;
      const headerEnd = body.indexOf(HEADER_END, pos);
      if (headerEnd === -1) throw new ParseError('Multipart form parse error - unterminated part headers');
      const headers = parsePartHeaders(body.subarray(pos, headerEnd).toString('latin1'));
      const contentStart = headerEnd + HEADER_END.length;
      const next = body.indexOf(Buffer.concat([CRLF, delimiter]), contentStart);
      if (next === -1) throw new ParseError('Multipart form parse error - unterminated part');
      const content = body.subarray(contentStart, next);
      const disposition = headers['content-disposition'];
      if (!disposition) throw new ParseError('Multipart form parse error - part without Content-Disposition');
      const { name, filename } = parseDisposition(disposition);
      if (name === undefined) throw new ParseError('Multipart form parse error - part without a name');
      if (filename !== undefined) {
        const file: UploadedFile = {
          fieldName: name,
          filename,
          contentType: headers['content-type'] ?? 'application/octet-stream',
          data: Buffer.from(content),
          size: content.length,
        };
        files[name] = file;
      } else {
        // Django: force_str(value, request encoding, errors='replace').
        data[name] = decodeBytes(content, encoding, false)!;
      }
      pos = next + CRLF.length;
    }
    return { data: { ...data, ...files }, files };
  }
}

function parsePartHeaders(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    out[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return out;
}

function parseDisposition(value: string): { name?: string; filename?: string } {
  const out: { name?: string; filename?: string } = {};
  const re = /;\s*([a-zA-Z*]+)=("((?:[^"\\]|\\.)*)"|[^;]*)/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(value)) !== null) {
    const key = m[1]!.toLowerCase();
    const raw = m[3] !== undefined ? m[3].replace(/\\(.)/g, '$1') : m[2]!.trim();
    const decoded = Buffer.from(raw, 'latin1').toString('utf8');
    if (key === 'name') out.name = decoded;
    else if (key === 'filename') out.filename = decoded;
  }
  return out;
}
