/**
 * A deep copy of `value` in OpenAPI 3.1's JSON Schema dialect: the 3.0
 * keyword `nullable: true` (which pagination classes write, as DRF does)
 * becomes `type: [T, 'null']`.
 */
export function toOpenAPI31(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(toOpenAPI31);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) out[key] = toOpenAPI31(child);
  if (out['nullable'] === true) {
    delete out['nullable'];
    const type = out['type'];
    if (typeof type === 'string') out['type'] = [type, 'null'];
    else if (Array.isArray(type) && !type.includes('null')) out['type'] = [...type, 'null'];
  } else if (out['nullable'] === false) {
    delete out['nullable'];
  }
  return out;
}
