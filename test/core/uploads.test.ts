import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APIView, AllowAny, ApiRequest, AuthenticationFailed, createApp, path, type Authentication, type AuthenticationClass, type TrestleApp, type User } from '../../src/index.js';

const seen: { path: string | null | undefined; mode: string | null; existed: boolean }[] = [];

class Upload extends APIView {
  override authenticationClasses: AuthenticationClass[] = [];
  override permissionClasses = [AllowAny];
  post(req: ApiRequest) {
    const data = req.data as Record<string, unknown>;
    const files: Record<string, unknown> = {};
    for (const [name, f] of Object.entries(req.files)) {
      seen.push({ path: f.path, mode: f.path ? (statSync(f.path).mode & 0o777).toString(8) : null, existed: f.path ? existsSync(f.path) : false });
      files[name] = { filename: f.filename, contentType: f.contentType, size: f.size, onDisk: Boolean(f.path), sha256: createHash('sha256').update(f.data).digest('hex') };
    }
    const fields = Object.fromEntries(Object.entries(data).filter(([, v]) => typeof v === 'string'));
    return { fields, files };
  }
}

/** Refuses every request that carries no `X-Key: ok`. */
class KeyAuth implements Authentication {
  authenticate(req: ApiRequest): [User, null] | null {
    if (req.headers['x-key'] !== 'ok') throw new AuthenticationFailed('No key.');
    return [{ pk: 1, username: 'k', email: '', isActive: true, isStaff: false, isSuperuser: false, isAuthenticated: true, isAnonymous: false }, null];
  }
  authenticateHeader() {
    return 'Key';
  }
}
class GuardedUpload extends Upload {
  override authenticationClasses = [KeyAuth];
}

const BOUNDARY = 'xYzZY';
function multipart(parts: { name: string; value?: string; filename?: string; content?: Buffer; type?: string }[]): Buffer {
  const chunks: Buffer[] = [];
  for (const p of parts) {
    const disposition = `form-data; name="${p.name}"${p.filename !== undefined ? `; filename="${p.filename}"` : ''}`;
    chunks.push(Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: ${disposition}\r\n${p.type ? `Content-Type: ${p.type}\r\n` : ''}\r\n`));
    chunks.push(p.content ?? Buffer.from(p.value ?? ''));
    chunks.push(Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${BOUNDARY}--\r\n`));
  return Buffer.concat(chunks);
}
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

let app: TrestleApp;
let uploadDir: string;
beforeAll(async () => {
  uploadDir = mkdtempSync(join(tmpdir(), 'trestle-uploads-'));
  app = await createApp({
    settings: {
      DATA_UPLOAD_MAX_MEMORY_SIZE: 4096,
      FILE_UPLOAD_MAX_MEMORY_SIZE: 1024,
      FILE_UPLOAD_MAX_SIZE: 8 * 1024 * 1024,
      FILE_UPLOAD_TEMP_DIR: uploadDir,
      DATA_UPLOAD_MAX_NUMBER_FIELDS: 20,
    },
    routes: [path('upload/', Upload), path('guarded/', GuardedUpload)],
  });
});
afterAll(async () => {
  await app.close();
  rmSync(uploadDir, { recursive: true, force: true });
});

const post = (payload: Buffer, url = '/upload/', headers: Record<string, string> = {}) =>
  app.inject({ method: 'POST', url, headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}`, ...headers }, payload });

describe('multipart bodies are streamed', () => {
  it('fields and a small file arrive in request.data and request.files, the file in memory', async () => {
    const content = Buffer.from('hello, world');
    const res = await post(multipart([{ name: 'title', value: 'Caf\u00e9' }, { name: 'doc', filename: 'h\u00e9.txt', content, type: 'text/plain' }]));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      fields: { title: 'Caf\u00e9' },
      files: { doc: { filename: 'h\u00e9.txt', contentType: 'text/plain', size: content.length, onDisk: false, sha256: sha(content) } },
    });
  });

  // A part without Content-Type is text/plain (RFC 7578 §4.4).
  it('a file past FILE_UPLOAD_MAX_MEMORY_SIZE goes to a 0600 temporary file, deleted after the response', async () => {
    seen.length = 0;
    const content = Buffer.alloc(3 * 1024 * 1024, 7);
    const res = await post(multipart([{ name: 'big', filename: 'big.bin', content }]));
    expect(res.statusCode).toBe(200);
    expect(res.json().files.big).toEqual({ filename: 'big.bin', contentType: 'text/plain', size: content.length, onDisk: true, sha256: sha(content) });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ mode: '600', existed: true });
    expect(seen[0]!.path!.startsWith(uploadDir)).toBe(true);
    expect(existsSync(seen[0]!.path!)).toBe(false);
    expect(readdirSync(uploadDir)).toEqual([]);
  });

  it('files do not count towards DATA_UPLOAD_MAX_MEMORY_SIZE (as Django), fields do: 413', async () => {
    const files = await post(multipart([{ name: 'f', filename: 'f', content: Buffer.alloc(64 * 1024, 1) }]));
    expect(files.statusCode).toBe(200);
    const fields = await post(multipart([{ name: 'a', value: 'x'.repeat(3000) }, { name: 'b', value: 'y'.repeat(3000) }]));
    expect(fields.statusCode).toBe(413);
    expect(fields.json()).toEqual({ detail: 'Request body exceeded DATA_UPLOAD_MAX_MEMORY_SIZE.' });
  });

  it('a body past FILE_UPLOAD_MAX_SIZE is a 413 and leaves no temporary file', async () => {
    const res = await post(multipart([{ name: 'f', filename: 'f', content: Buffer.alloc(9 * 1024 * 1024, 1) }]));
    expect(res.statusCode).toBe(413);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.json()).toEqual({ detail: 'Request body is too large.' });
    expect(readdirSync(uploadDir)).toEqual([]);
  });

  it('more parts than DATA_UPLOAD_MAX_NUMBER_FIELDS is a 400', async () => {
    const res = await post(multipart(Array.from({ length: 25 }, (_, i) => ({ name: `f${i}`, value: 'v' }))));
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ detail: 'Multipart form parse error - more than 20 parts' });
  });

  it('a malformed body is a 400 only once the view reads it: authentication answers first', async () => {
    const broken = Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="a"\r\n\r\nunterminated`);
    const anonymous = await post(broken, '/guarded/');
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json()).toEqual({ detail: 'No key.' });
    const res = await post(broken, '/guarded/', { 'x-key': 'ok' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ detail: 'Multipart form parse error - Unexpected end of form' });
  });

  it('a multipart type the app does not stream (no boundary) is still a clean 400', async () => {
    const res = await app.inject({ method: 'POST', url: '/upload/', headers: { 'content-type': 'multipart/form-data' }, payload: 'x' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ detail: 'Multipart form parse error - Invalid boundary in multipart: None' });
  });
});
