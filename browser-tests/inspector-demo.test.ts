/**
 * A demo on the inspector page, in a real browser (Debian's chromium, driven by playwright-core): the built CLI runs
 * `demo webhook-retries --ui --no-open --port 0`, the page shows its steps, and pressing "Next step" runs each one
 * until the demo is done, its narration on the page with no token or secret in the DOM and no console error.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demos } from '../src/index.js';
import { haveChromium, launchChromium, openWatchedPage, type Watch } from './support/chromium.js';

const HAVE_CHROMIUM = haveChromium('the browser test of demo --ui on the inspector page');

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = fileURLToPath(new URL('../dist/bin/catalog-emulator.js', import.meta.url));
const webhookRetries = demos.find((demo) => demo.name === 'webhook-retries')!;

/** The headings of webhook-retries' steps and its webhook secret, from a run in process (seeded: the same ids). */
async function script(): Promise<{ titles: string[]; secret: string }> {
  const printed: string[] = [];
  await webhookRetries.run((line) => void printed.push(line));
  const lines = printed.join('\n').split('\n');
  const titles = lines.filter((line, i) => /^[1-6]\. /.test(line) && lines[i - 1] === '');
  const secret = /"segredo":"(svc_whsec_[^"]+)"/.exec(printed.join('\n'))![1]!;
  return { titles, secret };
}

describe.skipIf(!HAVE_CHROMIUM)('demo webhook-retries --ui in chromium', { timeout: 120_000 }, () => {
  let cli: ChildProcess;
  let stdout = '';
  let url: string;
  let browser: Browser;
  let page: Page;
  let watch: Watch;

  beforeAll(async () => {
    cli = spawn(process.execPath, [CLI, 'demo', 'webhook-retries', '--ui', '--no-open', '--port', '0'], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NO_COLOR: '1' },
    });
    url = await new Promise<string>((resolve, reject) => {
      cli.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
        stdout += chunk;
        const found = /\n {2}inspector: (http:\/\/\S+)\n/.exec(stdout);
        if (found) resolve(found[1]!);
      });
      cli.once('exit', (code) => reject(new Error(`demo --ui exited (${code}):\n${stdout}`)));
    });
    browser = await launchChromium();
    // The stream the page follows ends aborted when the server stops.
    ({ page, watch } = await openWatchedPage(browser, new URL(url).origin, {
      abortable: (at) => at.pathname === '/_emulator/inspector/stream',
    }));
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    if (cli && cli.exitCode === null) cli.kill('SIGKILL');
  });

  it('shows the step it waits at; each "Next step" runs one, until the demo is done', async () => {
    const { titles, secret } = await script();
    expect(titles).toHaveLength(6);
    await page.goto(url);
    const panel = page.locator('section.demo');
    const steps = panel.locator('ol.steps > li');
    const next = panel.locator('button[data-action="demo-next"]');
    await expect.poll(() => panel.isVisible(), { timeout: 30_000 }).toBe(true);
    expect(await panel.locator('h2').textContent()).toBe('Demo: webhook-retries');
    expect(await panel.locator('p').first().textContent()).toBe(webhookRetries.summary);
    expect(await steps.locator('b').allTextContents()).toEqual([titles[0]]);
    expect(await next.textContent()).toBe('Next step');
    expect(await next.isEnabled()).toBe(true);

    for (let n = 1; n <= 6; n += 1) {
      await next.click();
      // The step ran: its lines are shown under it, and (but after the last) the next one waits.
      await expect.poll(() => steps.locator('pre').count(), { timeout: 30_000 }).toBe(n);
      // The step that waits next is drawn from the demo's state read after the step's answer: it may come a moment
      // after the step's lines (seen on a loaded machine), so it is waited for, not read at once.
      const upTo = titles.slice(0, Math.min(n + 1, 6));
      await expect.poll(() => steps.locator('b').allTextContents(), { timeout: 30_000 }).toEqual(upTo);
    }
    await expect.poll(() => next.textContent(), { timeout: 30_000 }).toBe('Demo finished');
    expect(await next.isDisabled()).toBe(true);
    const narration = await steps.locator('pre').allTextContents();
    expect(narration[0]).toContain('  ← 201');
    expect(narration[3]).toContain(
      '  2026-01-01 22:35:05 (+22:35:05)  attempt 8: signature ok, the receiver answers 200',
    );
    expect(narration[5]).toContain('  Delivered at once: event entregue, tentativas_ciclo 1, tentativas_totais 9.');

    // The receipt's secret is shown masked; no token or secret anywhere in the DOM.
    expect(narration[0]).toContain('"segredo":"••••"');
    // The page's globals, as this file (compiled without the DOM's types) sees them.
    const html = await page.evaluate(
      () =>
        (globalThis as unknown as { document: { documentElement: { outerHTML: string } } }).document.documentElement
          .outerHTML,
    );
    expect(html).not.toContain(secret);
    expect(html).not.toMatch(/svc_(?:at|whsec)_[A-Za-z0-9_-]{8,}/);
    expect(watch.consoleErrors).toEqual([]);
    expect(watch.failed).toEqual([]);
    expect(watch.elsewhere).toEqual([]);

    // The terminal narrated the same run, and the server serves on until SIGTERM.
    await expect.poll(() => stdout.includes('The demo is over.'), { timeout: 30_000 }).toBe(true);
    for (const title of titles) expect(stdout).toContain(`\n${title}\n`);
    const exited = new Promise<number | null>((resolve) => cli.once('exit', resolve));
    cli.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});
