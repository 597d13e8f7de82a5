import { createModel, field, migration } from '../../../src/index.js';

export default migration({
  operations: [
    createModel('catalogue_author', {
      id: field.auto(),
      name: field.char({ maxLength: 200 }),
      country: field.char({ maxLength: 100, blank: true, default: '' }),
      created: field.datetime({ autoNowAdd: true }),
    }, {
      indexes: [{ fields: ['created', 'id'], name: 'catalogue_author_created_id' }],
    }),
    createModel('catalogue_book', {
      id: field.auto(),
      title: field.char({ maxLength: 200 }),
      author: field.foreignKey('catalogue_author', { onDelete: 'cascade', relatedName: 'books' }),
      year: field.integer(),
      isbn: field.char({ maxLength: 20 }),
      created: field.datetime({ autoNowAdd: true }),
    }, {
      indexes: [{ fields: ['created', 'id'], name: 'catalogue_book_created_id' }],
    }),
  ],
});
