/**
 * The emulator controls over HTTP under /_emulator: JSON, camelCase, the API's bearer tokens not needed (an
 * optional control token instead, see guard.ts). One route per row of the controls' table (table.ts), each a thin
 * call of the same in-process control (emu.companies, emu.clock, ...); the activity stream tells every call.
 */
import { Hono } from 'hono';
import { apiError, CONTROL_REQUEST_ID, errorResponse } from '../http/errors.js';
import { controlActivity } from './activity-log.js';
import { guardRefusal } from './guard.js';
import { routeOf, type ControlDocuments, type ControlEnv } from './row.js';
import { CONTROLS } from './table.js';

export function buildControlApp(documents: ControlDocuments): Hono<ControlEnv> {
  const app = new Hono<ControlEnv>();
  // First, so that a call the guard refuses (401, 415) is told too.
  app.use('*', controlActivity());
  for (const row of CONTROLS) app.on(row.method, row.path, routeOf(row, documents));
  // A catch-all route, not notFound: hono calls only the root app's notFound, which answers for the API. Guarded
  // too: without the token, a path that is no control is not told apart from one that is.
  app.all(
    '*',
    (c) =>
      guardRefusal(c, false) ??
      errorResponse(
        apiError(
          404,
          'rota_nao_encontrada',
          `No control at ${c.req.method} ${c.req.path}; GET /_emulator describes the emulator, and docs/controls.md lists every control.`,
        ),
        CONTROL_REQUEST_ID,
      ),
  );
  return app;
}
