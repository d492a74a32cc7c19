/**
 * A real headless Chromium for the page tests: Debian's `chromium` (EVALON_CHROMIUM_BIN to use
 * another), driven by playwright-core, which downloads no browser of its own. Where it is missing
 * the page tests are skipped, unless EVALON_REQUIRE_CHROMIUM=1 (CI), where that is a failure.
 * Screenshots go to test-artifacts/ui/ (git-ignored).
 */
import { existsSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM_BIN = process.env.EVALON_CHROMIUM_BIN ?? '/usr/bin/chromium';
export const CHROMIUM_REQUIRED = process.env.EVALON_REQUIRE_CHROMIUM === '1';
export const CHROMIUM_MISSING = `no Chromium at ${CHROMIUM_BIN} (apt-get install chromium, or set EVALON_CHROMIUM_BIN)`;
export const SCREENSHOTS = fileURLToPath(new URL('../../test-artifacts/ui/', import.meta.url));

/** The browser, or undefined when Chromium is missing (and not required). */
export async function launchChromium(): Promise<Browser | undefined> {
  if (!existsSync(CHROMIUM_BIN)) {
    if (CHROMIUM_REQUIRED) throw new Error(`EVALON_REQUIRE_CHROMIUM=1 but ${CHROMIUM_MISSING}`);
    return undefined;
  }
  mkdirSync(SCREENSHOTS, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM_BIN,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}
