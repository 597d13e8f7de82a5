import { describe, expect, it } from 'vitest';
import { withoutParam, withParam } from '../../src/pagination/links.js';
import { removeQueryParam, replaceQueryParam } from '../../src/utils/urls.js';

// The shortcut for `?page=N`-only URLs must answer exactly what the general
// re-encoding does, and every other URL must take the general way.
const urls = [
  'http://testserver/items/',
  'http://testserver/items/?',
  'http://testserver/items/?page=2',
  'http://testserver/items/?page=',
  'http://testserver/items/?page',
  'http://testserver/items/?page=a+b%20c',
  'http://testserver/items/?page=2&page=3',
  'http://testserver/items/?pages=2',
  'http://testserver/items/?pag=2',
  'http://testserver/items/?page=2&x=1',
  'http://testserver/items/?x=1&page=2',
  'http://testserver/items/?z=1',
  'http://testserver/items/?pag%65=2',
  'http://testserver/items/?page=2#frag',
  'http://testserver/items/#frag',
  'http://testserver/items/?&page=2',
  'http://testserver/items/?page=2&',
  'http://testserver/items/?page=%E2%82%AC',
  'http://testserver/it%20ems/?page=7',
  'http://testserver/items/?cursor=cD0yMDI0LTAxLTAx',
  'http://testserver/items/?cursor=a%3D%3D',
];
const keys = ['page', 'cursor', 'p-q_r.s~t', 'a b', 'pag', 'é', ''];
const values: (string | number)[] = [3, 1, 0, 12345678901, '2', 'a b', 'x=y&z', '€', 'cD0yMDI0LTAxLTAx==', ''];

describe('page links', () => {
  it('withParam answers as replaceQueryParam', () => {
    for (const url of urls) for (const key of keys) for (const value of values) {
      expect(withParam(url, key, value), `${url} ${key} ${value}`).toBe(replaceQueryParam(url, key, value));
    }
  });

  it('withoutParam answers as removeQueryParam', () => {
    for (const url of urls) for (const key of keys) {
      expect(withoutParam(url, key), `${url} ${key}`).toBe(removeQueryParam(url, key));
    }
  });
});
