import { escapeHtml } from '../browsable/escape-html.js';

/** Markup that is already safe to print: built by `html` or a template. */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

/**
 * The pages' template tag: every interpolated value is HTML-escaped unless
 * it is `SafeHtml` (another template's result); arrays are joined, and
 * `null`, `undefined` and `false` print nothing, so conditionals read
 * naturally.
 *
 * @example
 * html`<p class="${cls}">${name}</p>`          // name and cls escaped
 * html`<ul>${items.map((i) => html`<li>${i}</li>`)}</ul>`
 */
export function html(strings: TemplateStringsArray, ...values: unknown[]): SafeHtml {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += print(values[i]) + strings[i + 1]!;
  return new SafeHtml(out);
}

function print(value: unknown): string {
  if (value instanceof SafeHtml) return value.value;
  if (value === null || value === undefined || value === false) return '';
  if (Array.isArray(value)) return value.map(print).join('');
  return escapeHtml(value);
}

/** Trusts `markup` as is: only for markup built from literals and escaped values. */
export function unsafeRaw(markup: string): SafeHtml {
  return new SafeHtml(markup);
}
