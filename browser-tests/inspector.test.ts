/**
 * The inspector page (GET /_emulator/ui) in a real browser (Debian's chromium, driven by playwright-core), served by
 * an emulator over HTTP:
 *
 * - the webhook-retries scenario run through the API, the clock moved from the page's "Next task" button, and the
 *   eight attempts seen at their virtual times;
 * - a fault added from the page's form, seen firing (the request's status, the row's fault tag, the hit count),
 *   a refused fault's message shown, the fault removed;
 * - with a control token: the page asks for it, refuses a wrong one, and works with the right one;
 * - 1,000 companies and a journal at its 10,000 cap: what a load and a live update ask of the server, counted (the
 *   times they took printed, never asserted);
 * - a company on a clock of its own: its time shown and its clock moved; the demo panel's steps and "Next step";
 * - the report: a company's findings and score in its panel, following new ones live, and the whole report shown;
 * - throughout: no console error, no failed request but those a test provokes, nothing asked of another origin,
 *   and no token or secret in the DOM.
 *
 * UPDATE_SCREENSHOTS=1 writes the screenshots of docs/inspector.md (docs/images/inspector-timeline.png and
 * inspector-attempts.png); otherwise they go to a temporary folder, so every run still takes them.
 */
import { existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  createEmulator,
  verifyWebhook,
  type DemoState,
  type Emulator,
  type EmulatorOptions,
  type RunningServer,
} from '../src/index.js';
import { haveChromium, launchChromium, openWatchedPage, type Watch } from './support/chromium.js';

const HAVE_CHROMIUM = haveChromium('the browser tests of the inspector (/_emulator/ui)');
const BUILT = existsSync(fileURLToPath(new URL('../dist/inspector/app.js', import.meta.url)));
// npm test builds the page first (npm run typecheck runs npm run build); a bare vitest run needs it built.
if (HAVE_CHROMIUM && !BUILT)
  throw new Error('The inspector page is not built (dist/inspector/app.js): run `npm run build` first.');

const screenshotDir = () =>
  process.env.UPDATE_SCREENSHOTS === '1'
    ? fileURLToPath(new URL('../docs/images/', import.meta.url))
    : mkdtempSync(join(tmpdir(), 'catalog-emulator-inspector-'));
const HOOKS = 'https://hooks.acme.example';
const CONTROL_TOKEN = 'ctl-inspector-browser-test-7d1f0c';

/**
 * What the functions run in the page use of the browser, typed here: this project's tsconfig has no DOM types (its
 * code runs on Node). Each such function reaches them as `(globalThis as unknown as InPage)`, erased when it is sent.
 */
interface InPage {
  readonly document: {
    readonly body: { readonly classList: { contains(name: string): boolean } };
    readonly documentElement: { readonly outerHTML: string };
    readonly cookie: string;
    querySelector(selector: string): unknown;
  };
  readonly localStorage: { readonly length: number };
  readonly sessionStorage: { readonly length: number };
  readonly location: { readonly href: string };
  requestAnimationFrame(callback: () => void): number;
  readonly MutationObserver: new (
    callback: () => void,
  ) => { observe(target: unknown, options: { childList: boolean; subtree: boolean }): void; disconnect(): void };
}

/** The page writes virtual times so: UTC, to the second. */
const shown = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');

let browser: Browser;

beforeAll(async () => {
  if (!HAVE_CHROMIUM) return;
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
});

/**
 * A page on `server`, watched. `expected` lists the failures a test provokes on purpose, each as
 * `<status> <METHOD> <path>`; any other failure is recorded.
 */
async function openPage(
  server: RunningServer,
  expected: readonly string[] = [],
): Promise<{ page: Page; context: BrowserContext; watch: Watch }> {
  // A stream the page closes itself (a company switched, the page left) ends as an aborted request.
  return openWatchedPage(browser, new URL(server.url).origin, {
    viewport: { width: 1500, height: 900 },
    expected,
    abortable: (url) => url.pathname === '/_emulator/inspector/stream',
  });
}

/** The emulators a test made (closed after it), each with Acme Alimentos (root 11222333). */
const emulators: Emulator[] = [];
afterEach(async () => {
  await Promise.all(emulators.splice(0).map((emu) => emu.close()));
});

function acmeEmulator(options: EmulatorOptions = {}): {
  emu: Emulator;
  acme: ReturnType<Emulator['companies']['create']>;
} {
  const emu = createEmulator(options);
  emulators.push(emu);
  return { emu, acme: emu.companies.create({ cnpjRoot: '11222333', name: 'Acme Alimentos' }) };
}

/** No demo runs in these tests: the page asks once, and hides the panel on the 404. */
const NO_DEMO = '404 GET /_emulator/inspector/demo';

async function expectClean(page: Page, watch: Watch, secrets: readonly string[]): Promise<void> {
  const html = await page.evaluate(() => (globalThis as unknown as InPage).document.documentElement.outerHTML);
  for (const secret of secrets) expect(html.includes(secret), `the DOM holds ${secret.slice(0, 8)}…`).toBe(false);
  expect(watch.consoleErrors).toEqual([]);
  expect(watch.failed).toEqual([]);
  expect(watch.elsewhere).toEqual([]);
}

/** Waits until the page's last action is over (no control call in flight) and the rows are drawn. */
async function settled(page: Page): Promise<void> {
  await page.waitForFunction(() => !(globalThis as unknown as InPage).document.body.classList.contains('busy'));
  await page.evaluate(
    () =>
      new Promise<void>((resolve) =>
        (globalThis as unknown as InPage).requestAnimationFrame(() =>
          (globalThis as unknown as InPage).requestAnimationFrame(resolve),
        ),
      ),
  );
}

const rowTimes = (page: Page, selector: string) =>
  page.$$eval(selector, (rows) => rows.map((r) => r.querySelector('.time')!.textContent ?? ''));

describe.skipIf(!HAVE_CHROMIUM)('the inspector page in chromium', { timeout: 120_000 }, () => {
  describe('the webhook-retries scenario, driven from the page', () => {
    let server: RunningServer;

    it('advances to each next task from the page and shows the eight attempts at their virtual times', async () => {
      const { emu, acme } = acmeEmulator();
      server = await emu.listen({ port: 0 });
      const { page, context, watch } = await openPage(server, [NO_DEMO]);
      await page.goto(`${server.url}/_emulator/ui#company=${acme.companyId}`);
      await page.waitForSelector('body[data-ready="true"]');
      await page.waitForSelector('.stream-state.live');
      expect(await page.locator('.company-label').innerText()).toBe('Acme Alimentos · 11222333');
      const start = emu.clock.now().getTime();
      expect(await page.locator('[data-testid="now"]').innerText()).toBe(shown(start));
      expect(await page.locator('.ahead').innerText()).toBe('Nothing pending.');

      // The scenario, through the API while the page watches: a destination, a receiver down for the first 7
      // deliveries (503) and then up (200), and a test event.
      const api = (method: string, path: string, headers: Record<string, string> = {}, body?: unknown) =>
        emu.fetch(path, {
          method,
          headers: { authorization: `Bearer ${acme.token}`, 'content-type': 'application/json', ...headers },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
      const destination = await api(
        'PUT',
        '/v1/webhook',
        { 'idempotency-key': 'inspector-dest-0001', 'if-none-match': '*' },
        { url: `${HOOKS}/catalogo` },
      );
      expect(destination.status).toBe(201);
      const secret = ((await destination.json()) as { segredo: string }).segredo;
      let deliveries = 0;
      emu.network.route(HOOKS, async (request) => {
        deliveries += 1;
        const check = verifyWebhook({
          secret,
          headers: request.headers,
          body: await request.text(),
          now: emu.clock.now(),
        });
        return new Response(null, { status: !check.ok ? 401 : deliveries <= 7 ? 503 : 200 });
      });
      const test = await api('POST', '/v1/webhook/testes', {
        'idempotency-key': 'inspector-test-0001',
        'if-match': destination.headers.get('etag')!,
      });
      expect(test.status).toBe(202);
      const eventId = ((await test.json()) as { evento_id: string }).evento_id;
      // Live: both requests and the event show without a reload, and the first attempt is ahead.
      await page.locator(`.timeline .row[data-id="evt:${eventId}"]`).waitFor();
      expect(await page.locator('.timeline .row.kind-request .title').allInnerTexts()).toEqual([
        'POST /v1/webhook/testes → 202',
        'PUT /v1/webhook → 201',
      ]);
      await expect.poll(() => page.locator('.ahead .row').count()).toBeGreaterThan(0);

      // The first attempt is due now: "Next task" runs it; each further click moves the clock to the next one.
      const dir = screenshotDir();
      mkdirSync(dir, { recursive: true });
      let midCycle = false;
      for (let click = 0; click < 20 && deliveries < 8; click++) {
        await page.getByRole('button', { name: 'Next task' }).click();
        await settled(page);
        if (deliveries === 5 && !midCycle) {
          midCycle = true;
          // Mid-cycle, for docs/inspector.md: five attempts failed, the sixth ahead of now.
          await expect.poll(() => page.locator('.timeline .row.kind-attempt').count()).toBe(5);
          await expect.poll(() => page.locator('.ahead .row').count()).toBeGreaterThan(0);
          // The fifth attempt's detail: its outcome, the signature headers it was sent with, the envelope.
          await page.locator('.timeline .row.kind-attempt').first().click();
          await expect
            .poll(() => page.locator('.detail .section h3').allTextContents())
            .toEqual(['Attempt', 'Signature headers', 'Envelope']);
          await page.screenshot({ path: join(dir, 'inspector-timeline.png') });
        }
      }
      expect(deliveries).toBe(8);

      // The attempts as the API lists them, and the schedule they must follow: 5 s, 5 min, 30 min, 2 h, 5 h, 7 h,
      // 8 h between attempts (each wait counted from the end of the one before; in-process answers take no time).
      const listed = await api('GET', `/v1/webhook/eventos/${eventId}/tentativas`);
      const attempts = (
        (await listed.json()) as { itens: { tentativa: number; iniciada_em: string; status_http: number | null }[] }
      ).itens;
      expect(attempts.map((a) => [a.tentativa, a.status_http])).toEqual(
        [1, 2, 3, 4, 5, 6, 7, 8].map((n) => [n, n < 8 ? 503 : 200]),
      );
      const waits = [0, 5, 5 * 60, 30 * 60, 2 * 3600, 5 * 3600, 7 * 3600, 8 * 3600];
      const due = waits.map((_, i) => start + waits.slice(0, i + 1).reduce((a, b) => a + b, 0) * 1000);
      expect(attempts.map((a) => Date.parse(a.iniciada_em))).toEqual(due);

      // The page shows the eight at those times, newest first, and the clock where the last one left it.
      await expect
        .poll(() => rowTimes(page, '.timeline .row.kind-attempt'), { timeout: 10_000 })
        .toEqual(due.map(shown).reverse());
      expect(await page.locator('[data-testid="now"]').innerText()).toBe(shown(due[7]!));
      const tones = await page.$$eval('.timeline .row.kind-attempt', (rows) =>
        rows.map((r) => [...r.classList].find((c) => c.startsWith('tone-'))),
      );
      expect(tones).toEqual(['tone-ok', ...Array<string>(7).fill('tone-error')]);

      // The event's detail: its envelope and its attempts, each with its status.
      await page.locator(`.timeline .row[data-id="evt:${eventId}"]`).click();
      await page.locator('.detail .section-table').waitFor();
      const attemptRows = await page.locator('.detail .section-table tbody tr').allInnerTexts();
      expect(attemptRows).toHaveLength(8);
      expect(await page.locator('.detail').innerText()).toContain(eventId);
      await page.locator('.detail .section-table').scrollIntoViewIfNeeded();
      await page.screenshot({ path: join(dir, 'inspector-attempts.png') });

      // The destination's creation answered the secret: its detail shows the answer, the secret masked.
      await page.locator('.timeline .row.kind-request', { hasText: 'PUT /v1/webhook → 201' }).click();
      await expect
        .poll(() => page.locator('.detail .section h3').allTextContents())
        .toEqual(['Request', 'Request headers', 'Request body', 'Answer headers (201)', 'Answer body']);
      const answerBody = JSON.parse(
        await page.locator('.detail .section', { hasText: 'Answer body' }).locator('pre').innerText(),
      ) as Record<string, unknown>;
      expect(answerBody).toMatchObject({ estado: 'ativo', versao: 1, segredo: '••••' });
      expect(
        await page
          .locator('.detail .section', { hasText: 'Request headers' })
          .locator('tr', { hasText: 'authorization' })
          .locator('td')
          .innerText(),
      ).toBe('Bearer ••••');
      await expectClean(page, watch, [secret, acme.token]);
      await context.close();
    });
  });

  describe('faults from the page', () => {
    it('shows the message of a refused fault, adds one from the form, sees it fire with its hit count, and removes it', async () => {
      const { emu, acme } = acmeEmulator();
      const server = await emu.listen({ port: 0 });
      const faultsPath = `/_emulator/companies/${acme.companyId}/faults`;
      const { page, context, watch } = await openPage(server, [NO_DEMO, `422 POST ${faultsPath}`]);
      await page.goto(`${server.url}/_emulator/ui#company=${acme.companyId}`);
      await page.waitForSelector('body[data-ready="true"]');
      await page.waitForSelector('.stream-state.live');

      const form = page.locator('form.fault-form');
      await form.locator('select[name="target"]').selectOption('api');
      await form.locator('input[name="match.method"]').fill('GET');
      await form.locator('input[name="match.path"]').fill('/v1/empresa');
      await form.locator('select[name="effect"]').selectOption('status');
      await form.locator('input[name="times"]').fill('2');

      // A status out of range: the control refuses it, and the page shows the control's own message.
      await form.locator('input[name="effectValue"]').fill('200');
      await form.getByRole('button', { name: 'Add fault' }).click();
      await settled(page);
      const refused = await emu.fetch(faultsPath, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          target: 'api',
          match: { method: 'GET', path: '/v1/empresa' },
          effect: { status: 200 },
          times: 2,
        }),
      });
      expect(refused.status).toBe(422);
      const { erro } = (await refused.json()) as { erro: { codigo: string; mensagem: string } };
      expect(await page.locator('.errors .error span').allInnerTexts()).toEqual([
        `422 ${erro.codigo}: ${erro.mensagem}`,
      ]);
      expect(emu.faults.list()).toEqual([]);

      await form.locator('input[name="effectValue"]').fill('503');
      await form.getByRole('button', { name: 'Add fault' }).click();
      await settled(page);
      const [fault] = emu.faults.list();
      expect(fault).toMatchObject({
        target: 'api',
        match: { method: 'GET', path: '/v1/empresa', companyId: acme.companyId },
        effect: { status: 503 },
        times: 2,
        hits: 0,
      });
      const item = page.locator(`.faults li[data-fault="${fault!.id}"]`);
      await expect.poll(() => item.innerText()).toContain('0 hits');

      // A request of the company's: the fault answers it 503, the page shows the row with its fault tag and the hit.
      const answer = await emu.fetch('/v1/empresa', { headers: { authorization: `Bearer ${acme.token}` } });
      expect(answer.status).toBe(503);
      const requestId = answer.headers.get('x-request-id')!;
      const row = page.locator(`.timeline .row[data-id="req:${requestId}"]`);
      await row.waitFor();
      expect(await row.locator('.title').innerText()).toContain('GET /v1/empresa');
      expect(await row.locator('.tag-fault').innerText()).toBe(`fault ${fault!.id}`);
      expect(await row.getAttribute('class')).toContain('tone-error');
      await expect.poll(() => item.innerText()).toContain('1 hit, 1 left');

      await item.getByRole('button', { name: `Remove fault ${fault!.id}` }).click();
      await settled(page);
      expect(emu.faults.list()).toEqual([]);
      await expect.poll(() => page.locator('.faults').innerText()).toBe('No fault.');
      expect((await emu.fetch('/v1/empresa', { headers: { authorization: `Bearer ${acme.token}` } })).status).toBe(200);

      // Reset the company, after a confirm: declined, nothing happens; accepted, its journal is gone.
      const journal = () => emu.journal.entries({ companyId: acme.companyId }).length;
      expect(journal()).toBe(2);
      page.once('dialog', (dialog) => void dialog.dismiss());
      await page.getByRole('button', { name: 'Reset company' }).click();
      await settled(page);
      expect(journal()).toBe(2);
      page.once('dialog', (dialog) => void dialog.accept());
      await page.getByRole('button', { name: 'Reset company' }).click();
      await settled(page);
      expect(journal()).toBe(0);
      await expect.poll(() => page.locator('.timeline .row.kind-request').count()).toBe(0);
      await expectClean(page, watch, [acme.token]);
      await context.close();
    });
  });

  describe('with a control token', () => {
    it('asks for the token, refuses a wrong one, then works with it live, keeping it out of the DOM, storage and URL', async () => {
      const { emu, acme } = acmeEmulator({ controlToken: CONTROL_TOKEN });
      const server = await emu.listen({ port: 0 });
      const { page, context, watch } = await openPage(server, [NO_DEMO, '401 GET /_emulator/companies']);
      await page.goto(`${server.url}/_emulator/ui`);
      const field = page.locator('form.token input[type="password"]');
      await field.waitFor();
      expect(await page.locator('form.token label').innerText()).toBe(
        'This emulator has a control token. Control token:',
      );

      await field.fill('not-the-token');
      await field.press('Enter');
      await expect
        .poll(() => page.locator('form.token label').innerText())
        .toBe('That is not the control token. Control token:');
      expect(await page.locator('form.token input[type="password"]').inputValue()).toBe('');

      await page.locator('form.token input[type="password"]').fill(CONTROL_TOKEN);
      await page.locator('form.token input[type="password"]').press('Enter');
      await page.waitForSelector('body[data-ready="true"]');
      expect(await page.locator('form.token').isHidden()).toBe(true);
      expect(await page.locator('.company-label').innerText()).toBe('Acme Alimentos · 11222333');
      await page.waitForSelector('.stream-state.live');

      // The stream carries the token too: a request shows up live.
      const answer = await emu.fetch('/v1/empresa', { headers: { authorization: `Bearer ${acme.token}` } });
      await page.locator(`.timeline .row[data-id="req:${answer.headers.get('x-request-id')}"]`).waitFor();
      // And a control call from a button is authorised: +5 s moves the shared clock.
      const before = emu.clock.now().getTime();
      await page.getByRole('button', { name: '+5 s' }).click();
      await settled(page);
      expect(emu.clock.now().getTime()).toBe(before + 5000);
      await expect.poll(() => page.locator('[data-testid="now"]').innerText()).toBe(shown(before + 5000));

      const kept = await page.evaluate(() => {
        const web = globalThis as unknown as InPage;
        return {
          local: web.localStorage.length,
          session: web.sessionStorage.length,
          url: web.location.href,
          cookie: web.document.cookie,
        };
      });
      expect(kept).toEqual({ local: 0, session: 0, url: `${server.url}/_emulator/ui`, cookie: '' });
      await expectClean(page, watch, [CONTROL_TOKEN, acme.token]);
      await context.close();
    });
  });

  describe('at scale', () => {
    const atScale =
      '1,000 companies and a journal at its 10,000 cap: a load and a live update ask for what they ask for a company ' +
      'that keeps nothing, one page drawn in a window of rows';
    it(atScale, { timeout: 240_000 }, async () => {
      const { emu, acme } = acmeEmulator();
      // Empresa 0001 keeps nothing: what its page asks of the server is what a page asks, whatever the emulator holds.
      const empty = emu.companies.create({ name: 'Empresa 0001' });
      for (let i = 2; i < 1000; i++) emu.companies.create({ name: `Empresa ${String(i).padStart(4, '0')}` });
      const auth = { headers: { authorization: `Bearer ${acme.token}` } };
      let last = '';
      for (let i = 0; i < 10_000; i++)
        last = (await emu.fetch(i % 2 === 0 ? '/v1/empresa' : '/v1/catalogos', auth)).headers.get('x-request-id')!;
      expect(emu.companies.list()).toHaveLength(1000);
      expect(emu.journal.entries({ companyId: acme.companyId })).toHaveLength(10_000);
      const server = await emu.listen({ port: 0 });
      const { page, context, watch } = await openPage(server, [NO_DEMO]);
      const url = `${server.url}/_emulator/ui#company=${acme.companyId}`;
      const emptyUrl = `${server.url}/_emulator/ui#company=${empty.companyId}`;

      // Counted, not timed (CONTRIBUTING.md "Tests"): what the page asks of the server, each request as its method,
      // path (the company's id written {company}) and query, and how many items and rows it draws. Its speed, a
      // first paint and a live update, is printed below for the figures of docs/inspector.md; no bar is asserted on it.
      let asked: string[] = [];
      page.on('request', (request) => {
        const at = new URL(request.url());
        if (at.origin !== new URL(server.url).origin) return;
        const target = `${at.pathname}${at.search}`.replaceAll(acme.companyId, '{company}');
        asked.push(`${request.method()} ${target.replaceAll(empty.companyId, '{company}')}`);
      });
      /** Loads the page at `at` (from the browser's cache after the first time) until drawn and live: what it asked. */
      const load = async (at: string): Promise<string[]> => {
        watch.leaving = true;
        await page.goto('about:blank');
        watch.leaving = false;
        asked = [];
        await page.goto(at);
        await page.waitForSelector('body[data-ready="true"]');
        await page.waitForSelector('.stream-state.live');
        // Once its stream is open the page reads the newest page again (what happened between its first read and the
        // stream): a read it makes a little later, on a timer of its own, which the load's requests must include.
        const timelineReads = () => asked.filter((line) => line.includes('/timeline?limit=200')).length;
        await expect.poll(timelineReads).toBe(2);
        await settled(page);
        return [...asked].sort();
      };
      /** The last load's first paint, for the print: from the navigation's start to the timeline drawn (ms). */
      const mark = 'inspector:timeline-rendered';
      const paint = () => page.evaluate((name) => performance.getEntriesByName(name)[0]!.startTime, mark);
      const cold = await load(url);
      const paints = { cold: await paint(), empty: 0, warm: 0 };
      const emptyLoad = await load(emptyUrl);
      paints.empty = await paint();
      const busyLoad = await load(url);
      paints.warm = await paint();
      // One page of the timeline (?limit=200, read again once the stream is open), the same requests as the empty
      // company's page, cold or warm.
      const notFiles = (lines: string[]) => lines.filter((line) => !/\.(?:js|css)$/.test(line.split(' ')[1]!));
      expect(busyLoad).toEqual(emptyLoad);
      expect(notFiles(cold)).toEqual(notFiles(busyLoad));
      expect(busyLoad).toContain('GET /_emulator/inspector/companies/{company}/timeline?limit=200');
      // All 10,000 requests share one virtual instant: the newest is on top all the same.
      expect(await page.locator('.timeline .row').first().getAttribute('data-id')).toBe(`req:${last}`);

      // Windowed: 200 items loaded, a few dozen rows in the DOM; and so after four more pages.
      expect(await page.locator('.list-foot .count').innerText()).toBe('200 items (older ones below)');
      const rowsInDom = () => page.locator('.timeline .row').count();
      expect(await rowsInDom()).toBeLessThan(60);
      for (let more = 0; more < 4; more++) {
        await page.getByRole('button', { name: 'Older items' }).click();
        await expect
          .poll(() => page.locator('.list-foot .count').innerText())
          .toBe(`${(more + 2) * 200} items (older ones below)`);
      }
      expect(await rowsInDom()).toBeLessThan(60);
      await page.locator('.timeline').evaluate((list) => (list.scrollTop = list.scrollHeight));
      await settled(page);
      expect(await rowsInDom()).toBeLessThan(60);
      await page.locator('.timeline').evaluate((list) => (list.scrollTop = 0));
      await settled(page);

      // An update: a request made from the page's own origin, until its row is in view. The stream brings the item:
      // the page reads no timeline and no item for it, only its side panels again, at most once an update.
      /** In the page: a request made from its own origin, until its row is in view; the time that took (ms). */
      const updateInView = async (token: string): Promise<number> => {
        const web = globalThis as unknown as InPage;
        const started = performance.now();
        const answer = await fetch('/v1/empresa', { headers: { authorization: `Bearer ${token}` } });
        const selector = `.timeline .row[data-id="req:${answer.headers.get('x-request-id')}"]`;
        return new Promise<number>((resolve) => {
          const seen = () => web.document.querySelector(selector) !== null;
          if (seen()) return resolve(performance.now() - started);
          const observer = new web.MutationObserver(() => {
            if (seen()) {
              observer.disconnect();
              resolve(performance.now() - started);
            }
          });
          observer.observe(web.document.body, { childList: true, subtree: true });
        });
      };
      /** Updates `n` times with `token`'s requests, each settled, their times added to `times`: what else it asked. */
      const updates = async (token: string, n: number, times: number[]): Promise<string[]> => {
        asked = [];
        for (let i = 0; i < n; i++) {
          times.push(await page.evaluate(updateInView, token));
          await settled(page);
        }
        return asked.filter((line) => line !== 'GET /v1/empresa');
      };
      const updateTimes = { busy: [] as number[], empty: [] as number[] };
      const busyUpdates = await updates(acme.token, 5, updateTimes.busy);
      expect(await rowsInDom()).toBeLessThan(60);
      await load(emptyUrl);
      const emptyUpdates = await updates(empty.token, 5, updateTimes.empty);
      for (const more of [busyUpdates, emptyUpdates]) {
        const panels = 'GET /_emulator/inspector/companies/{company}/panels';
        expect(new Set(more)).toEqual(new Set(more.length === 0 ? [] : [panels]));
        expect(more.length).toBeLessThanOrEqual(5);
      }
      await load(url);
      const ms = (values: readonly number[]) => values.map((v) => v.toFixed(0)).join(' / ');
      console.log(
        'inspector at scale (1,000 companies, 10,000 journal entries): ' +
          `first paint cold ${paints.cold.toFixed(0)} ms, warm ${paints.warm.toFixed(0)} ms; ` +
          `update ${ms(updateTimes.busy)} ms; ` +
          `the empty company's page: paint ${paints.empty.toFixed(0)} ms, update ${ms(updateTimes.empty)} ms`,
      );

      // The picker filters the 1,000 as one types, and opens the company picked.
      await page.locator('#company-filter').fill('Empresa 0999');
      expect(await page.locator('.picker-list li[data-company]').count()).toBe(1);
      await page.locator('#company-filter').fill('Empresa');
      expect(await page.locator('.picker-list li[data-company]').count()).toBe(50);
      expect(await page.locator('.picker-list li.more').innerText()).toBe('949 more: keep typing');
      await page.locator('#company-filter').fill('Empresa 0999');
      await page.locator('.picker-list li[data-company]').first().click();
      await expect.poll(() => page.locator('.company-label').innerText()).toMatch(/^Empresa 0999 · \d{8}$/);
      await expect.poll(() => page.locator('.list-foot .count').innerText()).toBe('0 items');
      await expectClean(page, watch, [acme.token]);
      await context.close();
    });
  });
  describe('the report view', () => {
    it("shows the company's findings and score in its panel, live, and the whole report in the detail column", async () => {
      const { emu, acme } = acmeEmulator();
      const other = emu.companies.create({ cnpjRoot: '44555666', name: 'Outra' });
      const write = (token: string) =>
        emu.fetch('/v1/catalogos', {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: '{}',
        });
      const first = await write(acme.token);
      expect(first.status).toBe(400);
      // Another company's mistake is not this company's report.
      expect((await write(other.token)).status).toBe(400);
      const server = await emu.listen({ port: 0 });
      const { page, context, watch } = await openPage(server, [NO_DEMO]);
      await page.goto(`${server.url}/_emulator/ui#company=${acme.companyId}`);
      await page.waitForSelector('body[data-ready="true"]');
      await page.waitForSelector('.stream-state.live');
      const panel = page.locator('section[aria-label="Report"]');
      const listed = emu.report().coverage.score.listed;
      await expect
        .poll(() => panel.locator('.score').innerText())
        .toBe(`1 finding · 0 of ${listed} behaviours exercised`);

      // A second mistake while the page is open: the panel follows.
      const second = await write(acme.token);
      await expect
        .poll(() => panel.locator('.score').innerText())
        .toBe(`2 findings · 0 of ${listed} behaviours exercised`);
      expect(await panel.locator('li[data-rule]').count()).toBe(2);

      await panel.getByRole('button', { name: 'Show the report' }).click();
      const findings = page.locator('.detail .finding');
      await expect.poll(() => findings.count()).toBe(2);
      const texts = await findings.allInnerTexts();
      expect(texts[0]).toContain(
        `POST /v1/catalogos (request ${first.headers.get('x-request-id')}) was sent without an idempotency-key`,
      );
      expect(texts[1]).toContain(`request ${second.headers.get('x-request-id')}`);
      expect(texts[0]).toContain('Fix: Send an idempotency-key on every state-changing request');
      expect(await page.locator('.detail .behaviours li').count()).toBe(listed);
      expect(await page.locator('.detail table.grid tbody tr').allInnerTexts()).toEqual([
        expect.stringMatching(/^POST \/v1\/catalogos\s+2\s+400×2\s+201, 401, 403, 404,/),
      ]);
      await expectClean(page, watch, [acme.token, other.token]);
      await context.close();
    });
  });

  describe('an exploration', () => {
    it('shows where an exploration told to the server is as it runs, then its minimal plan and why it fails', async () => {
      const { emu, acme } = acmeEmulator();
      const server = await emu.listen({ port: 0 });
      const { page, context, watch } = await openPage(server, [NO_DEMO]);
      await page.goto(`${server.url}/_emulator/ui#company=${acme.companyId}`);
      await page.waitForSelector('body[data-ready="true"]');
      const panel = page.locator('section[aria-label="Report"] .exploration');
      // Begun after the page opened, on companies the page does not follow: the panel picks it up on its own.
      const { id } = emu.explorations.begin({ seed: 3, runs: 40, command: 'python3 sync.py' });
      const plan = [{ target: 'api', method: 'GET', path: '/v1/empresa', nth: 2, effect: 'status503' }] as const;
      emu.explorations.run(id, { phase: 'fault-free', plan: [], reasons: [] });
      await expect.poll(() => panel.getAttribute('data-state')).toBe('running');
      emu.explorations.run(id, { phase: 'search', plan, reasons: [{ kind: 'exit', message: 'exited with code 1' }] });
      await expect
        .poll(() => panel.locator('.last-run').innerText())
        .toBe('run 2 (search): status503 on the 2nd GET /v1/empresa → failed (exit)');
      expect(await panel.locator('p').first().innerText()).toBe(
        'Exploration (seed 3) running: 2 runs told, 40 plans asked',
      );
      emu.explorations.end(id, {
        runs: 1,
        passed: 0,
        incomplete: null,
        failure: {
          plan,
          shrunkFrom: plan,
          reasons: [{ kind: 'exit', message: 'exited with code 1' }],
          findings: [],
          outcomeDiff: [],
          replay: 'catalog-emulator explore --seed 3 --replay PLAN.json -- python3 sync.py',
          faultFree: false,
        },
      });
      await expect.poll(() => panel.getAttribute('data-state')).toBe('failed');
      expect(await panel.locator('.minimal-plan').innerText()).toBe(`Minimal plan: ${JSON.stringify(plan)}`);
      expect(await panel.locator('li[data-kind]').allInnerTexts()).toEqual(['exit exited with code 1']);
      await expectClean(page, watch, [acme.token]);
      await context.close();
    });
  });

  describe('a company on a clock of its own', () => {
    it('shows its own time and moves its own clock, not the shared one', async () => {
      const { emu } = acmeEmulator();
      const own = emu.companies.create({ cnpjRoot: '44555666', name: 'Própria Ltda', clock: 'own' });
      await emu.companies.clock(own.companyId).advance('3d');
      const server = await emu.listen({ port: 0 });
      const { page, context, watch } = await openPage(server, [NO_DEMO]);
      await page.goto(`${server.url}/_emulator/ui#company=${own.companyId}`);
      await page.waitForSelector('body[data-ready="true"]');
      const shared = emu.clock.now().getTime();
      const ownNow = () => emu.companies.clock(own.companyId).info().now.getTime();
      const before = ownNow();
      expect(before).toBe(shared + 3 * 86_400_000);
      expect([
        await page.locator('.clock-kind').innerText(),
        await page.locator('[data-testid="now"]').innerText(),
      ]).toEqual(['own clock', shown(before)]);

      await page.getByRole('button', { name: '+1 h' }).click();
      await settled(page);
      expect(ownNow()).toBe(before + 3_600_000);
      expect(emu.clock.now().getTime()).toBe(shared);
      await expect.poll(() => page.locator('[data-testid="now"]').innerText()).toBe(shown(before + 3_600_000));

      // The picker switches to a company on the shared clock, and the buttons follow it.
      await page.locator('#company-filter').fill('Acme');
      await page.locator('.picker-list li[data-company]').first().click();
      await expect.poll(() => page.locator('.clock-kind').innerText()).toBe('shared clock');
      expect(await page.locator('[data-testid="now"]').innerText()).toBe(shown(shared));
      await page.getByRole('button', { name: '+5 min' }).click();
      await settled(page);
      expect(emu.clock.now().getTime()).toBe(shared + 300_000);
      expect(ownNow()).toBe(before + 3_600_000);
      await expectClean(page, watch, [own.token]);
      await context.close();
    });
  });

  describe('the demo panel', () => {
    // The demo gate (GET /_emulator/inspector/demo, POST …/demo/next) is served by `catalog-emulator demo NAME --ui`;
    // here the browser answers those two calls itself, with bodies of the shared wire type (DemoState), so the
    // panel is tested on its own: shown with the steps, "Next step" posting and showing the answer, done at the end.
    it('shows the steps of the running demo and releases the next one', async () => {
      const { emu, acme } = acmeEmulator();
      const server = await emu.listen({ port: 0 });
      const { page, context, watch } = await openPage(server);
      const steps: DemoState['steps'] = [
        { n: 1, title: '1. Acme configures its webhook destination.', lines: ['PUT /v1/webhook → 201'] },
      ];
      const state = (): DemoState => ({
        name: 'webhook-retries',
        summary: 'a receiver down for 7 deliveries',
        steps: [...steps],
        waiting: steps.length < 2,
        done: steps.length === 2,
      });
      const posts: string[] = [];
      await context.route(`${server.url}/_emulator/inspector/demo**`, async (route) => {
        const request = route.request();
        if (request.method() === 'POST') {
          posts.push(`${request.headers()['content-type']} ${request.postData()}`);
          steps.push({ n: 2, title: '2. A test event.', lines: ['POST /v1/webhook/testes → 202'] });
        }
        await route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify(state()) });
      });
      await page.goto(`${server.url}/_emulator/ui#company=${acme.companyId}`);
      const panel = page.locator('section.demo');
      await panel.waitFor();
      expect(await panel.locator('h2').textContent()).toBe('Demo: webhook-retries');
      expect(await panel.locator('ol.steps > li').allTextContents()).toEqual([
        '1. Acme configures its webhook destination.PUT /v1/webhook → 201',
      ]);
      await panel.getByRole('button', { name: 'Next step' }).click();
      await expect.poll(() => panel.locator('ol.steps > li').count()).toBe(2);
      expect(posts).toEqual(['application/json {}']);
      expect(await panel.locator('button[data-action="demo-next"]').innerText()).toBe('Demo finished');
      expect(await panel.locator('button[data-action="demo-next"]').isDisabled()).toBe(true);
      await expectClean(page, watch, [acme.token]);
      await context.close();
    });
  });
});
