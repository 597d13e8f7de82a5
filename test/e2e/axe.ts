import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { screenshotPath } from './chromium.js';

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** One axe-core rule a page breaks: its id, impact and the first few elements. */
export interface Violation {
  id: string;
  impact: string | null;
  help: string;
  targets: string[];
}

/**
 * Runs axe-core on the page as it is now (injected through the DevTools
 * protocol, which the page's CSP does not govern, so the CSP stays on) and
 * returns the serious and critical violations. `exclude` leaves out parts
 * that are not Trestle's (Swagger UI's own markup).
 */
export async function seriousViolations(page: Page, exclude: readonly string[] = []): Promise<Violation[]> {
  if (!(await page.evaluate(() => 'axe' in globalThis))) await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async (excluded) => {
    const axe = (globalThis as unknown as { axe: { run(ctx: unknown, opts: unknown): Promise<{ violations: { id: string; impact: string | null; help: string; nodes: { target: unknown[] }[] }[] }> } }).axe;
    const context = excluded.length ? { include: [['html']], exclude: excluded.map((s) => [s]) } : { include: [['html']] };
    const result = await axe.run(context, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.slice(0, 5).map((n) => n.target.join(' ')) }));
  }, exclude);
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

export const WIDE = { width: 1280, height: 800 };
export const NARROW = { width: 390, height: 844 };

/**
 * Checks a page at 1280 and 390 px: axe-core finds no serious or critical
 * violation at either width, nothing overflows sideways at 390 px, and
 * full-page screenshots are saved as `test-output/<name>-1280.png` and
 * `-390.png`. Returns the violations found (empty when all is well).
 */
export async function checkPage(page: Page, name: string, exclude: readonly string[] = []): Promise<{ violations: Violation[]; overflow: number }> {
  const violations: Violation[] = [];
  await page.setViewportSize(WIDE);
  violations.push(...(await seriousViolations(page, exclude)));
  await page.screenshot({ path: screenshotPath(`${name}-1280`), fullPage: true });
  await page.setViewportSize(NARROW);
  violations.push(...(await seriousViolations(page, exclude)));
  // How far the document is wider than the narrow viewport (0 when it fits).
  const overflow = await page.evaluate(() => {
    const root = (globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }).document.documentElement;
    return root.scrollWidth - root.clientWidth;
  });
  await page.screenshot({ path: screenshotPath(`${name}-390`), fullPage: true });
  await page.setViewportSize(WIDE);
  return { violations, overflow };
}
