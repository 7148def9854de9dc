/**
 * The docs page in a real browser (Debian's chromium, driven by playwright-core): served by an emulator over HTTP,
 * it renders every operation of the service API's document, switches to the controls' document and renders every
 * control, with no console error, no failed request and no request to anywhere but the emulator.
 *
 * UPDATE_SCREENSHOTS=1 writes the README's screenshot (docs/images/docs-page.png); otherwise it goes to a temporary
 * folder, so every run still takes it.
 */
import { existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiDocument, controlsDocument, createEmulator, type Emulator, type RunningServer } from '../src/index.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const HAVE_CHROMIUM = existsSync(CHROMIUM);
if (!HAVE_CHROMIUM) {
  // The one skip of the suite: say it loudly, with the fix.
  console.warn(
    `\n*** SKIPPED the browser test of /_emulator/docs: no chromium at ${CHROMIUM}. ` +
      'Install it with `apt-get install -y chromium` (Debian; .ci/run does this), or point CHROMIUM_PATH at a Chromium. ***\n',
  );
}

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
  const consoleErrors: string[] = [];
  const failed: string[] = [];
  const elsewhere: string[] = [];

  beforeAll(async () => {
    emu = createEmulator();
    server = await emu.listen({ port: 0 });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    // Whatever is not the emulator is recorded and refused: the page must work offline.
    const origin = new URL(server.url).origin;
    await context.route('**/*', (route) => {
      const url = route.request().url();
      if (new URL(url).origin === origin) return route.continue();
      elsewhere.push(url);
      return route.abort('blockedbyclient');
    });
    page = await context.newPage();
    page.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text());
    });
    page.on('pageerror', (error) => consoleErrors.push(String(error)));
    page.on('requestfailed', (request) => failed.push(`${request.url()}: ${request.failure()?.errorText}`));
    page.on('response', (response) => {
      if (response.status() >= 400) failed.push(`${response.url()}: ${response.status()}`);
    });
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
    expect(consoleErrors).toEqual([]);
    expect(failed).toEqual([]);
    expect(elsewhere).toEqual([]);
  });
});
