/**
 * Path converters, as Django's: `<int:pk>`, `<str:name>`, `<slug:s>`,
 * `<uuid:id>`, `<path:rest>`. `regex` validates a segment, `toValue` turns it
 * into the handler's parameter (throwing, as Django's `to_python` raising
 * `ValueError`, means "this route does not match"), `toUrl` turns a value
 * back for `reverse`.
 */
export interface PathConverter {
  readonly regex: RegExp;
  toValue(segment: string): unknown;
  toUrl(value: unknown): string;
}

export const converters: Record<string, PathConverter> = {
  int: {
    regex: /^[0-9]+$/,
    // An integer no column can hold is a 404 (Django's out-of-range lookup), never a query.
    toValue: (s) => {
      const n = Number(s);
      if (!Number.isSafeInteger(n)) throw new RangeError(`${s} is out of range`);
      return n;
    },
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

/** The converters above as Trestle defines them, whatever `registerConverter` later puts under their names. */
export const BUILTIN_CONVERTERS: ReadonlyMap<string, PathConverter> = new Map(Object.entries(converters));

/** Adds a converter usable as `<name:param>` in every pattern declared afterwards. */
export function registerConverter(name: string, converter: PathConverter): void {
  converters[name] = converter;
}
