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
}

async function app(router: SimpleRouter) {
  router.register('books', BookViewSet, { basename: 'book' });
  return createApp({ logger: false, routes: [include('api/', router.urls)] });
}

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
});
