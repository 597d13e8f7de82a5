import { existsSync, mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { chromium, type Browser } from 'playwright-core';

/** Debian's Chromium, the one `.ci/run` installs. */
export const CHROMIUM_PATH = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';
export const chromiumAvailable = existsSync(CHROMIUM_PATH);

/**
 * Browser tests run when Chromium is installed; under CI its absence is a
 * failure, not a skip.
 */
export function requireChromiumInCi(): void {
  if (!chromiumAvailable && process.env['CI']) {
    throw new Error(`CI is set but Chromium is missing at ${CHROMIUM_PATH}: install it (apt-get install -y chromium).`);
  }
  if (!chromiumAvailable) {
    console.warn(`Skipping browser tests: no Chromium at ${CHROMIUM_PATH} (apt-get install -y chromium, or set CHROMIUM_PATH).`);
  }
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-quic',
      '--no-first-run',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** `test-output/<name>.png` (git-ignored). */
export function screenshotPath(name: string): string {
  const dir = resolve('test-output');
  mkdirSync(dir, { recursive: true });
  return resolve(dir, `${name}.png`);
}
