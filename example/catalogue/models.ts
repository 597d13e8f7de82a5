import { field, model, type DatabaseOf } from '../../src/index.js';

/**
 * The catalogue's models: each table is declared here once. The migrations
 * in ./migrations/ were written from these by `trestle makemigrations`;
 * the serializers, views, filters and the admin read the same declarations.
 */
export const Author = model(
  'catalogue_author',
  {
    name: field.char({ maxLength: 200 }),
    country: field.char({ maxLength: 100, blank: true, default: '' }),
    created: field.datetime({ autoNowAdd: true }),
  },
  // The author list's `?ordering=created` pages through this index.
  { indexes: [{ fields: ['created', 'id'], name: 'catalogue_author_created_id' }] },
);

export const Tag = model('catalogue_tag', {
  name: field.char({ maxLength: 50, unique: true }),
});

export const Book = model(
  'catalogue_book',
  {
    title: field.char({ maxLength: 200 }),
    author: field.foreignKey(() => Author, { onDelete: 'cascade', relatedName: 'books' }),
    year: field.integer(),
    isbn: field.char({ maxLength: 20 }),
    created: field.datetime({ autoNowAdd: true }),
    tags: field.manyToMany(() => Tag, { relatedName: 'books', blank: true }),
  },
  // The feed's cursor ordering (-created, -id) reads this index.
  { indexes: [{ fields: ['created', 'id'], name: 'catalogue_book_created_id' }] },
);

/** A user's favourite books (POST /api/books/<pk>/favourite/): one row per user and book. */
export const Favourite = model(
  'catalogue_favourite',
  {
    user: field.foreignKey('trestle_user', { onDelete: 'cascade' }),
    book: field.foreignKey(() => Book, { onDelete: 'cascade' }),
  },
  { constraints: [{ kind: 'unique', name: 'catalogue_favourite_user_book', fields: ['user', 'book'] }] },
);

export const catalogueModels = [Author, Tag, Book, Favourite] as const;

export type CatalogueTables = DatabaseOf<typeof catalogueModels>;
export type AuthorRow = typeof Author.$inferSelect;
export type BookRow = typeof Book.$inferSelect;
export type TagRow = typeof Tag.$inferSelect;

// The app's tables, declared once: `req.app.services.get('db')` is a
// `Kysely<CatalogueTables>` in every view (an installed app writes `'trestle'`).
declare module '../../src/index.js' {
  interface AppTypes {
    database: CatalogueTables;
  }
}
