/**
 * What every browser test shares: Debian's chromium (or CHROMIUM_PATH), skipped loudly where it is missing, launched
 * the same way, and a page watched for what a test did not ask for — console errors, failed requests, requests to any
 * origin but the emulator's (the pages must work offline: those are refused and recorded).
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Whether chromium is there; when not, says so once, with the fix, for `what` (the suite that will be skipped). */
export function haveChromium(what: string): boolean {
  if (existsSync(CHROMIUM)) return true;
  console.warn(
    `\n*** SKIPPED ${what}: no chromium at ${CHROMIUM}. ` +
      'Install it with `apt-get install -y chromium` (Debian; .ci/run does this), or point CHROMIUM_PATH at a Chromium. ***\n',
  );
  return false;
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** What a page did that a test did not ask for: console errors, failed requests, requests elsewhere. */
export interface Watch {
  readonly consoleErrors: string[];
  readonly failed: string[];
  readonly elsewhere: string[];
  /** Set while the test navigates away: the calls the page had in flight are aborted by the browser, not failed. */
  leaving: boolean;
}

export interface WatchOptions {
  readonly viewport?: { readonly width: number; readonly height: number };
  /** The failures a test provokes on purpose, each as `<status> <METHOD> <path>`; any other is recorded. */
  readonly expected?: readonly string[];
  /** Requests the page itself aborts that are not failures (the inspector's stream, closed when it switches company). */
  readonly abortable?: (url: URL) => boolean;
}

/** A new page in a context of its own on `browser`, for the emulator at `origin`, watched. */
export async function openWatchedPage(
  browser: Browser,
  origin: string,
  options: WatchOptions = {},
): Promise<{ page: Page; context: BrowserContext; watch: Watch }> {
  const { viewport = { width: 1280, height: 900 }, expected = [], abortable = () => false } = options;
  const context = await browser.newContext({ viewport });
  const watch: Watch = { consoleErrors: [], failed: [], elsewhere: [], leaving: false };
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (new URL(url).origin === origin) return route.continue();
    watch.elsewhere.push(url);
    return route.abort('blockedbyclient');
  });
  const page = await context.newPage();
  const provoked = new Set<string>();
  page.on('response', (response) => {
    if (response.status() < 400) return;
    const url = new URL(response.url());
    const key = `${response.status()} ${response.request().method()} ${url.pathname}`;
    if (expected.includes(key)) provoked.add(url.href);
    else watch.failed.push(key);
  });
  page.on('requestfailed', (request) => {
    if (request.failure()?.errorText === 'net::ERR_ABORTED' && (watch.leaving || abortable(new URL(request.url()))))
      return;
    watch.failed.push(`${request.url()}: ${request.failure()?.errorText}`);
  });
  page.on('console', (message) => {
    if (message.type() !== 'error') return;
    // Chromium logs each answer of 400 or more as a console error: those the test provoked are expected.
    const url = message.location().url;
    if (
      message.text().startsWith('Failed to load resource') &&
      (provoked.has(url) || expected.some((e) => url.endsWith(e.split(' ')[2]!)))
    )
      return;
    watch.consoleErrors.push(`${message.text()} (${url})`);
  });
  page.on('pageerror', (error) => watch.consoleErrors.push(String(error)));
  return { page, context, watch };
}
