import type { PatternPart } from '../routing/routes.js';
import { converters } from '../routing/converters.js';
import type { JsonSchema } from './types.js';

/** Django's path converters as JSON Schema: `<int:pk>` is an integer, `<uuid:id>` a uuid string… */
const BUILT_IN: Readonly<Record<string, JsonSchema>> = {
  int: { type: 'integer', minimum: 0 },
  str: { type: 'string' },
  slug: { type: 'string', pattern: '^[-a-zA-Z0-9_]+$' },
  uuid: { type: 'string', format: 'uuid' },
  path: { type: 'string' },
};

/**
 * The schema of one path parameter. A converter registered with
 * `registerConverter` is a string with its regex as `pattern`.
 */
export function converterSchema(part: Extract<PatternPart, { kind: 'param' }>): JsonSchema {
  const known = BUILT_IN[part.converterName];
  if (known && converters[part.converterName] === part.converter) return { ...known };
  return { type: 'string', pattern: part.converter.regex.source };
}

/** `/items/{pk}/` from the parsed pattern (OpenAPI's path template). */
export function openapiPath(parts: readonly PatternPart[]): string {
  let out = '/';
  for (const part of parts) out += part.kind === 'text' ? part.text : `{${part.name}}`;
  return out;
}
