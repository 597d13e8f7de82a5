import { afterEach, describe, expect, it } from 'vitest';
import { createApp, CursorPagination, type TrestleApp } from '../../src/index.js';
import { reverseTerms, type OrderTerm } from '../../src/pagination/source.js';

// parseOrdering keeps the terms of an ordering; what it answers must stay
// what parsing afresh gives, also after `nulls` or `uniqueOrderingFields` change.
class Exposed extends CursorPagination {
  terms(ordering: string | readonly string[]): OrderTerm[] {
    return this.parseOrdering(ordering);
  }
  bindingOf(path: string, terms: readonly OrderTerm[]): string {
    return this.binding({ path } as never, terms);
  }
}

let app: TrestleApp | null = null;
afterEach(async () => {
  await app?.close();
  app = null;
});

describe('cursor ordering terms', () => {
  it('are kept per ordering and follow nulls and uniqueOrderingFields', async () => {
    app = await createApp({ logger: false, settings: { SECRET_KEY: 'x'.repeat(50), PAGE_SIZE: 5 }, routes: [] });
    const p = new Exposed(app.trestle);
    const fresh = (o: string[]) => JSON.parse(JSON.stringify(new Exposed(app!.trestle).terms(o))) as unknown;
    const first = p.terms(['-created', '-id']);
    expect(p.terms(['-created', '-id'])).toBe(first);
    expect(p.terms(['-created', '-id'])).toEqual(fresh(['-created', '-id']));
    expect(p.terms('-created')).toEqual([{ field: 'created', descending: true, nullsFirst: true, nullable: true, unique: false }]);
    expect(p.bindingOf('/a/', first)).toBe('2|/a/|-created:nf,-id');
    expect(p.bindingOf('/b/', first)).toBe('2|/b/|-created:nf,-id');
    p.nulls = null;
    expect(p.terms(['-created', '-id'])).toEqual([
      { field: 'created', descending: true, nullsFirst: true, nullable: false, unique: false },
      { field: 'id', descending: true, nullsFirst: true, nullable: false, unique: true },
    ]);
    expect(p.bindingOf('/a/', p.terms(['-created', '-id']))).toBe('2|/a/|-created,-id');
    p.uniqueOrderingFields = ['created'];
    expect(p.terms(['-created', '-id'])[0]!.unique).toBe(true);
    // A caller's own (unfrozen) terms are read as they are each time.
    const own: OrderTerm[] = [{ field: 'x', descending: false, nullsFirst: false, nullable: false }];
    expect(p.bindingOf('/a/', own)).toBe('2|/a/|x');
    own[0] = { field: 'y', descending: true, nullsFirst: false, nullable: true };
    expect(p.bindingOf('/a/', own)).toBe('2|/a/|-y:nl');
    expect(() => p.terms(['bad term'])).toThrow(/Invalid cursor ordering term/);
    expect(() => p.terms(['bad term'])).toThrow(/Invalid cursor ordering term/);
  });

  it('reverse as fresh terms do, kept only for frozen terms', async () => {
    app = await createApp({ logger: false, settings: { SECRET_KEY: 'x'.repeat(50), PAGE_SIZE: 5 }, routes: [] });
    const p = new Exposed(app.trestle);
    const kept = p.terms(['-created', 'title', '-id']);
    const plain = JSON.parse(JSON.stringify(kept)) as OrderTerm[];
    expect(reverseTerms(kept)).toEqual(reverseTerms(plain));
    expect(reverseTerms(kept)).toBe(reverseTerms(kept));
    expect(reverseTerms(reverseTerms(kept))).toEqual(plain);
    expect(reverseTerms(plain)).not.toBe(reverseTerms(plain));
  });
});
