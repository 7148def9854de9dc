/**
 * The docs page in a real browser (Debian's chromium, driven by playwright-core): served by an emulator over HTTP,
 * it renders every operation of the service API's document, its Servers list naming that server (its real port),
 * switches to the controls' document and renders every control, with no console error, no failed request and no
 * request to anywhere but the emulator. On an emulator with a control token the page asks for the token, refuses a
 * wrong one, then renders both documents and runs a control's "Try it out" with it, keeping it out of the DOM,
 * storage and URL.
 *
 * UPDATE_SCREENSHOTS=1 writes the screenshot of docs/openapi.md (docs/images/docs-page.png); otherwise it goes to a
 * temporary folder, so every run still takes it.
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

const screenshotDir = () =>
  process.env.UPDATE_SCREENSHOTS === '1'
    ? fileURLToPath(new URL('../docs/images/', import.meta.url))
    : mkdtempSync(join(tmpdir(), 'catalog-emulator-docs-'));

type Json = Record<string, unknown>;

/** Swagger UI's element id of each operation of a document: `operations-<tag>-<operationId>`. */
function operationIds(doc: Json): string[] {
  const ids: string[] = [];
  for (const item of Object.values(
    doc.paths as Record<string, Record<string, { operationId: string; tags: string[] }>>,
  )) {
    for (const op of Object.values(item))
      ids.push(`operations-${(op.tags[0] ?? 'default').replace(/\s/g, '_')}-${op.operationId}`);
  }
  return ids.sort();
}

/** The servers the page's Servers list offers. */
const listedServers = (page: Page) =>
  page.$$eval('.servers select option', (options) => options.map((o) => (o as unknown as { value: string }).value));

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
    // The server the page was loaded from, not the shipped documents' 127.0.0.1:4747.
    expect(await listedServers(page)).toEqual([server.url]);
    const dir = screenshotDir();
    mkdirSync(dir, { recursive: true });
    await page.screenshot({ path: join(dir, 'docs-page.png') });
  });

  it('switches to the controls document and renders every control', async () => {
    await page.selectOption('select#select', { label: 'Emulator controls' });
    const expected = operationIds(controlsDocument());
    expect(await renderedOperations(page, expected.length)).toEqual(expected);
    expect(await page.locator('.info .title').first().innerText()).toContain('catalog-emulator controls');
    expect(await listedServers(page)).toEqual([server.url]);
  });

  it('logged no console error, failed no request and asked nothing of any other host', async () => {
    await page.waitForLoadState('networkidle');
    expect(watch.consoleErrors).toEqual([]);
    expect(watch.failed).toEqual([]);
    expect(watch.elsewhere).toEqual([]);
  });
});

describe.skipIf(!HAVE_CHROMIUM)(
  'the docs page in chromium, on an emulator with a control token',
  { timeout: 90_000 },
  () => {
    const CONTROL_TOKEN = 'ctl-docs-browser-test-4b2e91';
    let emu: Emulator;
    let server: RunningServer;
    let browser: Browser;

    beforeAll(async () => {
      emu = createEmulator({ controlToken: CONTROL_TOKEN });
      server = await emu.listen({ port: 0 });
      browser = await launchChromium();
    });

    afterAll(async () => {
      await browser?.close();
      await emu?.close();
    });

    it('asks for the token, refuses a wrong one, then renders both documents and runs the controls with it, keeping it out of the DOM, storage and URL until a call shows it', async () => {
      // Its probes without the token, and with the wrong one, are the 401s it asks on.
      const { page, context, watch } = await openWatchedPage(browser, new URL(server.url).origin, {
        expected: ['401 GET /_emulator/openapi.json'],
      });
      await page.goto(`${server.url}/_emulator/docs`);
      const field = page.locator('form#control-token input[type="password"]');
      await field.waitFor();
      expect(await page.locator('form#control-token label').innerText()).toBe(
        'This emulator has a control token. Control token:',
      );
      expect(await page.locator('.opblock').count()).toBe(0);

      await field.fill('not-the-token');
      await field.press('Enter');
      await expect
        .poll(() => page.locator('form#control-token label').innerText())
        .toBe('That is not the control token. Control token:');
      await page.locator('form#control-token input[type="password"]').fill(CONTROL_TOKEN);
      await page.locator('form#control-token input[type="password"]').press('Enter');

      const api = operationIds(apiDocument());
      expect(await renderedOperations(page, api.length)).toEqual(api);
      expect(await page.locator('form#control-token').isHidden()).toBe(true);
      expect(await listedServers(page)).toEqual([server.url]);

      await page.selectOption('select#select', { label: 'Emulator controls' });
      const controls = operationIds(controlsDocument());
      expect(await renderedOperations(page, controls.length)).toEqual(controls);

      const clean = await page.content();
      const at = clean.indexOf(CONTROL_TOKEN);
      expect(at < 0, `the DOM holds the control token: ${clean.slice(Math.max(0, at - 200), at + 50)}`).toBe(true);

      // "Try it out" on GET /_emulator: the call carries the token the page was given.
      const info = page.locator('#operations-Emulator-getEmulatorInfo');
      await info.locator('.opblock-summary').click();
      await info.getByRole('button', { name: 'Try it out' }).click();
      const answered = page.waitForResponse(
        (response) => new URL(response.url()).pathname === '/_emulator' && response.request().method() === 'GET',
      );
      await info.getByRole('button', { name: 'Execute' }).click();
      const answer = await answered;
      expect(answer.status()).toBe(200);
      expect(await answer.request().headerValue('authorization')).toBe(`Bearer ${CONTROL_TOKEN}`);
      expect(((await answer.json()) as { name: string }).name).toBe('catalog-emulator');

      // Shown then only where Swagger UI shows what a call sent, as for a token given to "Authorize": its curl line.
      expect(await info.locator('.curl-command').innerText()).toContain(`-H 'Authorization: Bearer ${CONTROL_TOKEN}'`);
      await page.waitForLoadState('networkidle');
      const kept = await page.evaluate(() => {
        const web = globalThis as unknown as {
          localStorage: { length: number };
          sessionStorage: { length: number };
          location: { href: string };
          document: { cookie: string };
        };
        return {
          local: web.localStorage.length,
          session: web.sessionStorage.length,
          url: web.location.href,
          cookie: web.document.cookie,
        };
      });
      expect(kept.url).not.toContain(CONTROL_TOKEN);
      expect({ ...kept, url: undefined }).toEqual({ local: 0, session: 0, url: undefined, cookie: '' });
      expect(watch.consoleErrors).toEqual([]);
      expect(watch.failed).toEqual([]);
      expect(watch.elsewhere).toEqual([]);
      await context.close();
    });
  },
);
