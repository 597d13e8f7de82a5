/**
 * Reading a path back to its route (Django's `resolve`, used by hyperlinked
 * fields): the first route whose pattern matches, its parameters converted.
 * Routes whose text before the first parameter the path does not start with
 * are passed over without running their patterns; these cases pin that the
 * answer is the one a full scan gives.
 */
import { describe, expect, it } from 'vitest';
import { APIView, include, path } from '../../src/index.js';
import { RouteRegistry } from '../../src/routing/registry.js';

class V extends APIView {}

const registry = new RouteRegistry([
  path('<int:pk>/', V, { name: 'root-detail' }),
  path('api/books/', V, { name: 'book-list' }),
  path('api/books/<int:pk>/', V, { name: 'book-detail' }),
  path('api/books/<slug:slug>/', V, { name: 'book-by-slug' }),
  path('api/<slug:kind>/things/', V, { name: 'things' }),
  include('api/v<int:version>/', [path('books/<int:pk>/', V, { name: 'versioned-book' })]),
  path('api/bookshelf/<str:name>/', V, { name: 'shelf' }),
]);

const resolved = (p: string) => {
  const found = registry.resolve(p);
  return found === null ? null : [found.route.match.urlName, found.params];
};

describe('resolving a path to its route', () => {
  it('finds the first matching route, parameters converted, whatever text comes before them', () => {
    expect(resolved('/7/')).toEqual(['root-detail', { pk: 7 }]);
    expect(resolved('/api/books/')).toEqual(['book-list', {}]);
    expect(resolved('/api/books/42/')).toEqual(['book-detail', { pk: 42 }]);
    expect(resolved('/api/books/dune/')).toEqual(['book-by-slug', { slug: 'dune' }]);
    expect(resolved('/api/books/things/')).toEqual(['book-by-slug', { slug: 'things' }]);
    expect(resolved('/api/authors/things/')).toEqual(['things', { kind: 'authors' }]);
    expect(resolved('/api/v2/books/3/')).toEqual(['versioned-book', { version: 2, pk: 3 }]);
    expect(resolved('/api/bookshelf/top/')).toEqual(['shelf', { name: 'top' }]);
  });

  it('answers null where no pattern matches, a shared beginning included', () => {
    for (const p of ['/', '/api/', '/api/book/', '/api/books', '/api/books/42', '/api/bookshelf/', '/API/books/', '/x/api/books/']) {
      expect(resolved(p), p).toBeNull();
    }
  });
});
