// The models several admin tests register: writers, labels and their stories.
import { field, model } from '../../src/models/index.js';

export const Writer = model('desk_writer', { name: field.char({ maxLength: 100 }) });
export const Label = model('desk_label', { name: field.char({ maxLength: 50 }) });
export const Story = model('desk_story', {
  title: field.char({ maxLength: 200 }),
  writer: field.foreignKey(() => Writer, { onDelete: 'cascade' }),
  year: field.integer({ null: true }),
  published: field.date({ null: true }),
  inPrint: field.boolean({ default: true, verboseName: 'in print' }),
  notes: field.text({ blank: true, default: '' }),
  labels: field.manyToMany(() => Label, { blank: true }),
});

/** Every test user's password. */
export const PASSWORD = 'correct horse battery staple';
