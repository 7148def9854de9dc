/**
 * Where the spec tests send their requests. By default an in-process emulator (one per `connect()`);
 * with SPEC_BASE_URL set (or the server project's global setup), a running server, over real HTTP; with
 * CONFORMANCE_BASE_URL set, a deployment without controls (deployment.ts). Either way the tests speak only HTTP: the API under /v1 and the controls under /_emulator, and every API
 * answer is checked against the OpenAPI document (contract.ts).
 */
import { inject } from 'vitest';
import { createEmulator, type Emulator, type EmulatorOptions } from '../../src/index.js';
import { checkedAnswers, checkedFetch, type ReadAnswer } from './contract.js';
import { deployment, deploymentFetch, notHere } from './deployment.js';

export interface Target {
  /** 'server' when requests cross a real socket; 'deployment' when, besides, no control is there. */
  readonly kind: 'in-process' | 'server' | 'deployment';
  readonly baseUrl: string;
  fetch(path: string, init?: RequestInit): Promise<Response>;
  /** The same request, its answer read whole and checked alike (the client's way: one read, no second Response). */
  readonly answer?: (path: string, init?: RequestInit) => Promise<ReadAnswer>;
}

/** A target whose requests go through `fetch`, every answer checked against the document (contract.ts). */
function checkedTarget(
  kind: Target['kind'],
  baseUrl: string,
  fetch: (path: string, init?: RequestInit) => Promise<Response>,
): Target {
  return { kind, baseUrl, fetch: checkedFetch(fetch), answer: checkedAnswers(fetch) };
}

declare module 'vitest' {
  export interface ProvidedContext {
    /** The one server every file of the project uses (shared-server, or the server SPEC_BASE_URL names). */
    specBaseUrl: string | undefined;
    /** spec-server: a server per worker, the one at VITEST_POOL_ID - 1 for the files of that worker. */
    specWorkerUrls: readonly string[] | undefined;
    /** Whether the server was started by this test run (so global controls such as reset may be used). */
    specServerOwned: boolean | undefined;
  }
}

export function serverUrl(): string | undefined {
  if (process.env.SPEC_BASE_URL) return process.env.SPEC_BASE_URL;
  const perWorker = inject('specWorkerUrls');
  if (perWorker === undefined) return inject('specBaseUrl') ?? undefined;
  // Files that run at the same time are in workers of different pool ids: each has a server to itself.
  const url = perWorker[Number(process.env.VITEST_POOL_ID) - 1];
  if (url === undefined)
    throw new Error(`no server for worker VITEST_POOL_ID=${process.env.VITEST_POOL_ID} (${perWorker.length} started)`);
  return url;
}

/**
 * Whether the tests may use controls that affect every company (reset): true in process and on the server
 * the test run started itself (its files run one at a time); false on a server named by SPEC_BASE_URL.
 */
export function mayResetTarget(): boolean {
  if (process.env.SPEC_BASE_URL || deployment !== undefined) return false;
  return serverUrl() === undefined || inject('specServerOwned') === true;
}

export function connect(options: EmulatorOptions = {}): Target {
  if (deployment !== undefined) {
    const made = Object.keys(options);
    if (made.length > 0) notHere(`needs an emulator made with ${made.join(', ')}`);
    const { baseUrl } = deployment;
    return checkedTarget('deployment', baseUrl, (path, init) => {
      // Controls skip their test before sending (client.ts); a request built by hand must not reach a deployment either.
      if (path.startsWith('/_emulator'))
        throw new Error(
          `a test sent ${init?.method ?? 'GET'} ${path} to a deployment, which has no /_emulator controls`,
        );
      return deploymentFetch(`${baseUrl}${path}`, init);
    });
  }
  const base = serverUrl();
  if (base !== undefined) {
    const baseUrl = base.replace(/\/$/, '');
    return checkedTarget('server', baseUrl, (path, init) => fetch(`${baseUrl}${path}`, init));
  }
  return inProcessTarget(createEmulator(options));
}

/** An emulator of this process as a target: requests go through emu.fetch, no socket. */
export function inProcessTarget(emu: Emulator): Target {
  return checkedTarget('in-process', 'http://catalog-emulator.local', (path, init) => emu.fetch(path, init));
}
