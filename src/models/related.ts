import { ManyToManyField, RelationField, type OnDelete } from './fields.js';
import type { AnyModel } from './model.js';

/**
 * A relation pointing at a model from another (or the same) model: a
 * foreign key, a one-to-one or a many-to-many field, seen from its target
 * (Django's `ForeignObjectRel`, `_meta.related_objects`).
 */
export interface RelatedObject {
  /** The model that declares the field. */
  readonly model: AnyModel;
  /** The field's name on that model. */
  readonly field: string;
  readonly kind: 'foreignKey' | 'oneToOne' | 'manyToMany';
  /**
   * The reverse accessor's name: the field's `relatedName`, else Django's
   * default, `<modelName>_set` (`<modelName>` for a one-to-one).
   */
  readonly name: string;
  /** `relatedName` ends with `+`: the relation has no reverse accessor (its rows still follow `onDelete`). */
  readonly hidden: boolean;
  /**
   * What deleting a row of the target does: the foreign key's `onDelete`;
   * for a many-to-many field `'cascade'`, which deletes the join rows (not
   * the related rows).
   */
  readonly onDelete: OnDelete;
  /** Several related rows per target row (foreign key, many-to-many) or at most one (one-to-one). */
  readonly multiple: boolean;
  /**
   * The column pointing at the target's row: the foreign key's column on
   * `model`'s table (`author_id`), or the join table's column for a
   * many-to-many field (`tag_id` in `catalogue_book_tags`).
   */
  readonly column: string;
  /** For a many-to-many field: the join table and its column pointing at `model`'s row. */
  readonly through?: { readonly table: string; readonly column: string };
}

/**
 * The relations among `allModels` that point at `target`: its reverse
 * relations, in the order the models and their fields are declared. The
 * admin's delete confirmation and filters read them.
 *
 * @example
 * relatedObjects(Author, [Author, Book]);
 * // [{ model: Book, field: 'author', kind: 'foreignKey', name: 'books', onDelete: 'cascade', column: 'author_id', … }]
 */
export function relatedObjects(target: AnyModel, allModels: readonly AnyModel[]): RelatedObject[] {
  const out: RelatedObject[] = [];
  const seen = new Set<AnyModel>();
  for (const m of allModels.includes(target) ? allModels : [...allModels, target]) {
    if (seen.has(m)) continue;
    seen.add(m);
    for (const [name, f] of Object.entries(m.fields)) {
      if (!(f instanceof RelationField || f instanceof ManyToManyField)) continue;
      if (f.targetTable(m.tableName) !== target.tableName) continue;
      const related = f.relatedName;
      const accessor = related ?? (f.kind === 'oneToOne' ? m.modelName : `${m.modelName}_set`);
      const common = { model: m, field: name, name: accessor, hidden: related?.endsWith('+') === true };
      if (f instanceof ManyToManyField) {
        out.push({
          ...common,
          kind: 'manyToMany',
          onDelete: 'cascade',
          multiple: true,
          column: f.targetColumn(m.tableName),
          through: { table: f.throughTable(m.tableName), column: f.sourceColumn(m.tableName) },
        });
      } else {
        out.push({ ...common, kind: f.kind as 'foreignKey' | 'oneToOne', onDelete: f.onDelete, multiple: f.kind === 'foreignKey', column: f.columnName(name) });
      }
    }
  }
  return out;
}
