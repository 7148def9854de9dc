/**
 * The report of what the emulator saw the integration do (emu.report(), GET /_emulator/report): findings on the
 * client's behaviour, the coverage of the service, and the last receiver check (src/grading/report.ts judges).
 */
import * as z from 'zod';
import { receiverSummary, type Report } from '../../grading/report.js';
import type { CompanyFilter, ControlContext } from '../context.js';
import { BAD_FILTER, COMPANY_FILTER, control, NO_COMPANY, type Control } from '../row.js';
import { clientFinding } from '../grading-schemas.js';
import { lazy } from '../schemas.js';
import { exploration } from './explorations.js';

/** emu.report(filter). */
export function reportOf(context: ControlContext, filter: CompanyFilter): Report {
  const companyId = context.filtered(filter);
  const report = context.grading.report(companyId);
  // A company's report shows the last check of its destination; the whole report, the last check of any receiver.
  const check = companyId === undefined ? context.lastReceiverCheck : context.receiverChecks.get(companyId);
  const last =
    context.lastExplorationId === undefined ? undefined : context.explorations.get(context.lastExplorationId);
  return {
    ...report,
    ...(check === undefined ? {} : { receiver: receiverSummary(check) }),
    // An exploration makes a company per run: it is the emulator's, in every company's report too.
    ...(last === undefined ? {} : { exploration: last }),
  };
}

/** The report (src/grading/report.ts holds its TypeScript types). */
export const report = lazy(() => {
  const finding = clientFinding();
  const count = z.number().int().min(0);
  const coverage = z.strictObject({
    score: z
      .strictObject({ exercised: count, listed: count })
      .meta({ description: 'Behaviours of the table seen, out of those it lists.' }),
    behaviours: z.array(
      z.strictObject({
        id: z.string(),
        area: z.enum(['requests', 'deliveries', 'clock']),
        what: z.string(),
        statements: z.array(z.string()),
        seen: count,
        control: z.string().meta({ description: 'The control that produces it.' }),
      }),
    ),
    gaps: z
      .array(z.string())
      .meta({ description: 'What was never exercised, each with the control that produces it.' }),
    operations: z.array(
      z.strictObject({
        id: z.string(),
        method: z.string(),
        path: z.string(),
        calls: count,
        statuses: z.array(z.strictObject({ status: z.number().int(), count })),
        codes: z.array(z.strictObject({ codigo: z.string(), count })),
        unreceived: z
          .array(z.number().int())
          .meta({ description: 'Statuses openapi.json documents for it, never received.' }),
      }),
    ),
    notCalled: z.array(z.string()),
    unrouted: count,
    faults: z.array(z.strictObject({ target: z.string(), effect: z.string(), fired: count })),
    inboxAttempts: count,
  });
  return z.strictObject({
    findings: z.array(finding),
    findingsDropped: count,
    coverage,
    receiver: z
      .strictObject({ target: z.string(), passed: count, failed: count, failing: z.array(z.string()) })
      .optional(),
    exploration: exploration()
      .optional()
      .meta({ description: 'The last exploration told to the emulator (GET /_emulator/explorations/last).' }),
  });
});

export const ROWS = [
  control({
    method: 'GET',
    path: '/report',
    id: 'getReport',
    summary:
      "What the emulator saw the integration do, judged: findings on the client's behaviour and the coverage of the " +
      'service',
    tag: 'Grading',
    scope: 'emulator',
    query: [COMPANY_FILTER],
    success: {
      200: {
        description:
          "Every company's part, or with companyId that company's alone; over the emulator's whole life, resets " +
          'included.',
        body: report,
      },
    },
    errors: { 404: NO_COMPANY, 422: BAD_FILTER },
    run: ({ emu, query }) => emu.report(query),
    sample: (w) => ({ path: `/report?companyId=${w.companyId}` }),
  }),
] as const satisfies readonly Control[];
