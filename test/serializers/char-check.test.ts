import { describe, expect, it } from 'vitest';
import { CharField, FieldError } from '../../src/serializers/index.js';
import { isoTime } from '../../src/models/column-types.js';

function errorsOf(field: CharField, value: string): unknown {
  try {
    return field.toInternal(value);
  } catch (err) {
    if (err instanceof FieldError) return err.detail;
    throw err;
  }
}

describe("CharField's checks", () => {
  it('count code points and find lone surrogates with or without surrogates in the text', () => {
    const field = new CharField({ maxLength: 3, minLength: 2 });
    expect(errorsOf(field, 'abc')).toBe('abc');
    expect(errorsOf(field, 'abcd')).toEqual(['Ensure this field has no more than 3 characters.']);
    expect(errorsOf(field, 'a')).toEqual(['Ensure this field has at least 2 characters.']);
    expect(errorsOf(field, '𝄞𝄞𝄞')).toBe('𝄞𝄞𝄞'); // three code points, six UTF-16 units
    expect(errorsOf(field, '𝄞𝄞𝄞𝄞')).toEqual(['Ensure this field has no more than 3 characters.']);
    expect(errorsOf(field, '𝄞')).toEqual(['Ensure this field has at least 2 characters.']);
    expect(errorsOf(field, 'a\uD800b')).toEqual(['Surrogate characters are not allowed: U+D800.']);
    expect(errorsOf(field, '𝄞\uDC00x')).toEqual(['Surrogate characters are not allowed: U+DC00.']);
    expect(errorsOf(field, 'a\u0000\uDBFF\uD800x')).toEqual(['Ensure this field has no more than 3 characters.', 'Null characters are not allowed.', 'Surrogate characters are not allowed: U+DBFF.']);
    expect(errorsOf(field, 'a\u0000')).toEqual(['Null characters are not allowed.']);
  });
});

describe('isoTime', () => {
  it('is toISOString of the time, within a second and across seconds', () => {
    const start = Date.UTC(2026, 10, 26, 0, 15, 3, 0);
    for (const ms of [0, 1, 9, 10, 99, 100, 999, 1000, 1001, 60_000, 86_399_999, 86_400_000, -1, -1000, -1001]) {
      expect(isoTime(start + ms)).toBe(new Date(start + ms).toISOString());
    }
    expect(isoTime(Date.UTC(12000, 0, 1, 0, 0, 0, 5))).toBe(new Date(Date.UTC(12000, 0, 1, 0, 0, 0, 5)).toISOString());
    const now = Date.now();
    expect(isoTime(now)).toBe(new Date(now).toISOString());
  });
});
