import type { ProjectContext } from '../../src/index.js';

/** The demo accounts `npm start` prints. Only for the example service. */
export const DEMO_USER = { username: 'demo', password: 'demo-password', email: 'demo@example.com' };
export const DEMO_ADMIN = { username: 'admin', password: 'admin-password', email: 'admin@example.com' };

const FIRST = ['Ada', 'Jorge', 'Ursula', 'Chinua', 'Virginia', 'Haruki', 'Toni', 'Italo', 'Clarice', 'Naguib', 'Wisława', 'Gabriel', 'Olga', 'Ngũgĩ', 'Selma', 'Yukio', 'Doris', 'Orhan', 'Octavia', 'Stanisław'];
const LAST = ['Lovelace', 'Borges', 'Le Guin', 'Achebe', 'Woolf', 'Murakami', 'Morrison', 'Calvino', 'Lispector', 'Mahfouz', 'Szymborska', 'Márquez', 'Tokarczuk', 'wa Thiong\'o', 'Lagerlöf', 'Mishima', 'Lessing', 'Pamuk', 'Butler', 'Lem'];
const COUNTRIES = ['Argentina', 'Brazil', 'Egypt', 'England', 'Japan', 'Kenya', 'Nigeria', 'Poland', 'Sweden', 'Turkey', 'USA'];
const ADJECTIVES = ['Silent', 'Burning', 'Invisible', 'Last', 'Hidden', 'Broken', 'Golden', 'Distant', 'Winter', 'Second', 'Glass', 'Paper'];
const NOUNS = ['Cities', 'River', 'Garden', 'Library', 'Mirror', 'Harbour', 'Labyrinth', 'Orchard', 'Lighthouse', 'Archive', 'Atlas', 'Clock'];

export const AUTHOR_COUNT = 200;
export const BOOK_COUNT = 5000;

/**
 * Fills an empty catalogue: 200 authors and 5,000 books with creation times
 * spread over the past years (deterministic, so every fresh clone sees the
 * same data), plus the demo user (with a token) and a staff user for the
 * admin console. Does nothing when books already exist.
 */
export async function seedCatalogue(ctx: ProjectContext, log: (line: string) => void = () => {}): Promise<boolean> {
  const db = ctx.db;
  const existing = await db.selectFrom('catalogue_book').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  if (Number(existing.n) > 0) return false;

  const start = Date.UTC(2019, 0, 1);
  const authors = Array.from({ length: AUTHOR_COUNT }, (_, i) => ({
    name: `${FIRST[i % FIRST.length]} ${LAST[(i * 7) % LAST.length]}${i >= FIRST.length ? ` ${Math.floor(i / FIRST.length) + 1}` : ''}`,
    country: COUNTRIES[(i * 3) % COUNTRIES.length]!,
    created: new Date(start + i * 3_600_000).toISOString(),
  }));
  await db.transaction().execute(async (trx) => {
    for (let i = 0; i < authors.length; i += 100) {
      await trx.insertInto('catalogue_author').values(authors.slice(i, i + 100)).execute();
    }
    const books = Array.from({ length: BOOK_COUNT }, (_, i) => ({
      title: `The ${ADJECTIVES[i % ADJECTIVES.length]} ${NOUNS[(i * 5) % NOUNS.length]}${i >= 144 ? ` ${Math.floor(i / 144) + 1}` : ''}`,
      author_id: (i % AUTHOR_COUNT) + 1,
      year: 1900 + ((i * 37) % 125),
      isbn: `978${String(1_000_000_000 + i * 7919).slice(-10)}`,
      // Books come in pairs that share a timestamp, sixteen hours apart (cursor paging copes with ties).
      created: new Date(start + Math.floor(i / 2) * 8 * 3_600_000 * 2).toISOString(),
    }));
    for (let i = 0; i < books.length; i += 250) {
      await trx.insertInto('catalogue_book').values(books.slice(i, i + 250)).execute();
      if ((i / 250) % 5 === 0) log(`  seeding books ${i + 250 > BOOK_COUNT ? BOOK_COUNT : i + 250}/${BOOK_COUNT}`);
    }
  });
  if (!(await ctx.users.getByUsername(DEMO_USER.username))) await ctx.users.createUser(DEMO_USER);
  if (!(await ctx.users.getByUsername(DEMO_ADMIN.username))) await ctx.users.createSuperuser(DEMO_ADMIN);
  log(`  seeded ${AUTHOR_COUNT} authors, ${BOOK_COUNT} books and the demo users`);
  return true;
}
