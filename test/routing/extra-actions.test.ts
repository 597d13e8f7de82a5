import { describe, expect, it } from 'vitest';
import {
  DefaultRouter,
  ImproperlyConfigured,
  IsAuthenticated,
  SimpleRouter,
  ViewSet,
  createApp,
  include,
  reverse,
  type ApiRequest,
  type ExtraAction,
} from '../../src/index.js';

class BookViewSet extends ViewSet {
  static extraActions: readonly ExtraAction[] = [
    { name: 'favourite', detail: true, methods: ['post'] },
    { name: 'recent_titles', detail: false },
    { name: 'secret', detail: true, urlPath: 'hidden-notes', urlName: 'notes', permissionClasses: [IsAuthenticated] },
    { name: 'markRead', detail: true, methods: ['post'], urlPath: 'mark-read', viewName: 'Mark as read' },
  ];
  list() {
    return [{ id: 1 }];
  }
  retrieve(req: ApiRequest) {
    return { id: Number(req.params['pk']) };
  }
  favourite(req: ApiRequest) {
    return { favourite: Number(req.params['pk']), action: req.action };
  }
  recent_titles() {
    return ['Dune'];
  }
  secret() {
    return { secret: true };
  }
  markRead() {
    return { read: true };
  }
}

async function app(router: SimpleRouter, namespace?: string) {
  router.register('books', BookViewSet, { basename: 'book' });
  return createApp({ logger: false, routes: [include('api/', router.urls, { namespace })] });
}

const HTML = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
const menu = (items: string) =>
  `<details class="extra-actions"><summary class="btn" id="extra-actions-menu">Extra Actions</summary><ul class="dropdown-menu" aria-labelledby="extra-actions-menu">${items}</ul></details>`;

describe('extra actions on viewsets (DRF @action)', () => {
  it('are routed with DRF URL shapes and names, and answer through HTTP', async () => {
    const a = await app(new DefaultRouter());
    try {
      const fav = await a.inject({ method: 'POST', url: '/api/books/7/favourite/' });
      expect(fav.statusCode).toBe(200);
      expect(fav.headers['content-type']).toContain('application/json');
      expect(fav.json()).toEqual({ favourite: 7, action: 'favourite' });
      // Only the declared methods: GET is a 405 with DRF's Allow and message.
      const get = await a.inject({ method: 'GET', url: '/api/books/7/favourite/', headers: { accept: 'application/json' } });
      expect(get.statusCode).toBe(405);
      expect(get.headers['allow']).toBe('POST, OPTIONS');
      expect(get.json()).toEqual({ detail: 'Method "GET" not allowed.' });

      const recent = await a.inject({ method: 'GET', url: '/api/books/recent_titles/', headers: { accept: 'application/json' } });
      expect(recent.statusCode).toBe(200);
      expect(recent.json()).toEqual(['Dune']);
      // The list route is still the list; "recent_titles" is not taken for a pk.
      expect((await a.inject({ method: 'GET', url: '/api/books/', headers: { accept: 'application/json' } })).json()).toEqual([{ id: 1 }]);

      // Per-action options: permission classes for this action only.
      const secret = await a.inject({ method: 'GET', url: '/api/books/7/hidden-notes/', headers: { accept: 'application/json' } });
      expect(secret.statusCode).toBe(403);
      expect(secret.json()).toEqual({ detail: 'Authentication credentials were not provided.' });
      expect((await a.inject({ method: 'GET', url: '/api/books/7/', headers: { accept: 'application/json' } })).statusCode).toBe(200);

      expect(reverse('book-favourite', { pk: 7 }, { app: a })).toBe('/api/books/7/favourite/');
      expect(reverse('book-recent-titles', {}, { app: a })).toBe('/api/books/recent_titles/');
      expect(reverse('book-notes', { pk: 3 }, { app: a })).toBe('/api/books/3/hidden-notes/');
    } finally {
      await a.close();
    }
  });

  it('refuse a route action name or a missing method in one line', () => {
    class Clash extends BookViewSet {
      static override extraActions: readonly ExtraAction[] = [{ name: 'list', detail: false }];
    }
    class Missing extends BookViewSet {
      static override extraActions: readonly ExtraAction[] = [{ name: 'archive', detail: true }];
    }
    const urls = (cls: typeof BookViewSet) => new SimpleRouter().register('books', cls, { basename: 'book' }).urls;
    expect(() => urls(Clash)).toThrow(new ImproperlyConfigured('Clash.extraActions: "list" is an existing route action and cannot be an extra action.'));
    expect(() => urls(Missing)).toThrow(new ImproperlyConfigured('Missing.extraActions: "archive" is not a method of the viewset.'));
  });

  describe('in the browsable API', () => {
    it('a detail page has an "Extra Actions" menu with the detail actions, named and linked as DRF', async () => {
      const a = await app(new DefaultRouter());
      try {
        const res = await a.inject({ url: '/api/books/7/', headers: { accept: HTML } });
        expect(res.statusCode).toBe(200);
        expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
        const html = res.body;
        expect(html).toContain('<h1>Book Instance</h1>');
        // Detail actions only, in declaration order; names from the method (pretty_name) or `viewName`.
        expect(html).toContain(
          menu(
            '<li><a href="http://localhost:80/api/books/7/favourite/">Favourite</a></li>' +
              '<li><a href="http://localhost:80/api/books/7/hidden-notes/">Secret</a></li>' +
              '<li><a href="http://localhost:80/api/books/7/mark-read/">Mark as read</a></li>',
          ),
        );
        expect(html).not.toContain('recent_titles');
      } finally {
        await a.close();
      }
    });

    it('a list page lists the list actions; a page without any has no menu', async () => {
      const a = await app(new DefaultRouter());
      try {
        const list = await a.inject({ url: '/api/books/?format=api' });
        expect(list.statusCode).toBe(200);
        expect(list.headers['content-type']).toBe('text/html; charset=utf-8');
        expect(list.body).toContain('<h1>Book List</h1>');
        // The link keeps the ?format= the page was asked with, as DRF's reverse.
        expect(list.body).toContain(menu('<li><a href="http://localhost:80/api/books/recent_titles/?format=api">Recent titles</a></li>'));

        const root = await a.inject({ url: '/api/', headers: { accept: HTML } });
        expect(root.statusCode).toBe(200);
        expect(root.body).toContain('<h1>Api Root</h1>');
        expect(root.body).not.toContain('extra-actions');
      } finally {
        await a.close();
      }
    });

    it("an action's own page is titled by the action, has its breadcrumb and the menu of its level", async () => {
      const a = await app(new DefaultRouter(), 'v1');
      try {
        // GET on a POST-only action: DRF's 405 page, titled "Favourite".
        const fav = await a.inject({ url: '/api/books/7/favourite/', headers: { accept: HTML } });
        expect(fav.statusCode).toBe(405);
        expect(fav.headers['content-type']).toBe('text/html; charset=utf-8');
        expect(fav.headers['allow']).toBe('POST, OPTIONS');
        expect(fav.body).toContain('<title>Favourite – Trestle</title>');
        expect(fav.body).toContain('<h1>Favourite</h1>');
        expect(fav.body).toContain(
          '<li><a href="/api/books/7/">Book Instance</a></li><li><a href="/api/books/7/favourite/" aria-current="page">Favourite</a></li>',
        );
        // Reversed within the route's namespace.
        expect(fav.body).toContain('<li><a href="http://localhost:80/api/books/7/favourite/">Favourite</a></li>');

        const recent = await a.inject({ url: '/api/books/recent_titles/', headers: { accept: HTML } });
        expect(recent.statusCode).toBe(200);
        expect(recent.body).toContain('<h1>Recent titles</h1>');
        expect(recent.body).toContain('<li><a href="/api/books/">Book List</a></li><li><a href="/api/books/recent_titles/" aria-current="page">Recent titles</a></li>');
        expect(recent.body).toContain(menu('<li><a href="http://localhost:80/api/books/recent_titles/">Recent titles</a></li>'));

        // OPTIONS names the action's view too.
        const options = await a.inject({ method: 'OPTIONS', url: '/api/books/7/mark-read/', headers: { accept: 'application/json' } });
        expect(options.statusCode).toBe(200);
        expect(options.json()).toMatchObject({ name: 'Mark as read' });
      } finally {
        await a.close();
      }
    });

    it('a 403 page shows no menu, as DRF', async () => {
      const a = await app(new DefaultRouter());
      try {
        const res = await a.inject({ url: '/api/books/7/hidden-notes/', headers: { accept: HTML } });
        expect(res.statusCode).toBe(403);
        expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
        expect(res.body).toContain('<h1>Secret</h1>');
        expect(res.body).toContain('Authentication credentials were not provided.');
        expect(res.body).not.toContain('extra-actions');
      } finally {
        await a.close();
      }
    });
  });
});
