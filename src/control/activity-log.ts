/**
 * The control calls in the activity stream (src/engine/activity.ts): the first middleware of the control app, so
 * a call the guard refuses (401, 415) is told too. Nothing is done while nobody listens and nothing records.
 *
 * Each entry names the control by the row its route tagged the request with (row.ts): its operation id, what it
 * acts on and the company its path or query names; and, from the row's `describe` of its answer, what it did in a
 * few words, the company and the fault it turned out to be about. A call no control answered (404) names none.
 */
import type { MiddlewareHandler } from 'hono';
import type { ControlActivity } from '../engine/activity.js';
import { isoString } from '../core/time.js';
import { keptPath } from '../core/kept-text.js';
import { errorOf } from '../http/errors.js';
import type { ControlEnv } from './row.js';

export function controlActivity(): MiddlewareHandler<ControlEnv> {
  return async (c, next) => {
    const activity = c.env.runtimes.activity;
    if (!activity.wanted) return next();
    const at = isoString(c.env.controls.clock.now().getTime());
    await next();
    const response = c.res;
    const tagged = c.get('control');
    const notes = tagged?.notes;
    const error = errorOf(response);
    const entry: ControlActivity = {
      kind: 'control',
      at,
      method: c.req.method,
      // Kept as the journal keeps a request's (docs/journal.md): a call the guard refused is told too.
      path: keptPath(c.req.path),
      status: response.status,
      operation: tagged?.row.id ?? null,
      detail: notes?.detail ?? null,
      error: error === undefined ? null : { codigo: error.codigo, caminho: error.caminho ?? null },
      scope: tagged?.row.scope ?? null,
      companyId: tagged?.companyId ?? notes?.companyId ?? null,
      faultId: notes?.faultId ?? null,
    };
    activity.tell(entry);
  };
}
