import type { AnyModel } from '../models/model.js';
import { relatedObjects } from '../models/related.js';
import { CheckMessage, ERROR } from './messages.js';

/**
 * The checks of a project's model declarations that need every model at
 * once (Django's `fields.E302`/`E304`): two relations giving one model the
 * same reverse accessor, or a reverse accessor named as one of its fields.
 * Run by `trestle check` (tag `models`) for the project's `models`.
 */
export function checkModels(models: readonly AnyModel[]): CheckMessage[] {
  const out: CheckMessage[] = [];
  for (const target of models) {
    const byName = new Map<string, string>();
    for (const rel of relatedObjects(target, models)) {
      if (rel.hidden) continue;
      const declared = `${rel.model.tableName}.${rel.field}`;
      const accessor = `'${target.objectName}.${rel.name}'`;
      if (rel.name in target.fields) {
        out.push(
          new CheckMessage(ERROR, `Reverse accessor ${accessor} for '${declared}' clashes with field name '${target.tableName}.${rel.name}'.`, {
            obj: declared,
            id: 'fields.E302',
            hint: `Rename field '${target.tableName}.${rel.name}', or add/change a relatedName argument to the definition for field '${declared}'.`,
          }),
        );
      }
      const first = byName.get(rel.name);
      if (first === undefined) {
        byName.set(rel.name, declared);
        continue;
      }
      out.push(
        new CheckMessage(ERROR, `Reverse accessor ${accessor} for '${declared}' clashes with reverse accessor for '${first}'.`, {
          obj: declared,
          id: 'fields.E304',
          hint: `Add or change a relatedName argument to the definition for '${declared}' or '${first}'.`,
        }),
      );
    }
  }
  return out;
}
