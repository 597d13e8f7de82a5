import { randomBytes } from 'node:crypto';
import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import busboy from 'busboy';
import { ApiError, ParseError, PayloadTooLarge } from '../exceptions.js';
import type { UploadedFile } from './base.js';

/** The limits a multipart body is read under (from the settings of the same names). */
export interface MultipartLimits {
  /** Bytes of the non-file fields together (DATA_UPLOAD_MAX_MEMORY_SIZE, as Django). */
  fieldsMaxSize: number;
  /** Number of parts, fields and files together (DATA_UPLOAD_MAX_NUMBER_FIELDS). */
  maxParts: number;
  /** A file up to this size stays in memory; a larger one goes to a temporary file (FILE_UPLOAD_MAX_MEMORY_SIZE). */
  fileMaxMemorySize: number;
  /** The whole body, files included (FILE_UPLOAD_MAX_SIZE); past it, 413. */
  bodyMaxSize: number;
  /** Where large files are written (FILE_UPLOAD_TEMP_DIR, default the OS's). */
  tempDir: string | null;
}

/** A file kept in memory or, past FILE_UPLOAD_MAX_MEMORY_SIZE, in a temporary file (read on demand). */
class ReceivedFile implements UploadedFile {
  constructor(
    readonly fieldName: string,
    readonly filename: string,
    readonly contentType: string,
    readonly size: number,
    private readonly memory: Buffer | null,
    /** The temporary file (mode 0600), deleted when the response has been sent. */
    readonly path: string | null,
  ) {}

  get data(): Buffer {
    return this.memory ?? readFileSync(this.path!);
  }
}

/**
 * A multipart body read as it arrived: fields in memory, files in memory or
 * on disk, never the whole body in one buffer. A malformed body is kept as
 * `error` and thrown only when a view reads `request.data`, so the
 * pipeline's 401/403 still come first.
 */
export class MultipartBody {
  readonly fields: Record<string, string> = {};
  readonly files: Record<string, UploadedFile> = {};
  error: ApiError | null = null;
  private readonly paths: string[] = [];
  private readonly fds = new Set<number>();

  /** Deletes the temporary files; called when the response is sent or the request aborted. */
  cleanup(): void {
    for (const fd of this.fds) this.close(fd);
    for (const p of this.paths.splice(0)) rmSync(p, { force: true });
  }

  /** @internal A temporary file being written. */
  open(dir: string): { fd: number; path: string } {
    const path = join(dir, `trestle-upload-${randomBytes(12).toString('hex')}`);
    const fd = openSync(path, 'wx', 0o600);
    this.paths.push(path);
    this.fds.add(fd);
    return { fd, path };
  }

  /** @internal */
  close(fd: number): void {
    if (!this.fds.delete(fd)) return;
    try {
      closeSync(fd);
    } catch {
      // already closed
    }
  }
}

/**
 * Reads `multipart/form-data` from `stream` with busboy. Resolves with the
 * body (possibly holding a deferred parse error); rejects with
 * `PayloadTooLarge` once the body passes `bodyMaxSize`, without reading
 * the rest.
 */
export function readMultipart(stream: Readable, headers: Record<string, string | string[] | undefined>, limits: MultipartLimits): Promise<MultipartBody> {
  const body = new MultipartBody();
  return new Promise((resolve, reject) => {
    let settled = false;
    let received = 0;
    let fieldBytes = 0;
    let pending = 0; // files still being written
    let parserDone = false;

    const finish = (err: Error | null, fatal = false) => {
      if (settled) {
        // After a deferred error the rest is only counted; past the cap it is dropped.
        if (fatal) stream.destroy();
        return;
      }
      if (err) {
        settled = true;
        stream.unpipe();
        if (fatal) {
          body.cleanup();
          reject(err);
          return;
        }
        // Stop parsing; read (and count) the rest so the connection stays usable.
        body.error = err as ApiError;
        body.cleanup();
        stream.resume();
        resolve(body);
        return;
      }
      if (parserDone && pending === 0 && stream.readableEnded) {
        settled = true;
        resolve(body);
      }
    };

    stream.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (received > limits.bodyMaxSize) finish(new PayloadTooLarge(), true);
    });
    stream.on('end', () => finish(null));
    stream.on('error', (err) => finish(new ParseError(`Multipart form parse error - ${err.message}`), true));

    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: headers as IncomingHttpHeaders,
        limits: { parts: limits.maxParts, fieldSize: limits.fieldsMaxSize, fieldNameSize: 1000, headerPairs: 100 },
        defParamCharset: 'utf8',
      });
    } catch (err) {
      finish(new ParseError(`Multipart form parse error - ${(err as Error).message}`));
      return;
    }
    parser.on('field', (name, value, info) => {
      fieldBytes += Buffer.byteLength(name) + Buffer.byteLength(value);
      if (info.valueTruncated || fieldBytes > limits.fieldsMaxSize) {
        finish(new PayloadTooLarge('Request body exceeded DATA_UPLOAD_MAX_MEMORY_SIZE.'));
        return;
      }
      body.fields[name] = value;
    });
    parser.on('file', (name, file, info) => {
      pending++;
      const chunks: Buffer[] = [];
      let size = 0;
      let fd: number | null = null;
      let path: string | null = null;
      file.on('data', (chunk: Buffer) => {
        if (settled) return;
        size += chunk.length;
        try {
          if (fd === null && size > limits.fileMaxMemorySize) {
            ({ fd, path } = body.open(limits.tempDir ?? tmpdir()));
            for (const c of chunks.splice(0)) writeSync(fd, c);
          }
          if (fd !== null) writeSync(fd, chunk);
          else chunks.push(chunk);
        } catch (err) {
          // The disk, not the client: a logged 500.
          finish(err as Error, true);
        }
      });
      file.on('end', () => {
        if (fd !== null) body.close(fd);
        if (settled) return;
        body.files[name] = new ReceivedFile(name, info.filename ?? '', info.mimeType || 'application/octet-stream', size, fd === null ? Buffer.concat(chunks) : null, path);
        pending--;
        finish(null);
      });
    });
    parser.on('partsLimit', () => finish(new ParseError(`Multipart form parse error - more than ${limits.maxParts} parts`)));
    parser.on('error', (err: Error) => finish(new ParseError(`Multipart form parse error - ${err.message}`)));
    parser.on('close', () => {
      parserDone = true;
      finish(null);
    });
    stream.pipe(parser);
  });
}
