export { ModelField, RelationField, field } from './fields.js';
export type { FieldKind, ModelFieldOptions, CharOptions, DecimalOptions, DateTimeOptions, RelationOptions, OnDelete, Choice, TargetRef, RelationTarget } from './fields.js';
export { Model, model, checkConstraint, uniqueConstraint } from './model.js';
export type { ModelMeta, IndexDeclaration, ConstraintDeclaration, FieldMap, WithPrimaryKey, ColumnTypeOf, TableOf, InsertOf, AnyModel, DatabaseOf } from './model.js';
export { columnType } from './column-types.js';
