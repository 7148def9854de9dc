/**
 * The control calls in the activity stream (src/engine/activity.ts): the first middleware of the control app, so
 * a call the guard refuses (401, 415) is told too. Nothing is done while nobody listens.
 *
 * Each entry names the control by its operation id (the controls' table, contract.ts, which openapi.controls.json
 * is made from) and, for the controls that change something, what it did in a few words, read from the answer it
 * gave: the controls are not on the request path the bench measures, and only these small answers are read.
 */
import type { MiddlewareHandler } from 'hono';
import type { ActivityFeed, ControlActivity } from '../engine/activity.js';
import { isoString } from '../core/time.js';
import { errorOf } from '../http/errors.js';
import type { Controls } from './api.js';
import { controlRoutes } from './contract.js';

type Env = { Bindings: { runtimes: { readonly activity: ActivityFeed }; controls: Controls } };

/** The prefix the control app is mounted at (src/emulator.ts). */
const PREFIX = '/_emulator';

export function controlActivity(): MiddlewareHandler<Env> {
  return async (c, next) => {
    const activity = c.env.runtimes.activity;
    if (!activity.listening) return next();
    const at = isoString(c.env.controls.clock.now().getTime());
    await next();
    const { method, path } = c.req;
    const response = c.res;
    const operation = operationOf(method, path);
    const error = errorOf(response);
    const entry: ControlActivity = {
      kind: 'control',
      at,
      method,
      path,
      status: response.status,
      operation,
      detail: operation !== null && response.status < 300 && operation in DETAILS ? await detailOf(operation, response, c.env.controls) : null,
      error: error === undefined ? null : { codigo: error.codigo, caminho: error.caminho ?? null },
    };
    activity.emit(entry);
  };
}

type Json = Record<string, unknown>;
const str = (value: unknown): string => (typeof value === 'string' || typeof value === 'number' ? String(value) : '?');
const ran = (body: Json) => `now ${str(body.now)}, ran ${str(body.ran)} task${body.ran === 1 ? '' : 's'}`;

/** What a control that changes something did, from its answer's body. Never a token or a secret. */
const DETAILS: Readonly<Record<string, (body: Json, controls: Controls) => string>> = {
  resetEmulator: (body) => `now ${str(body.now)}`,
  advanceClock: ran,
  advanceOwnClock: ran,
  runUntilIdle: ran,
  runUntilIdleOwnClock: ran,
  createCompany: (body) => `company ${str(body.companyId)} (${str(body.cnpjRoot)})`,
  resetCompany: (body) => `company ${str(body.companyId)} (${str(body.cnpjRoot)})`,
  addFault: (body, controls) => describeFault(str(body.id), controls),
  addCompanyFault: (body, controls) => describeFault(str(body.id), controls),
  addNetworkRoute: (body) => `${str(body.from)} → ${str(body.to)}`,
  raiseEvent: (body) => `event ${str(body.eventId)}`,
  restoreState: (body) => `now ${str(body.now)}`,
  restoreCompanyState: (body) => `now ${str(body.now)}`,
};

async function detailOf(operation: string, response: Response, controls: Controls): Promise<string | null> {
  try {
    const body = (await response.clone().json()) as Json;
    return DETAILS[operation]!(body, controls);
  } catch {
    return null;
  }
}

/** A fault just added, as `fault flt_1: api path=/v1/empresa → status=503, once`: its answer holds only its id. */
function describeFault(id: string, controls: Controls): string {
  const fault = controls.faults.list().find((f) => f.id === id);
  if (fault === undefined) return `fault ${id}`;
  const pairs = (object: object) => Object.entries(object).map(([name, value]) => `${name}=${typeof value === 'string' ? value : JSON.stringify(value)}`).join(' ');
  const times = fault.times === null ? 'until removed' : fault.times === 1 ? 'once' : `${fault.times} times`;
  return `fault ${id}: ${fault.target} ${pairs(fault.match) || 'any'} → ${pairs(fault.effect)}, ${times}`;
}

let patterns: readonly { readonly method: string; readonly pattern: RegExp; readonly id: string }[] | undefined;

/** The operation id of the control at `method` `path` (the whole path, /_emulator included); null for none. */
function operationOf(method: string, path: string): string | null {
  patterns ??= controlRoutes().map((route) => ({
    method: route.method,
    id: route.id,
    pattern: new RegExp(`^${route.path.replace(/\/$/, '').replace(/[.]/g, '\\.').replace(/:[A-Za-z_]\w*/g, '[^/]+')}$`),
  }));
  if (!path.startsWith(PREFIX)) return null;
  const rest = path.slice(PREFIX.length);
  return patterns.find((p) => p.method === method && p.pattern.test(rest))?.id ?? null;
}
