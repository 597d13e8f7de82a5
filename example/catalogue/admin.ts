import { AdminSite } from '../../src/index.js';
import { Author, Book, Favourite, Tag } from './models.js';

/** The catalogue in the admin console: /admin/catalogue/author/, book/, tag/, favourite/. */
export function catalogueAdmin(): AdminSite {
  return new AdminSite()
    .register(Author, { listDisplay: ['name', 'country', 'created'], searchFields: ['name'], ordering: ['name'], str: (a) => a.name })
    .register(Book, {
      listDisplay: ['title', 'author', 'year', 'isbn'],
      listFilter: ['author', 'tags', 'created'],
      searchFields: ['title', 'author__name', '=isbn', 'tags__name'],
      ordering: ['-year'],
      listPerPage: 50,
      str: (b) => b.title,
    })
    .register(Tag, { listDisplay: ['name'], searchFields: ['name'], str: (t) => t.name })
    .register(Favourite, {
      listDisplay: ['user', 'book'],
      listFilter: ['book'],
      // The admin attaches each foreign key's row under the field's name (`row.user`, `row.book`) before naming a row.
      str: (f) => {
        const r = f as typeof f & { user?: { username: string } | null; book?: { title: string } | null };
        return `${r.user?.username ?? `user #${String(f.user_id)}`} – ${r.book?.title ?? `book #${String(f.book_id)}`}`;
      },
    })
    .registerPermissions();
}
