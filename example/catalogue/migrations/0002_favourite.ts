import { createModel, field, migration } from '../../../src/index.js';

export default migration({
  dependencies: ['0001_catalogue'],
  operations: [
    createModel('catalogue_favourite', {
      id: field.auto(),
      user: field.foreignKey('trestle_user', { onDelete: 'cascade' }),
      book: field.foreignKey('catalogue_book', { onDelete: 'cascade' }),
    }, {
      constraints: [{ kind: 'unique', name: 'catalogue_favourite_user_book', fields: ['user', 'book'] }],
    }),
  ],
});
