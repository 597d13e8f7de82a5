/**
 * Path converters, as Django's: `<int:pk>`, `<str:name>`, `<slug:s>`,
 * `<uuid:id>`, `<path:rest>`. `regex` validates a segment, `toValue` turns it
 * into the handler's parameter, `toUrl` turns a value back for `reverse`.
 */
export interface PathConverter {
  readonly regex: RegExp;
  toValue(segment: string): unknown;
  toUrl(value: unknown): string;
}

export const converters: Record<string, PathConverter> = {
  int: {
    regex: /^[0-9]+$/,
    toValue: (s) => Number(s),
    toUrl: (v) => String(v),
  },
  str: {
    regex: /^[^/]+$/,
    toValue: (s) => s,
    toUrl: (v) => String(v),
  },
  slug: {
    regex: /^[-a-zA-Z0-9_]+$/,
    toValue: (s) => s,
    toUrl: (v) => String(v),
  },
  uuid: {
    regex: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
    toValue: (s) => s,
    toUrl: (v) => String(v),
  },
  path: {
    regex: /^.+$/,
    toValue: (s) => s,
    toUrl: (v) => String(v),
  },
};

/** Adds a converter usable as `<name:param>` in every pattern declared afterwards. */
export function registerConverter(name: string, converter: PathConverter): void {
  converters[name] = converter;
}
