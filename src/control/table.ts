/**
 * The /_emulator controls: the rows of every group (src/control/groups/, one module per group; row.ts says what a
 * row holds). Each row is its route (routes.ts), its operation in openapi.controls.json and on the docs page
 * (src/openapi/controls.ts), its name and notes in the activity stream (activity-log.ts), and its sample call in the
 * table's test. No two rows' paths match one request (the test proves each row answers its own sample call), so the
 * order of the groups is only the document's within a path, which each group keeps: its rows of one path together.
 */
import * as activity from './groups/activity.js';
import * as clock from './groups/clock.js';
import * as companies from './groups/companies.js';
import * as documents from './groups/documents.js';
import * as emulator from './groups/emulator.js';
import * as explorations from './groups/explorations.js';
import * as faults from './groups/faults.js';
import * as inbox from './groups/inbox.js';
import * as inspector from './groups/inspector.js';
import * as journal from './groups/journal.js';
import * as network from './groups/network.js';
import * as receiverChecks from './groups/receiver-checks.js';
import * as regulatory from './groups/regulatory.js';
import * as report from './groups/report.js';
import * as state from './groups/state.js';
import * as webhooks from './groups/webhooks.js';
import type { Control } from './row.js';

export const CONTROLS = [
  ...emulator.ROWS,
  ...documents.ROWS,
  ...companies.ROWS,
  ...state.ROWS,
  ...clock.ROWS,
  ...faults.ROWS,
  ...network.ROWS,
  ...regulatory.ROWS,
  ...inbox.ROWS,
  ...webhooks.ROWS,
  ...receiverChecks.ROWS,
  ...journal.ROWS,
  ...activity.ROWS,
  ...report.ROWS,
  ...explorations.ROWS,
  ...inspector.ROWS,
] as const satisfies readonly Control[];

/** The operation id of every control. */
export type ControlId = (typeof CONTROLS)[number]['id'];
