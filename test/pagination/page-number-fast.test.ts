import { afterEach, describe, expect, it } from 'vitest';
import { createApp, PageNumberPagination, type TrestleApp } from '../../src/index.js';
import { pythonInt } from '../../src/pagination/python-int.js';
import { books, get, listView, serve } from './helpers.js';

// Page numbers of plain digits are read without bigints; every answer must
// be what Django's validate_number (by Python's int()) gives.
class Exposed extends PageNumberPagination {
  check(raw: string, numPages: number): number | string {
    try {
      return this.validateNumber(raw, numPages);
    } catch (err) {
      return (err as Error).message;
    }
  }
}

function reference(raw: string, numPages: number): number | string {
  let n: bigint;
  try {
    n = pythonInt(raw);
  } catch {
    return 'Invalid page.';
  }
  if (n < 1n || n > BigInt(numPages)) return 'Invalid page.';
  return Number(n);
}

const raws = ['1', '2', '007', '0', '00', '10', '11', '12', '450', '500', '501', '999999999999999', '1000000000000000', '9007199254740993',
  '+3', ' 3', '3 ', '3_0', '\u0663', '-1', '', 'x', '1.0', '0x10', 'last'];
const pages = [1, 10, 11, 500, Math.floor(Number.MAX_SAFE_INTEGER / 20)];

let app: TrestleApp | null = null;
afterEach(async () => {
  await app?.close();
  app = null;
});

describe('plain page numbers', () => {
  it('validate as Python int() does', async () => {
    app = await createApp({ logger: false, settings: { PAGE_SIZE: 20 }, routes: [] });
    const p = new Exposed(app.trestle);
    for (const raw of raws) for (const n of pages) expect(p.check(raw, n), `${raw} of ${n}`).toEqual(reference(raw, n));
  });

  it('answer the same pages over HTTP', async () => {
    class Paged extends PageNumberPagination {
      override pageSize = 3;
    }
    ({ app } = await serve(listView(() => books(10), Paged) as never));
    for (const raw of ['1', '4', '04', '5', '0', '+2', '2_', '\u0662']) {
      const res = await get(app, `/items/?page=${encodeURIComponent(raw)}`);
      const n = reference(raw, 4);
      if (typeof n === 'number') expect(res.body!['results']).toEqual(books(10).slice((n - 1) * 3, n * 3));
      else expect(res).toMatchObject({ status: 404, body: { detail: 'Invalid page.' } });
    }
  });
});
