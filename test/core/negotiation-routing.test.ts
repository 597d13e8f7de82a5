import { describe, expect, it } from 'vitest';
import {
  APIView,
  ApiRequest,
  DefaultRouter,
  ImproperlyConfigured,
  JSONRenderer,
  ListAPIView,
  ModelViewSet,
  NoReverseMatch,
  RetrieveUpdateDestroyAPIView,
  createApp,
  include,
  path,
  reverse,
  type SerializeContext,
} from '../../src/index.js';

class AcmeRenderer extends JSONRenderer {
  override mediaType = 'application/vnd.acme+json';
  override format = 'acme';
}

class Ping extends APIView {
  override authenticationClasses = [];
  get(req: ApiRequest) {
    return { accepted: req.acceptedMediaType?.raw, params: req.params };
  }
}

class QueryEcho extends APIView {
  override authenticationClasses = [];
  get(req: ApiRequest) {
    return { toString: req.query['toString'] ?? null, a: req.query['a'] ?? null };
  }
}

class TwoRenderers extends APIView {
  override authenticationClasses = [];
  override rendererClasses = [JSONRenderer, AcmeRenderer];
  get(req: ApiRequest) {
    return { accepted: req.acceptedMediaType?.raw };
  }
}

interface Book {
  id: number;
  title: string;
}
const books: Book[] = [
  { id: 1, title: 'Dune' },
  { id: 2, title: 'Emma' },
];

class BookList extends ListAPIView<Book> {
  override authenticationClasses = [];
  override getQueryset() {
    return books;
  }
  override serialize(item: Book, ctx: SerializeContext) {
    return { ...item, url: reverse('api:book-detail', { pk: item.id }, { request: ctx.request }) };
  }
}

class BookDetail extends RetrieveUpdateDestroyAPIView<Book> {
  override authenticationClasses = [];
  override getQueryset() {
    return books;
  }
}

const shelf: Book[] = [{ id: 1, title: 'Dune' }];
class BookViewSet extends ModelViewSet<Book> {
  override authenticationClasses = [];
  store = shelf;
  override getQueryset() {
    return this.store;
  }
  override performCreate(_req: ApiRequest, data: Record<string, unknown>): Book {
    const book = { id: this.store.length + 1, title: String(data['title'] ?? '') };
    this.store.push(book);
    return book;
  }
  override performUpdate(_req: ApiRequest, instance: Book, data: Record<string, unknown>): Book {
    if (typeof data['title'] === 'string') instance.title = data['title'];
    return instance;
  }
  override performDestroy(_req: ApiRequest, instance: Book): void {
    this.store.splice(this.store.indexOf(instance), 1);
  }
}

async function app(settings = {}) {
  const router = new DefaultRouter();
  router.register('shelf', BookViewSet, { basename: 'shelf' });
  return createApp({
    logger: false,
    settings,
    routes: [
      path('ping/<int:pk>/', Ping, { name: 'ping' }),
      path('ping/<slug:slug>/', Ping, { name: 'ping-slug' }),
      path('two/', TwoRenderers),
      path('query/', QueryEcho),
      include('api/', [path('books/', BookList, { name: 'book-list' }), path('books/<int:pk>/', BookDetail, { name: 'book-detail' })], {
        namespace: 'api',
      }),
      include('router/', router.urls),
    ],
  });
}

describe('content negotiation', () => {
  it('Accept: text/csv is 406 with DRF\'s message, rendered as JSON', async () => {
    const res = await (await app()).inject({ url: '/ping/1/', headers: { accept: 'text/csv' } });
    expect(res.statusCode).toBe(406);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.json()).toEqual({ detail: 'Could not satisfy the request Accept header.' });
  });

  it('keeps media-type parameters of the accepted type; Content-Type is the renderer\'s type', async () => {
    const res = await (await app()).inject({ url: '/ping/1/', headers: { accept: 'application/json; version=1.0' } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.json().accepted).toBe('application/json; version=1.0');
  });

  it('a wildcard Accept picks the first renderer', async () => {
    const res = await (await app()).inject({ url: '/two/', headers: { accept: '*/*' } });
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.headers['vary']).toBe('Accept');
  });

  it('a vendor media type selects the vendor renderer', async () => {
    const res = await (await app()).inject({ url: '/two/', headers: { accept: 'application/vnd.acme+json; version=2.0' } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/vnd.acme+json');
    expect(res.json()).toEqual({ accepted: 'application/vnd.acme+json; version=2.0' });
  });

  it('?format= picks a renderer by name, and an unknown format is 404', async () => {
    const a = await app();
    const ok = await a.inject({ url: '/two/?format=acme' });
    expect(ok.headers['content-type']).toBe('application/vnd.acme+json');
    const narrowed = await a.inject({ url: '/two/?format=json', headers: { accept: 'application/json; version=2.0' } });
    expect(narrowed.json()).toEqual({ accepted: 'application/json; version=2.0' });
    const conflict = await a.inject({ url: '/two/?format=acme', headers: { accept: 'application/json' } });
    expect(conflict.statusCode).toBe(406);
    const bad = await a.inject({ url: '/two/?format=xml' });
    expect(bad.statusCode).toBe(404);
    expect(bad.json()).toEqual({ detail: 'Not found.' });
  });
});

describe('hosts', () => {
  it('a Host outside ALLOWED_HOSTS is 400 JSON, also on unknown routes', async () => {
    const a = await app();
    for (const url of ['/ping/1/', '/nowhere/']) {
      const res = await a.inject({ url, headers: { host: 'evil.example' } });
      expect(res.statusCode).toBe(400);
      expect(res.headers['content-type']).toBe('application/json');
      expect(res.json()).toEqual({ detail: "Invalid HTTP_HOST header: 'evil.example'. You may need to add 'evil.example' to ALLOWED_HOSTS." });
    }
  });

  it('a syntactically broken Host is 400', async () => {
    const res = await (await app()).inject({ url: '/ping/1/', headers: { host: 'a b<script>' } });
    expect(res.statusCode).toBe(400);
  });

  it('subdomain patterns and ports are accepted', async () => {
    const a = await app({ ALLOWED_HOSTS: ['.example.com'] });
    expect((await a.inject({ url: '/ping/1/', headers: { host: 'api.example.com:8443' } })).statusCode).toBe(200);
    expect((await a.inject({ url: '/ping/1/', headers: { host: 'example.com' } })).statusCode).toBe(200);
    expect((await a.inject({ url: '/ping/1/', headers: { host: 'badexample.com' } })).statusCode).toBe(400);
  });

  it('X-Forwarded-Host and -Proto are ignored by default, even from TRUSTED_PROXIES or RemoteUser proxies (Django)', async () => {
    for (const settings of [{}, { TRUSTED_PROXIES: ['127.0.0.1'] }, { REMOTE_USER_TRUSTED_PROXIES: ['127.0.0.1'] }]) {
      const a = await app(settings);
      const res = await a.inject({ url: '/api/books/', headers: { 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' } });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('application/json');
      expect(res.json()[0].url).toBe('http://localhost:80/api/books/1/');
    }
  });

  it('USE_X_FORWARDED_HOST and SECURE_PROXY_SSL_HEADER switch them on, from any peer or only TRUSTED_PROXIES when listed', async () => {
    const on = { USE_X_FORWARDED_HOST: true, SECURE_PROXY_SSL_HEADER: ['HTTP_X_FORWARDED_PROTO', 'https'] as const, ALLOWED_HOSTS: ['api.example.com', 'localhost'] };
    const anyPeer = await app(on);
    const via = await anyPeer.inject({ url: '/api/books/', headers: { 'x-forwarded-host': 'api.example.com', 'x-forwarded-proto': 'https, http' } });
    expect(via.statusCode).toBe(200);
    expect(via.json()[0].url).toBe('https://api.example.com/api/books/1/');
    const plain = await anyPeer.inject({ url: '/api/books/', headers: { 'x-forwarded-proto': 'HTTPS' } });
    expect(plain.json()[0].url).toBe('http://localhost:80/api/books/1/'); // compared exactly, as Django
    const bad = await anyPeer.inject({ url: '/api/books/', headers: { 'x-forwarded-host': 'evil.example' } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toEqual({ detail: "Invalid HTTP_HOST header: 'evil.example'. You may need to add 'evil.example' to ALLOWED_HOSTS." });
    const listed = await app({ ...on, TRUSTED_PROXIES: ['10.0.0.1'] });
    const stranger = await listed.inject({ url: '/api/books/', headers: { 'x-forwarded-host': 'api.example.com', 'x-forwarded-proto': 'https' } });
    expect(stranger.json()[0].url).toBe('http://localhost:80/api/books/1/');
    const proxy = await listed.inject({ url: '/api/books/', remoteAddress: '10.0.0.1', headers: { 'x-forwarded-host': 'api.example.com', 'x-forwarded-proto': 'https' } });
    expect(proxy.json()[0].url).toBe('https://api.example.com/api/books/1/');
  });

  it('a SECURE_PROXY_SSL_HEADER that is not a pair is rejected at start-up', async () => {
    await expect(createApp({ settings: { SECURE_PROXY_SSL_HEADER: ['X-Forwarded-Proto'] as never } })).rejects.toThrow(
      'The SECURE_PROXY_SSL_HEADER setting must be a tuple containing two values.',
    );
  });
});

describe('routing', () => {
  it('a GET missing only the trailing slash is redirected there, as Django\'s APPEND_SLASH', async () => {
    const a = await app();
    const res = await a.inject({ url: '/ping/42?x=1&y=2' });
    expect(res.statusCode).toBe(301);
    expect(res.headers['location']).toBe('/ping/42/?x=1&y=2');
    expect(res.body).toBe('');
    // The converter must still match, and other methods are not redirected.
    expect((await a.inject({ url: '/ping/not%20a%20slug' })).statusCode).toBe(404);
    const post = await a.inject({ method: 'POST', url: '/ping/42' });
    expect(post.statusCode).toBe(404);
    expect(post.json()).toEqual({ detail: 'Not found.' });
    const off = await app({ APPEND_SLASH: false });
    expect((await off.inject({ url: '/ping/42' })).statusCode).toBe(404);
  });

  it('unknown routes are 404 JSON', async () => {
    const res = await (await app()).inject({ url: '/missing/' });
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.json()).toEqual({ detail: 'Not found.' });
  });

  it('converters decide which route applies, in declaration order', async () => {
    const a = await app();
    expect((await a.inject({ url: '/ping/42/' })).json().params).toEqual({ pk: 42 });
    expect((await a.inject({ url: '/ping/some-slug/' })).json().params).toEqual({ slug: 'some-slug' });
    expect((await a.inject({ url: '/ping/not%20a%20slug/' })).statusCode).toBe(404);
  });

  it('reverse() builds absolute URLs from the request, with namespaces', async () => {
    const res = await (await app()).inject({ url: '/api/books/' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual([
      { id: 1, title: 'Dune', url: 'http://localhost:80/api/books/1/' },
      { id: 2, title: 'Emma', url: 'http://localhost:80/api/books/2/' },
    ]);
  });

  it('query parameters named like Object members are absent unless sent', async () => {
    const res = await (await app()).inject({ url: '/query/?a=1' });
    expect(res.json()).toEqual({ toString: null, a: '1' });
  });

  it('reverse() without a request gives a path; bad names and params throw NoReverseMatch', async () => {
    const a = await app();
    expect(reverse('ping', { pk: 7 }, { app: a })).toBe('/ping/7/');
    expect(() => reverse('nope', {}, { app: a })).toThrow(NoReverseMatch);
    expect(() => reverse('ping', { pk: 'x' }, { app: a })).toThrow(NoReverseMatch);
  });

  it('a pattern with a leading slash or unknown converter fails at declaration', () => {
    expect(() => path('/x/', Ping)).toThrow(ImproperlyConfigured);
    expect(() => path('x/<float:f>/', Ping)).toThrow(ImproperlyConfigured);
  });

  it('generic detail views look objects up and 404 when missing', async () => {
    const a = await app();
    const hit = await a.inject({ url: '/api/books/2/' });
    expect(hit.statusCode).toBe(200);
    expect(hit.headers['allow']).toBe('GET, PUT, PATCH, DELETE, HEAD, OPTIONS');
    expect(hit.json()).toEqual({ id: 2, title: 'Emma' });
    const miss = await a.inject({ url: '/api/books/99/' });
    expect(miss.statusCode).toBe(404);
    expect(miss.json()).toEqual({ detail: 'No object matches the given query.' });
  });
});

describe('routers and viewsets', () => {
  it('the API root lists the registered viewsets', async () => {
    const res = await (await app()).inject({ url: '/router/' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ shelf: 'http://localhost:80/router/shelf/' });
  });

  it('list, create, retrieve, update, destroy through the router', async () => {
    const a = await app();
    const created = await a.inject({ method: 'POST', url: '/router/shelf/', payload: { title: 'Emma' } });
    expect(created.statusCode).toBe(201);
    expect(created.json()).toEqual({ id: 2, title: 'Emma' });
    const list = await a.inject({ url: '/router/shelf/' });
    expect(list.headers['allow']).toBe('GET, POST, HEAD, OPTIONS');
    expect(list.json()).toHaveLength(2);
    const patched = await a.inject({ method: 'PATCH', url: '/router/shelf/2/', payload: { title: 'Persuasion' } });
    expect(patched.json()).toEqual({ id: 2, title: 'Persuasion' });
    const deleted = await a.inject({ method: 'DELETE', url: '/router/shelf/2/' });
    expect(deleted.statusCode).toBe(204);
    expect(deleted.body).toBe('');
    expect(deleted.headers['content-type']).toBeUndefined();
    expect((await a.inject({ url: '/router/shelf/2/' })).statusCode).toBe(404);
  });

  it('create with a non-object body is a 400 field map as DRF', async () => {
    const res = await (await app()).inject({ method: 'POST', url: '/router/shelf/', payload: '"x"', headers: { 'content-type': 'application/json' } });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ non_field_errors: ['Invalid data. Expected a dictionary, but got str.'] });
  });

  it('OPTIONS describes the view with DRF\'s metadata', async () => {
    const res = await (await app()).inject({ method: 'OPTIONS', url: '/router/shelf/' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      name: 'Book List',
      description: '',
      renders: ['application/json', 'text/html'],
      parses: ['application/json', 'application/x-www-form-urlencoded', 'multipart/form-data'],
    });
  });
});

describe('views shared between apps', () => {
  class SettingsEcho extends APIView {
    override authenticationClasses = [];
    get() {
      return { pageSize: this.app.settings.PAGE_SIZE };
    }
  }
  const shared = new SettingsEcho();

  it('one view instance mounted in two apps is bound to each app separately', async () => {
    const a = await createApp({ logger: false, settings: { PAGE_SIZE: 5 }, routes: [path('s/', shared)] });
    const b = await createApp({ logger: false, settings: { PAGE_SIZE: 7 }, routes: [path('s/', shared)] });
    expect((await a.inject({ url: '/s/' })).json()).toEqual({ pageSize: 5 });
    expect((await b.inject({ url: '/s/' })).json()).toEqual({ pageSize: 7 });
  });
});

describe('settings', () => {
  it('an unknown setting name is an error at start-up, with a hint', async () => {
    await expect(createApp({ logger: false, settings: { PAGE_SIZ: 10 } as never })).rejects.toThrow(/Unknown setting "PAGE_SIZ". Did you mean "PAGE_SIZE"\?/);
  });

  it('a bad PAGE_SIZE is rejected at start-up', async () => {
    await expect(createApp({ logger: false, settings: { PAGE_SIZE: -1 } })).rejects.toThrow(ImproperlyConfigured);
  });

  it('a bad TRUSTED_PROXIES entry is rejected at start-up', async () => {
    await expect(createApp({ logger: false, settings: { TRUSTED_PROXIES: ['not-an-ip'] } })).rejects.toThrow(ImproperlyConfigured);
  });
});
