import { addField, createModel, field, migration } from '../../../src/index.js';

export default migration({
  dependencies: ['0002_favourite'],
  operations: [
    createModel('catalogue_tag', { id: field.auto(), name: field.char({ maxLength: 50, unique: true }) }),
    addField('catalogue_book', 'tags', field.manyToMany('catalogue_tag', { relatedName: 'books', blank: true })),
  ],
});
