import { ManyToManyField, RelationField, type ModelField } from './fields.js';
import type { Operation } from './operations.js';

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** A value as TypeScript source: objects with bare keys where they can be, arrays, strings quoted. */
export function literalSource(value: unknown): string {
  if (value instanceof RelationField || value instanceof ManyToManyField || isField(value)) return fieldSource(value as ModelField);
  if (value === undefined) return 'undefined';
  if (value instanceof Date) return `new Date(${JSON.stringify(value.toISOString())})`;
  if (typeof value === 'function') {
    throw new Error('A callable default cannot be written into a migration: write the migration by hand, or give a constant default.');
  }
  if (Array.isArray(value)) return `[${value.map(literalSource).join(', ')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined);
    if (entries.length === 0) return '{}';
    return `{ ${entries.map(([k, v]) => `${IDENTIFIER.test(k) ? k : JSON.stringify(k)}: ${literalSource(v)}`).join(', ')} }`;
  }
  return typeof value === 'string' ? `'${value.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'` : JSON.stringify(value);
}

function isField(value: unknown): boolean {
  return typeof value === 'object' && value !== null && 'kind' in value && 'options' in value && typeof (value as ModelField).columnName === 'function';
}

/** `field.char({ maxLength: 200 })`; a relation names its target table. */
export function fieldSource(f: ModelField): string {
  const options = Object.fromEntries(Object.entries(f.options).filter(([, v]) => v !== undefined));
  if (f instanceof ManyToManyField) {
    // Models are written by table name, as a migration cannot import the project's models.
    const to = f.to === 'self' ? 'self' : f.targetTable('self');
    if (options['through'] !== undefined) options['through'] = f.throughTable('self');
    return Object.keys(options).length === 0 ? `field.manyToMany(${literalSource(to)})` : `field.manyToMany(${literalSource(to)}, ${literalSource(options)})`;
  }
  if (f instanceof RelationField) {
    const to = f.to === 'self' ? 'self' : f.targetTable('self');
    return `field.${f.kind}(${literalSource(to)}, ${literalSource(options)})`;
  }
  if ((f.kind === 'email' && options['maxLength'] === 254) || (f.kind === 'url' && options['maxLength'] === 200)) delete options['maxLength'];
  if (f.kind === 'slug') {
    if (options['maxLength'] === 50) delete options['maxLength'];
    if (options['dbIndex'] === true) delete options['dbIndex'];
  }
  return Object.keys(options).length === 0 ? `field.${f.kind}()` : `field.${f.kind}(${literalSource(options)})`;
}

/** A model's meta after its fields: one line when short, else one option per line. */
function metaSource(meta: unknown, oneLine: string): string {
  if (oneLine.length <= 60 || !meta || typeof meta !== 'object') return oneLine;
  const entries = Object.entries(meta as Record<string, unknown>).filter(([, v]) => v !== undefined);
  return `{\n${entries.map(([k, v]) => `      ${k}: ${literalSource(v)},`).join('\n')}\n    }`;
}

/**
 * A migration file: readable TypeScript a person may edit, importing the
 * operations it uses from `importFrom` (`'trestle'`).
 */
export function writeMigration(operations: readonly Operation[], options: { dependencies?: readonly string[]; importFrom?: string } = {}): string {
  const used = new Set<string>(['migration']);
  const lines: string[] = [];
  for (const op of operations) {
    used.add(op.type);
    const args = op.args.map(literalSource);
    // An empty meta is left out, as a person would write it.
    while (args.length > 1 && args[args.length - 1] === '{}') args.pop();
    let source = `${op.type}(${args.join(', ')})`;
    // A model's fields one per line, as Django writes them, once the call is too long to read on one.
    if (op.type === 'createModel' && source.length > 100 && op.args[1] && typeof op.args[1] === 'object') {
      const fields = Object.entries(op.args[1] as Record<string, unknown>).map(
        ([name, f]) => `      ${IDENTIFIER.test(name) ? name : JSON.stringify(name)}: ${literalSource(f)},`,
      );
      source = `${op.type}(${args[0]}, {\n${fields.join('\n')}\n    }${args.length > 2 ? `, ${metaSource(op.args[2], args[2]!)}` : ''})`;
    }
    if (source.includes('field.')) used.add('field');
    lines.push(`    ${source},`);
  }
  const names = [...used].sort();
  const deps = options.dependencies?.length ? `  dependencies: ${literalSource([...options.dependencies])},\n` : '';
  return (
    `import { ${names.join(', ')} } from '${options.importFrom ?? 'trestle'}';\n\n` +
    `export default migration({\n${deps}  operations: [\n${lines.join('\n')}\n  ],\n});\n`
  );
}
