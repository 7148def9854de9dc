/**
 * The inspector page (GET /_emulator/ui) in chromium, on what it shows of the time before it was opened and how it
 * lays it out:
 *
 * - a request refused before the page was ever opened shows its error code on its row and its body in its detail; a
 *   control call made before opening (a fault added) is on the timeline;
 * - at 1280 px wide, nothing essential is cut: a long path, a row's tags and an event's attempts table (status_http)
 *   fit their boxes or show whole in their row's tooltip;
 * - the records view: a company's destination, events and their links, and from a record the items that touched it;
 * - the timeline's filters (the journal's), answered by the server;
 * - live without polling: over an idle stretch of a real clock (its moves arrive on the stream) the page makes no
 *   request but its stream.
 *
 * UPDATE_SCREENSHOTS=1 writes docs/images/inspector-records.png and inspector-dark.png for docs/inspector.md.
 */
import { existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createEmulator, type Emulator, type EmulatorOptions, type RunningServer } from '../src/index.js';
import { haveChromium, launchChromium, openWatchedPage } from './support/chromium.js';

const HAVE_CHROMIUM = haveChromium('the browser tests of the inspector (/_emulator/ui)');
const BUILT = existsSync(fileURLToPath(new URL('../dist/inspector/app.js', import.meta.url)));
if (HAVE_CHROMIUM && !BUILT)
  throw new Error('The inspector page is not built (dist/inspector/app.js): run `npm run build` first.');

const screenshotDir = () =>
  process.env.UPDATE_SCREENSHOTS === '1'
    ? fileURLToPath(new URL('../docs/images/', import.meta.url))
    : mkdtempSync(join(tmpdir(), 'catalog-emulator-inspector-'));
const HOOKS = 'https://hooks.acme.example';
const NO_DEMO = '404 GET /_emulator/inspector/demo';

let browser: Browser;
beforeAll(async () => {
  if (HAVE_CHROMIUM) browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});

const emulators: Emulator[] = [];
afterEach(async () => {
  await Promise.all(emulators.splice(0).map((emu) => emu.close()));
});

function acmeEmulator(options: EmulatorOptions = {}) {
  const emu = createEmulator(options);
  emulators.push(emu);
  const acme = emu.companies.create({ cnpjRoot: '11222333', name: 'Acme Alimentos' });
  const api = (method: string, path: string, headers: Record<string, string> = {}, body?: unknown) =>
    emu.fetch(path, {
      method,
      headers: { authorization: `Bearer ${acme.token}`, 'content-type': 'application/json', ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  return { emu, acme, api };
}

async function open(
  server: RunningServer,
  companyId: string,
  viewport = { width: 1280, height: 800 },
  colorScheme: 'light' | 'dark' = 'light',
) {
  const opened = await openWatchedPage(browser, new URL(server.url).origin, {
    viewport,
    expected: [NO_DEMO],
    abortable: (url) => url.pathname === '/_emulator/inspector/stream',
  });
  await opened.page.emulateMedia({ colorScheme });
  await opened.page.goto(`${server.url}/_emulator/ui#company=${companyId}`);
  await opened.page.waitForSelector('body[data-ready="true"]');
  await opened.page.waitForSelector('.stream-state.live');
  return opened;
}

/**
 * The elements `selector` picks that are cut: wider than their box, with a text (each tag's, in a row's tags) that
 * their row's tooltip does not hold whole.
 */
const cut = (page: Page, selector: string) =>
  page.$$eval(selector, (elements) =>
    elements
      .filter((e) => {
        if (e.scrollWidth <= e.clientWidth + 1) return false;
        const tooltip = e.closest('[title]')?.getAttribute('title') ?? '';
        const texts =
          e.children.length === 0 ? [e.textContent ?? ''] : [...e.children].map((child) => child.textContent ?? '');
        return texts.some((text) => !tooltip.includes(text));
      })
      .map((e) => e.textContent),
  );

/** A webhook destination, a receiver answering 503 to every delivery, and a test event delivered `attempts` times. */
async function failingEvent(
  emu: Emulator,
  api: ReturnType<typeof acmeEmulator>['api'],
  attempts: number,
): Promise<string> {
  const destination = await api(
    'PUT',
    '/v1/webhook',
    { 'idempotency-key': 'history-dest-0001', 'if-none-match': '*' },
    { url: `${HOOKS}/catalogo/um/caminho/bem/comprido/para/o/recebedor/de/webhooks` },
  );
  expect(destination.status).toBe(201);
  emu.network.route(HOOKS, () => new Response(null, { status: 503 }));
  const test = await api('POST', '/v1/webhook/testes', {
    'idempotency-key': 'history-test-0001',
    'if-match': destination.headers.get('etag')!,
  });
  expect(test.status).toBe(202);
  // The first attempt is due at once, the next 5 s after it, the third 5 min after that (the retry schedule).
  for (const by of [0, '5s', '5m'].slice(0, attempts)) await emu.clock.advance(by);
  return ((await test.json()) as { evento_id: string }).evento_id;
}

describe.skipIf(!HAVE_CHROMIUM)(
  'the inspector page: history, layout, records, filters, live',
  { timeout: 60_000 },
  () => {
    it('shows what happened before it was opened: a refused request with its code and body, a control call', async () => {
      const { emu, acme, api } = acmeEmulator({ clock: 'manual' });
      const added = await emu.fetch(`/_emulator/companies/${acme.companyId}/faults`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ target: 'api', match: { path: '/v1/contexto' }, effect: { status: 503 }, times: 1 }),
      });
      expect(added.status).toBe(201);
      const faultId = ((await added.json()) as { id: string }).id;
      // No If-None-Match: refused before anything changed.
      const refused = await api(
        'PUT',
        '/v1/webhook',
        { 'idempotency-key': 'history-refused-01' },
        { url: `${HOOKS}/in` },
      );
      expect(refused.status).toBe(428);
      const server = await emu.listen({ port: 0 });
      const { page, context, watch } = await open(server, acme.companyId);

      const row = page.locator(`.timeline .row[data-id="req:${refused.headers.get('x-request-id')}"]`);
      expect(await row.locator('.tags').innerText()).toContain('precondicao_ausente');
      await row.click();
      await expect
        .poll(() => page.locator('.detail .section h3').allTextContents())
        .toEqual(['Request', 'Request headers', 'Request body', 'Answer headers (428)', 'Answer body']);
      const body = JSON.parse(
        await page.locator('.detail .section', { hasText: 'Answer body' }).locator('pre').innerText(),
      ) as { erro: { codigo: string } };
      expect(body.erro.codigo).toBe('precondicao_ausente');
      const controls = await page.locator('.timeline .row.kind-control .title').allInnerTexts();
      expect(controls).toHaveLength(1);
      expect(
        controls[0]!.startsWith(
          `POST /_emulator/companies/${acme.companyId}/faults → 201 (fault ${faultId}: api path=/v1/contexto`,
        ),
      ).toBe(true);
      expect(watch.consoleErrors).toEqual([]);
      expect(watch.failed).toEqual([]);
      await context.close();
    });

    it("at 1280 px cuts nothing essential: long paths, tags and an event's attempts table fit or show whole in a tooltip", async () => {
      const { emu, acme, api } = acmeEmulator({ clock: 'manual' });
      const eventId = await failingEvent(emu, api, 3);
      const long = await api(
        'GET',
        `/v1/catalogos/${'0'.repeat(8)}-0000-4000-8000-${'0'.repeat(12)}/produtos?limite=100&cursor=${'x'.repeat(60)}`,
      );
      expect(long.status).toBeGreaterThanOrEqual(400);
      const server = await emu.listen({ port: 0 });
      const { page, context } = await open(server, acme.companyId);
      expect(await cut(page, '.timeline .row .title')).toEqual([]);
      expect(await cut(page, '.timeline .row .tags')).toEqual([]);
      await page.locator(`.timeline .row[data-id="evt:${eventId}"]`).click();
      await page.locator('.detail .section-table table').waitFor();
      const table = await page.locator('.detail .section-table').evaluate((e) => ({
        scroll: e.scrollWidth,
        client: e.clientWidth,
        head: [...e.querySelectorAll('th')].map((th) => th.textContent),
      }));
      expect(table.head).toContain('status_http');
      expect(table.scroll).toBeLessThanOrEqual(table.client);
      expect(await page.locator('.detail .section-table tbody tr').first().locator('td').allInnerTexts()).toContain(
        '503',
      );
      // The three columns side by side, the timeline the widest.
      const widths = await page.$$eval('main > *', (columns) => columns.map((c) => c.getBoundingClientRect().width));
      expect(widths).toHaveLength(3);
      expect(widths[0]!).toBeGreaterThan(widths[1]!);
      await context.close();
    });

    it("shows the company's records with their links, and from a record the items that touched it", async () => {
      const { emu, acme, api } = acmeEmulator({ clock: 'manual' });
      const eventId = await failingEvent(emu, api, 2);
      const server = await emu.listen({ port: 0 });
      const { page, context, watch } = await open(server, acme.companyId, { width: 1400, height: 820 });
      await page.getByRole('button', { name: 'Records' }).click();
      await page.locator('.records').waitFor();
      expect(await page.locator('.records h3').allInnerTexts()).toEqual([
        'WEBHOOK DESTINATION',
        'ESTABLISHMENTS (1)',
        'CATALOGS (0)',
        'PRODUCTS (0)',
        'WEBHOOK EVENTS (1)',
      ]);
      await page.locator(`.records li[data-record="${eventId}"]`).click();
      await expect
        .poll(() => page.locator('.record-links a').allInnerTexts())
        .toEqual([
          expect.stringMatching(/^webhook https:\/\/hooks\.acme\.example\//) as unknown as string,
          'attempt 1',
          'attempt 2',
        ]);
      // Its attempts, itself, and the request whose answer named it (POST /v1/webhook/testes answered its evento_id).
      const touching = () =>
        page.locator('.touching .row').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-id')));
      await expect
        .poll(touching)
        .toEqual([
          `att:${eventId}:2`,
          `att:${eventId}:1`,
          `evt:${eventId}`,
          expect.stringMatching(/^req:/) as unknown as string,
        ]);
      expect(await page.locator('.touching .row .title').last().innerText()).toBe('POST /v1/webhook/testes → 202');
      const dir = screenshotDir();
      mkdirSync(dir, { recursive: true });
      await page.screenshot({ path: join(dir, 'inspector-records.png') });
      // The link to the destination, and its items: the request that made it.
      await page.locator('.record-links a').first().click();
      await expect.poll(() => page.locator('.touching .row .title').allInnerTexts()).toContain('PUT /v1/webhook → 201');
      expect(watch.consoleErrors).toEqual([]);
      expect(watch.failed).toEqual([]);
      await context.close();
    });

    it("filters the timeline by the journal's filters, server-side, and says why it refuses one", async () => {
      const { emu, acme, api } = acmeEmulator({ clock: 'manual' });
      for (let i = 0; i < 3; i++) expect((await api('GET', '/v1/empresa')).status).toBe(200);
      expect((await api('GET', '/v1/catalogos/nada')).status).toBe(422);
      const server = await emu.listen({ port: 0 });
      const { page, context } = await openWatchedPage(browser, new URL(server.url).origin, {
        viewport: { width: 1280, height: 800 },
        expected: [NO_DEMO, `422 GET /_emulator/inspector/companies/${acme.companyId}/timeline`],
        abortable: (url) => url.pathname === '/_emulator/inspector/stream',
      });
      await page.goto(`${server.url}/_emulator/ui#company=${acme.companyId}`);
      await page.waitForSelector('.stream-state.live');
      await expect.poll(() => page.locator('.timeline .row').count()).toBe(4);
      await page.getByLabel('Filter: status').fill('4xx');
      await page.getByRole('button', { name: 'Filter', exact: true }).click();
      await expect
        .poll(() => page.locator('.timeline .row .title').allInnerTexts())
        .toEqual(['GET /v1/catalogos/nada → 422']);
      // Live while filtered: a new matching request shows, another does not.
      expect((await api('GET', '/v1/catalogos/outra')).status).toBe(422);
      expect((await api('GET', '/v1/empresa')).status).toBe(200);
      await expect
        .poll(() => page.locator('.timeline .row .title').allInnerTexts())
        .toEqual(['GET /v1/catalogos/outra → 422', 'GET /v1/catalogos/nada → 422']);
      await page.getByLabel('Filter: status').fill('6xx');
      await page.getByRole('button', { name: 'Filter', exact: true }).click();
      await expect
        .poll(() => page.locator('.errors').innerText())
        .toContain('status must be a status (100 to 599) or a class of them');
      await page.getByRole('button', { name: 'Clear' }).click();
      await expect.poll(() => page.locator('.timeline .row').count()).toBe(6);
      await context.close();
    });

    it('stays live without polling: over an idle stretch of a real clock it asks for nothing but its stream', async () => {
      const { emu, acme } = acmeEmulator({ clock: 'real' });
      const server = await emu.listen({ port: 0 });
      const { page, context } = await open(server, acme.companyId, { width: 1280, height: 800 }, 'dark');
      // The page's reads at its opening (timeline, panels, companies, demo) are over once its panels show.
      await page.locator('.report .score').waitFor();
      const ticked = async () => {
        const before = await page.locator('[data-testid="now"]').innerText();
        await page.waitForFunction(
          (text) =>
            (
              globalThis as unknown as { document: { querySelector(s: string): { textContent: string } } }
            ).document.querySelector('[data-testid="now"]').textContent !== text,
          before,
          { timeout: 10_000 },
        );
      };
      await ticked();
      const asked: string[] = [];
      page.on('request', (request) => asked.push(new URL(request.url()).pathname));
      // The clock's moves arrive as frames (its time shown changes, to the second) with no read of the page's own.
      await ticked();
      await ticked();
      expect(asked).toEqual([]);
      const dir = screenshotDir();
      mkdirSync(dir, { recursive: true });
      await page.screenshot({ path: join(dir, 'inspector-dark.png') });
      await context.close();
    });
  },
);
