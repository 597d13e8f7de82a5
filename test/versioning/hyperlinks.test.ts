import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AcceptHeaderVersioning,
  HostNameVersioning,
  ListAPIView,
  NamespaceVersioning,
  QueryParameterVersioning,
  RetrieveAPIView,
  URLPathVersioning,
  include,
  path,
  reverse,
  type RouteEntry,
  type SerializeContext,
  type TrestleApp,
  type VersioningClass,
} from '../../src/index.js';
import { get, makeApp } from './helpers.js';

interface Note {
  id: number;
}
const notes: Note[] = [{ id: 1 }, { id: 2 }];

/** Hyperlinks built in serialize(), as a hyperlinked serializer does. */
function noteViews(versioningClass: VersioningClass) {
  class NoteList extends ListAPIView<Note> {
    override versioningClass = versioningClass;
    override getQueryset() {
      return notes;
    }
    override serialize(note: Note, ctx: SerializeContext) {
      return { id: note.id, url: reverse('note-detail', { pk: note.id }, { request: ctx.request }) };
    }
  }
  class NoteDetail extends RetrieveAPIView<Note> {
    override versioningClass = versioningClass;
    override getQueryset() {
      return notes;
    }
  }
  return { NoteList, NoteDetail };
}

function routes(prefix: string, cls: VersioningClass, versioned: boolean): RouteEntry[] {
  const { NoteList, NoteDetail } = noteViews(cls);
  const v = versioned ? '<version>/' : '';
  return [
    path(`${prefix}${v}notes/`, NoteList, { name: 'note-list' }),
    path(`${prefix}${v}notes/<int:pk>/`, NoteDetail, { name: 'note-detail' }),
  ];
}

describe('hyperlinks in serialize(item, ctx) carry the version', () => {
  const apps: Record<string, TrestleApp> = {};
  beforeAll(async () => {
    const settings = { ALLOWED_VERSIONS: ['v1', 'v2'], DEFAULT_VERSION: 'v1', ALLOWED_HOSTS: ['.example.com', 'localhost'] };
    apps['path'] = await makeApp(routes('', URLPathVersioning, true), settings);
    apps['query'] = await makeApp(routes('', QueryParameterVersioning, false), settings);
    apps['host'] = await makeApp(routes('', HostNameVersioning, false), settings);
    apps['accept'] = await makeApp(routes('', AcceptHeaderVersioning, false), settings);
    const ns = (v: string) => include(`${v}/`, routes('', NamespaceVersioning, false), { namespace: v });
    apps['namespace'] = await makeApp([ns('v1'), ns('v2')], settings);
  });
  afterAll(async () => {
    for (const app of Object.values(apps)) await app.close();
  });

  it('URL path: the version is filled into the path', async () => {
    const res = await get(apps['path']!, '/v2/notes/');
    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      { id: 1, url: 'http://localhost/v2/notes/1/' },
      { id: 2, url: 'http://localhost/v2/notes/2/' },
    ]);
  });

  it('namespace: the version namespace is used for the name', async () => {
    const res = await get(apps['namespace']!, '/v2/notes/');
    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      { id: 1, url: 'http://localhost/v2/notes/1/' },
      { id: 2, url: 'http://localhost/v2/notes/2/' },
    ]);
  });

  it('query parameter: ?version= is added', async () => {
    const res = await get(apps['query']!, '/notes/?version=v2');
    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      { id: 1, url: 'http://localhost/notes/1/?version=v2' },
      { id: 2, url: 'http://localhost/notes/2/?version=v2' },
    ]);
  });

  it('host name: the versioned host is kept', async () => {
    const res = await get(apps['host']!, '/notes/', { host: 'v2.example.com' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      { id: 1, url: 'http://v2.example.com/notes/1/' },
      { id: 2, url: 'http://v2.example.com/notes/2/' },
    ]);
  });

  it('Accept header: links are the plain URLs (the version travels in the header)', async () => {
    const res = await get(apps['accept']!, '/notes/', { accept: 'application/json; version=v2' });
    expect(res.status).toBe(200);
    expect(res.headers['vary']).toBe('Accept, Cookie');
    expect(res.body).toEqual([
      { id: 1, url: 'http://localhost/notes/1/' },
      { id: 2, url: 'http://localhost/notes/2/' },
    ]);
  });
});
