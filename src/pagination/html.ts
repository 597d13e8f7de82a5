/** The browsable API's page controls, as DRF's `_get_displayed_page_numbers` and `_get_page_links`. */

export interface PageLink {
  url: string | null;
  number: number | null;
  is_active: boolean;
  is_break: boolean;
}

/** Page numbers to show around `current` of `final`; `null` is a `…` break. */
export function displayedPageNumbers(current: number, final: number): (number | null)[] {
  if (final <= 5) return Array.from({ length: final }, (_, i) => i + 1);
  const included = new Set([1, current - 1, current, current + 1, final]);
  if (current <= 4) {
    included.add(2);
    included.add(3);
  }
  if (current >= final - 3) {
    included.add(final - 1);
    included.add(final - 2);
  }
  const out: (number | null)[] = [...included].filter((n) => n > 0 && n <= final).sort((a, b) => a - b);
  if (current > 4) out.splice(1, 0, null);
  if (current < final - 3) out.splice(out.length - 1, 0, null);
  return out;
}

export function pageLinks(numbers: (number | null)[], current: number, urlFor: (n: number) => string): PageLink[] {
  return numbers.map((n) =>
    n === null
      ? { url: null, number: null, is_active: false, is_break: true }
      : { url: urlFor(n), number: n, is_active: n === current, is_break: false },
  );
}
