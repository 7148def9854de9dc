/**
 * The docs page in a real browser (Debian's chromium, driven by playwright-core): served by an emulator over HTTP,
 * it renders every operation of the service API's document, switches to the controls' document and renders every
 * control, with no console error, no failed request and no request to anywhere but the emulator.
 *
 * UPDATE_SCREENSHOTS=1 writes the README's screenshot (docs/images/docs-page.png); otherwise it goes to a temporary
 * folder, so every run still takes it.
 */
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiDocument, controlsDocument, createEmulator, type Emulator, type RunningServer } from '../src/index.js';
import { haveChromium, launchChromium, openWatchedPage, type Watch } from './support/chromium.js';

// The one skip of the suite, said loudly with the fix.
const HAVE_CHROMIUM = haveChromium('the browser test of /_emulator/docs');

const screenshotDir = () => (process.env.UPDATE_SCREENSHOTS === '1' ? fileURLToPath(new URL('../docs/images/', import.meta.url)) : mkdtempSync(join(tmpdir(), 'catalog-emulator-docs-')));

type Json = Record<string, unknown>;

/** Swagger UI's element id of each operation of a document: `operations-<tag>-<operationId>`. */
function operationIds(doc: Json): string[] {
  const ids: string[] = [];
  for (const item of Object.values(doc.paths as Record<string, Record<string, { operationId: string; tags: string[] }>>)) {
    for (const op of Object.values(item)) ids.push(`operations-${(op.tags[0] ?? 'default').replace(/\s/g, '_')}-${op.operationId}`);
  }
  return ids.sort();
}

/** The operations the page shows once it has rendered `count` of them. */
async function renderedOperations(page: Page, count: number): Promise<string[]> {
  await expect.poll(() => page.locator('.opblock').count(), { timeout: 30_000 }).toBe(count);
  return (await page.$$eval('.opblock', (blocks) => blocks.map((b) => b.id))).sort();
}

describe.skipIf(!HAVE_CHROMIUM)('the docs page in chromium', { timeout: 90_000 }, () => {
  let emu: Emulator;
  let server: RunningServer;
  let browser: Browser;
  let page: Page;
  let watch: Watch;

  beforeAll(async () => {
    emu = createEmulator();
    server = await emu.listen({ port: 0 });
    browser = await launchChromium();
    // Whatever is not the emulator is recorded and refused: the page must work offline.
    ({ page, watch } = await openWatchedPage(browser, new URL(server.url).origin));
  });

  afterAll(async () => {
    await browser?.close();
    await emu?.close();
  });

  it('renders every operation of the service API', async () => {
    await page.goto(`${server.url}/_emulator/docs`);
    const expected = operationIds(apiDocument());
    expect(expected.length).toBeGreaterThan(0);
    expect(await renderedOperations(page, expected.length)).toEqual(expected);
    expect(await page.locator('.info .title').first().innerText()).toContain('Catalog Integration Service');
    const dir = screenshotDir();
    mkdirSync(dir, { recursive: true });
    await page.screenshot({ path: join(dir, 'docs-page.png') });
  });

  it('switches to the controls document and renders every control', async () => {
    await page.selectOption('select#select', { label: 'Emulator controls' });
    const expected = operationIds(controlsDocument());
    expect(await renderedOperations(page, expected.length)).toEqual(expected);
    expect(await page.locator('.info .title').first().innerText()).toContain('catalog-emulator controls');
  });

  it('logged no console error, failed no request and asked nothing of any other host', async () => {
    await page.waitForLoadState('networkidle');
    expect(watch.consoleErrors).toEqual([]);
    expect(watch.failed).toEqual([]);
    expect(watch.elsewhere).toEqual([]);
  });
});
