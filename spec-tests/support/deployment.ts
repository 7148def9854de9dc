/**
 * The spec tests against a deployment: a base URL and credentials, no /_emulator controls. Named by
 * CONFORMANCE_BASE_URL and CONFORMANCE_TOKEN (a credential of the company the tests work in, holding every
 * permission), CONFORMANCE_TOKEN_FOR ("PERMISSION=TOKEN,…": credentials of that company holding only that
 * permission, several permissions joined by "+") and CONFORMANCE_OTHER_TOKEN (a credential of a second company).
 * `catalog-emulator conformance` sets them; so can anyone running vitest.
 *
 * There the tests share one company that is not new, and no control exists: a test that needs what only the
 * controls give (time travel, faults, the inbox, a company of its own or with given flags, a second company) is
 * skipped, saying which, before it sends its first control request; a test that needs a company where nothing
 * happened yet says so with `needsOwnCompany`.
 *
 * Every request to the deployment is bounded (bounded-http.ts): CONFORMANCE_REQUEST_TIMEOUT_MS (default 10000) from
 * its start to its answer's last byte, CONFORMANCE_MAX_BODY_BYTES (default 16 MiB) for the answer's body, and
 * stopRequests() stops them all at once (the conformance command's deadline).
 */
import { TestRunner } from 'vitest';
import { boundedFetch, DEFAULT_BOUNDS, type Bounds } from './bounded-http.js';

export interface Deployment {
  readonly baseUrl: string;
  readonly token: string;
  /** Credentials holding only the permission they are filed under. */
  readonly tokensFor: ReadonlyMap<string, string>;
  /** A credential (all permissions) of a second company, for the tests of what one company must not see of another's. */
  readonly otherToken: string | undefined;
}

function readDeployment(env: NodeJS.ProcessEnv): Deployment | undefined {
  const baseUrl = env.CONFORMANCE_BASE_URL;
  if (baseUrl === undefined || baseUrl === '') return undefined;
  const token = env.CONFORMANCE_TOKEN;
  if (token === undefined || token === '')
    throw new Error(
      'CONFORMANCE_BASE_URL is set without CONFORMANCE_TOKEN: name a credential of the company to test in',
    );
  const tokensFor = new Map<string, string>();
  for (const pair of (env.CONFORMANCE_TOKEN_FOR ?? '').split(',').filter((part) => part.trim() !== '')) {
    const at = pair.indexOf('=');
    if (at <= 0 || at === pair.length - 1) throw new Error(`CONFORMANCE_TOKEN_FOR: "${pair}" is not PERMISSION=TOKEN`);
    tokensFor.set(pair.slice(0, at).trim(), pair.slice(at + 1).trim());
  }
  const otherToken = env.CONFORMANCE_OTHER_TOKEN === '' ? undefined : env.CONFORMANCE_OTHER_TOKEN;
  return { baseUrl: baseUrl.replace(/\/$/, ''), token, tokensFor, otherToken };
}

/** The deployment the tests run against, or undefined when they run against an emulator (with its controls). */
export const deployment: Deployment | undefined = readDeployment(process.env);

/** A whole number of at least 1 from the environment, or the default when unset. */
function positive(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const text = env[name];
  if (text === undefined || text === '') return fallback;
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(Number(text)) || Number(text) < 1)
    throw new Error(`${name} must be a whole number, 1 or more (got "${text}")`);
  return Number(text);
}

const stop = new AbortController();
const bounds: Bounds = {
  timeoutMs: positive(process.env, 'CONFORMANCE_REQUEST_TIMEOUT_MS', DEFAULT_BOUNDS.timeoutMs),
  maxBodyBytes: positive(process.env, 'CONFORMANCE_MAX_BODY_BYTES', DEFAULT_BOUNDS.maxBodyBytes),
  signal: stop.signal,
};

/** A request to the deployment, as fetch makes it, within the bounds; a failure names the URL and what happened. */
export function deploymentFetch(url: string, init: RequestInit = {}): Promise<Response> {
  return boundedFetch(url, init, bounds);
}

/** Stops every request to the deployment, pending or to come: each fails with `reason`. */
export function stopRequests(reason: string): void {
  stop.abort(new Error(reason));
}

/**
 * Skips the running test, giving the reason: what it needs that a deployment without controls does not give.
 * Outside a test (a describe-level hook) it throws, so a suite set up through the controls fails loudly there.
 */
export function notHere(reason: string): never {
  const test = TestRunner.getCurrentTest();
  if (test === undefined)
    throw new Error(`not runnable against a deployment (${reason}), and not inside a test to skip`);
  test.context.skip(reason);
  throw new Error('unreachable: skip() throws');
}

/**
 * Declares that the test needs a company where nothing happened before it (it counts or lists the company's
 * records, or sets what a company has one of): skipped against a deployment, where the company is shared.
 */
export function needsOwnCompany(why: string): void {
  if (deployment !== undefined) notHere(`needs a company of its own: ${why}`);
}

/**
 * Declares that the test needs the emulator's controls further on (`what`: the clock, the inbox, faults, routes):
 * skipped against a deployment before it sends anything, so that what it would do first (a test event, counted
 * against the company's 5 a minute; an ingestion job) is not wasted there.
 */
export function needsControls(what: string): void {
  if (deployment !== undefined) notHere(`needs the emulator's controls (${what})`);
}
